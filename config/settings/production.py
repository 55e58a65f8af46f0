"""Production: secrets have no default, cookies are secure."""
from .base import *  # noqa: F401,F403
from .base import env

SECRET_KEY = env("DJANGO_SECRET_KEY")
DEBUG = False
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Webhooks never go to private, loopback or link-local addresses in production (whatever the environment says).
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
