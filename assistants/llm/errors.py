from core.exceptions import ServiceUnavailable


class ModelError(ServiceUnavailable):
    """The language model failed (timeout, 5xx, 429, unreachable, malformed or empty answer).
    `reason` is a short machine word: timeout, rate_limited, server_error, unreachable, malformed, empty, refused."""

    code = "model_unavailable"

    def __init__(self, message: str, *, reason: str):
        super().__init__(message)
        self.reason = reason
