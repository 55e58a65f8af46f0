"""Production: secrets have no default, cookies are secure, browsers are told to use HTTPS only (HSTS)."""

from .base import *  # noqa: F403 - split settings: each layer starts from all of base's names
from .base import env

SECRET_KEY = env("DJANGO_SECRET_KEY")
DEBUG = False
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# HSTS: browsers that saw the site over HTTPS refuse plain HTTP to it for this long (Django sends it on HTTPS
# responses only). Subdomains and preload are opt-in: they commit every subdomain to HTTPS too.
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=False)
# TLS is usually ended at the proxy, which sets X-Forwarded-Proto; set True to redirect plain HTTP to HTTPS here.
# /healthz is exempt so that a load balancer's plain-HTTP check keeps working.
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=False)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_HTTPONLY = True
# Webhooks never go to private, loopback or link-local addresses in production (whatever the environment says).
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
