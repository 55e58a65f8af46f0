"""The user's own data: download it, or delete the account and everything about it."""
from __future__ import annotations

import json

from django.contrib.auth import logout
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from assistants.services.privacy import user_export
from core.exceptions import ApplicationError
from web.access import end_user_required
from web.services import web_account_delete


@require_GET
@end_user_required
def account_export(request):
    """Everything held about the user, as a JSON download."""
    document = user_export(tenant=request.tenant, end_user=request.end_user)
    body = json.dumps(document, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d")
    response["Content-Disposition"] = f'attachment; filename="my-data-{stamp}.json"'
    return response


@require_http_methods(["GET", "POST"])
@end_user_required
def account_delete(request):
    """A confirmation page; the POST (with the box ticked) starts the erasure and ends the login."""
    if request.method == "GET":
        return render(request, "web/account_delete.html")
    if request.POST.get("confirm") != "yes":
        return render(request, "web/account_delete.html",
                      {"error": _("Tick the box to confirm that everything should be deleted.")}, status=400)
    try:
        job = web_account_delete(tenant=request.tenant, end_user=request.end_user, account=request.user)
    except ApplicationError as exc:
        return render(request, "web/account_delete.html", {"error": exc.message}, status=exc.status)
    logout(request)
    return render(request, "web/erased.html", {"job": job, "just_deleted": True})
