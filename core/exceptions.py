"""The one error family raised by services. The API's exception handler and the web views turn these into a
sentence for a person (never a stack trace)."""


class ApplicationError(Exception):
    """A failure a caller can act on. `message` is a sentence for a person; `code` is stable for machines."""

    code = "error"
    status = 400

    def __init__(
        self, message: str, *, code: str | None = None, details: dict | None = None, status: int | None = None
    ):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        if status:
            self.status = status
        self.details = details or {}


class NotFound(ApplicationError):
    """Missing, or owned by another tenant or user: the two look the same on purpose."""

    code = "not_found"
    status = 404


class InvalidInput(ApplicationError):
    code = "invalid"
    status = 400


class Conflict(ApplicationError):
    code = "conflict"
    status = 409


class ServiceUnavailable(ApplicationError):
    code = "unavailable"
    status = 503
