"""The user's own data: download it, or delete the account and everything about it."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import logout
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from assistants.services.privacy import user_export_file
from core.downloads import file_download
from core.exceptions import ApplicationError
from web.access import end_user_required
from web.services import web_account_delete


@require_GET
@end_user_required
def account_export(request):
    """Everything held about the user, as a JSON download."""
    document = user_export_file(tenant=request.tenant, end_user=request.end_user)
    stamp = timezone.now().strftime("%Y%m%d")
    return file_download(
        request,
        document,
        content_type="application/json; charset=utf-8",
        filename=f"my-data-{stamp}.json",
        whole_below=settings.EXPORT_MEMORY_BYTES,
    )


@require_http_methods(["GET", "POST"])
@end_user_required
def account_delete(request):
    """A confirmation page; the POST (with the box ticked) starts the erasure and ends the login."""
    if request.method == "GET":
        return render(request, "web/account_delete.html")
    if request.POST.get("confirm") != "yes":
        return render(
            request,
            "web/account_delete.html",
            {"error": _("Tick the box to confirm that everything should be deleted.")},
            status=400,
        )
    try:
        job = web_account_delete(tenant=request.tenant, end_user=request.end_user, account=request.user)
    except ApplicationError as exc:
        return render(request, "web/account_delete.html", {"error": exc.message}, status=exc.status)
    logout(request)
    return render(request, "web/erased.html", {"job": job, "just_deleted": True})
