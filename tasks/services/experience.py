"""Experience memory: solutions users liked, generalised and scrubbed. (Interface fixed; issue 5.)"""


def experience_turn_hook(*, tenant, session, message) -> dict | None:
    """See assistants.services.hooks for the contract."""
    return None
