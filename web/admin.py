"""Login lockouts in the admin (django-axes): the unlock path for staff.

Only the access attempts are kept (AXES_DISABLE_ACCESS_LOG): a locked-out login shows as an attempt with its
failure count, and deleting it unlocks that login at once. The logs of successful logins and of every failure are
not kept, so their admin pages are removed. The page is for superusers only (it lists usernames of every
tenant); tenant staff have no permission on it (assistants/services/staff.py grants only their apps')."""

from axes.models import AccessFailureLog, AccessLog
from django.contrib import admin

for model in (AccessLog, AccessFailureLog):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
