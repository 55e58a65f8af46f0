"""Who may reach what: the secret key and hosts, security headers, login lockout, trusted proxies, request sizes."""

from __future__ import annotations

from datetime import timedelta

from config.env import env

SECRET_KEY = env("DJANGO_SECRET_KEY", default="dev-only-insecure-key-change-me")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

# --- Security headers (docs/api.md "Security headers") ------------------------------------------------------------
# A strict Content-Security-Policy (django-csp): scripts and stylesheets only from this site, no inline script, no
# eval, no framing, forms post only here. Inline style *attributes* stay allowed (style-src-attr): the web chat's
# progress bars set widths that way, and an attribute cannot run code. Also X-Frame-Options DENY,
# X-Content-Type-Options nosniff, Referrer-Policy same-origin and Cross-Origin-Opener-Policy same-origin (Django's
# SecurityMiddleware and clickjacking defaults), and a Permissions-Policy that turns off device features.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in (
        "camera",
        "microphone",
        "geolocation",
        "payment",
        "usb",
        "accelerometer",
        "gyroscope",
        "magnetometer",
    )
}

# --- Logins -------------------------------------------------------------------------------------------------
# Logins (web chat and admin) go through django-axes first: a locked-out username+address is refused before any
# password is hashed, because each hash is deliberately expensive CPU.
AUTHENTICATION_BACKENDS = [
    "core.auth.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# After LOGIN_FAILURE_LIMIT failed logins (unknown username or wrong password alike) from one address for one
# username, that pair is locked out for LOGIN_COOLOFF_MINUTES; staff unlock it earlier in the admin (Axes >
# Access attempts: delete the row) or with `python manage.py axes_reset_username <name>`.
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("LOGIN_COOLOFF_MINUTES", default=15))
# "username+ip_address" locks the pair; "ip_address" or "username" alone lock wider (comma-separated: any of them).
AXES_LOCKOUT_PARAMETERS = [
    part.split("+") if "+" in part else part
    for part in env.list("LOGIN_LOCKOUT_PARAMETERS", default=["username+ip_address"])
]
AXES_RESET_ON_SUCCESS = True  # only failures in a row lock: a good login clears the count
AXES_LOCKOUT_CALLABLE = "core.auth.login_locked_out"
AXES_HTTP_RESPONSE_CODE = 429  # "too many requests", with Retry-After, is what clients and monitors understand
# Failed logins from one address across all usernames (password spraying) that lock the address out for
# LOGIN_COOLOFF_MINUTES; higher than the per-username limit so that a shared office address is not locked by one
# forgetful person (core/auth.py).
LOGIN_ADDRESS_FAILURE_LIMIT = env.int("LOGIN_ADDRESS_FAILURE_LIMIT", default=20)
# Proxies whose X-Forwarded-For names the client: addresses or networks, comma-separated ("10.0.0.0/8,::1").
# Empty (the default): no header is believed, the client is the connection's address, as uvicorn is then told too
# (runplatform passes --no-proxy-headers, or --forwarded-allow-ips with this list). core/client_address.py.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])
AXES_CLIENT_IP_CALLABLE = "core.client_address.client_address"
AXES_DISABLE_ACCESS_LOG = True  # no row per successful login: less personal data kept
AXES_SENSITIVE_PARAMETERS = ["username", "password"]  # masked in what axes logs and stores of an attempt
AXES_VERBOSE = False  # no log line per attempt: it would carry usernames

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

# /healthz answers {"status"} to anyone; each part, with versions and worker host names, only to staff or to a
# caller sending this token (`Authorization: Bearer <token>` or `X-Health-Token`). Empty: staff only.
HEALTH_TOKEN = env("HEALTH_TOKEN", default="")
# Largest request body outside /api/ (the web chat, the admin); the ASGI layer refuses a larger one with 413 before
# reading it (core/request_limits.py), so a client cannot make a process hold a huge body.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("MAX_REQUEST_BYTES", default=2_621_440)
