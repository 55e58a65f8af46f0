import hmac

from django.conf import settings
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core.health import health_report


def health_details_allowed(request) -> bool:
    """Staff (logged in to the admin), or a caller presenting HEALTH_TOKEN as `Authorization: Bearer <token>` or
    `X-Health-Token`. Anyone else gets the status alone: versions and worker host names help an attacker."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    token = settings.HEALTH_TOKEN
    if not token:
        return False
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    given = given.strip() if scheme.lower() == "bearer" else request.headers.get("X-Health-Token", "")
    return bool(given) and hmac.compare_digest(given.encode(), token.encode())


@never_cache
@require_GET
def healthz(request):
    """No authentication needed: for load balancers and `make run`. 200 when everything is up, 503 otherwise.
    The public answer is {"status"}; staff and HEALTH_TOKEN holders get each part (database, pgvector, broker,
    worker) with its versions and host names."""
    report = health_report()
    status = 200 if report["status"] == "ok" else 503
    if not health_details_allowed(request):
        report = {"status": report["status"]}
    return JsonResponse(report, status=status)
