"""The scaling tests reuse the admin tests' two-tenant world and the memory tests' talking person."""

from tests.admin.conftest import world  # noqa: F401 (a fixture, used by name)
from tests.memory.conftest import make_person  # noqa: F401 (a fixture, used by name)
