from django.http import JsonResponse
from django.views.decorators.http import require_GET

from core.health import health_report


@require_GET
def healthz(request):
    """No authentication: for load balancers and `make run`. 200 when everything is up, 503 otherwise."""
    report = health_report()
    return JsonResponse(report, status=200 if report["status"] == "ok" else 503)
