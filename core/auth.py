"""Login throttling (django-axes) for every login form: the web chat's and the admin's.

`LoginThrottleBackend` is first in AUTHENTICATION_BACKENDS: a username+address pair locked out after
LOGIN_FAILURE_LIMIT failures is refused before any password is hashed, and so is an address with
LOGIN_ADDRESS_FAILURE_LIMIT failures across all usernames (password spraying). The address is the client's as
core/client_address.py reads it (X-Forwarded-For only from TRUSTED_PROXIES). Failures are counted the same for an
unknown username and a wrong password, and the lockout page says the same in both cases, so neither the form
nor the lockout tells whether an account exists."""

from __future__ import annotations

import math

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.shortcuts import render
from django.utils import timezone

from core.client_address import client_address

LOCKOUT_TEMPLATE = "registration/locked_out.html"


class LoginThrottleBackend(AxesStandaloneBackend):
    """Axes' lockout check. A call without a request (a management command, the test client's login()) has no
    client to throttle: it is left to the next backend instead of refused."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        if address_failures(request) >= settings.LOGIN_ADDRESS_FAILURE_LIMIT:
            request.axes_locked_out = True  # AxesMiddleware answers with login_locked_out
            raise AxesBackendPermissionDenied("this address has too many failed logins across usernames")
        return super().authenticate(request, username=username, password=password, **kwargs)


def address_failures(request) -> int:
    """Failed logins from this request's address within the cool-off, whatever the username (axes keeps one row per
    username, address and browser)."""
    cool_off = get_cool_off(request)
    attempts = AccessAttempt.objects.filter(ip_address=client_address(request))
    if cool_off:
        attempts = attempts.filter(attempt_time__gte=timezone.now() - cool_off)
    return attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0


def login_locked_out(request, original_response=None, credentials=None):
    """AXES_LOCKOUT_CALLABLE: the lockout page (429 with Retry-After), for the web chat and the admin alike."""
    cool_off = get_cool_off(request)
    minutes = max(1, math.ceil(cool_off.total_seconds() / 60)) if cool_off else None
    response = render(
        request, LOCKOUT_TEMPLATE, {"minutes": minutes, "admin": request.path.startswith("/admin/")}, status=429
    )
    if cool_off:
        response["Retry-After"] = str(int(cool_off.total_seconds()))
    response["Cache-Control"] = "no-store"
    return response
