"""Earlier versions of messages: a message edited and resent, a reply regenerated (assistants.services.alternatives)
stays for the person to read, and leaves everything that could send it to a model again.

Recall, the window, the summary and experience learning all read only current versions (memory.services.recall.recall_sql
`current_version`, assistants.services.compaction, tasks.services.experience_sources); on top of that, once a
version is replaced, `message_versions_retire` removes what was derived from it for recall: its message vectors, its
keyword terms, and the confirmation of an experience learnt from it when it was a liked reply. Erasing the user
deletes earlier versions with the rest of their messages (assistants.services.privacy).

Installs that replaced messages before this existed run `python manage.py retire_earlier_versions` once
(`earlier_versions_cleanup`); it is idempotent.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Exists, OuterRef, Q

from memory.models import ExperienceContribution, MessageVector
from tasks.services.experience import experience_forget_for_message
from tenancy.models import MESSAGE_REPLACED_KEY, Message, Tenant

CLEANUP_BATCH = 500


def _replaced(tenant):
    """The tenant's messages replaced for good (a replacement still being written is marked "pending")."""
    return (
        Message.objects.for_tenant(tenant)
        .filter(metadata__has_key=MESSAGE_REPLACED_KEY)
        .exclude(**{f"metadata__{MESSAGE_REPLACED_KEY}": "pending"})
    )


@transaction.atomic
def message_versions_retire(*, tenant: Tenant, message_ids: list[int]) -> dict:
    """Remove what recall and experience memory hold of the earlier versions among `message_ids`: their vectors,
    their keyword terms, and their confirmations of experiences (an experience nobody else confirms goes). The
    messages themselves stay. Returns counts; idempotent."""
    replaced = _replaced(tenant).filter(pk__in=message_ids)
    ids = list(replaced.values_list("pk", flat=True))
    if not ids:
        return {"messages": 0, "vectors": 0, "terms": 0, "experiences": 0}
    vectors, _ = MessageVector.objects.for_tenant(tenant).filter(message_id__in=ids).delete()
    terms = Message.objects.for_tenant(tenant).filter(pk__in=ids).exclude(search_vector="").update(search_vector="")
    experiences = 0
    liked = ExperienceContribution.objects.for_tenant(tenant).filter(source_message_id__in=ids)
    for message in Message.objects.for_tenant(tenant).filter(pk__in=liked.values("source_message_id")):
        experiences += experience_forget_for_message(tenant=tenant, message=message)
    return {"messages": len(ids), "vectors": vectors, "terms": terms, "experiences": experiences}


def earlier_versions_cleanup(*, tenant: Tenant, batch: int = CLEANUP_BATCH) -> dict:
    """message_versions_retire for every earlier version of the tenant that still has vectors, keyword terms or an
    experience confirmation (versions replaced before retiring existed), `batch` messages per transaction."""
    vectors = MessageVector.objects.for_tenant(tenant).filter(message_id=OuterRef("pk"))
    liked = ExperienceContribution.objects.for_tenant(tenant).filter(source_message_id=OuterRef("pk"))
    left = _replaced(tenant).filter(Exists(vectors) | ~Q(search_vector="") | Exists(liked))
    totals = {"messages": 0, "vectors": 0, "terms": 0, "experiences": 0}
    while ids := list(left.order_by("pk").values_list("pk", flat=True)[:batch]):
        done = message_versions_retire(tenant=tenant, message_ids=ids)
        for key, count in done.items():
            totals[key] += count
    return totals
