"""Memory commands inside a chat turn: "forget ...", conflict clarification. (Interface fixed; issue 4.)"""


def memory_turn_hook(*, tenant, session, message) -> dict | None:
    """See assistants.services.hooks for the contract."""
    return None
