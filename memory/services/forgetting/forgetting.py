"""Passive forgetting and maintenance, run by Celery beat (schedules in the admin, django-celery-beat):
expire notes past `expires_at`; lower the importance of notes nobody recalled for `unrecalled_days_before_decay`
days (at most once a day) and archive them below `archive_importance_floor`; re-embed notes when a tenant
switches embedding models (vectors of two models are never compared, so until then those notes are found by
keywords only; the same job embeds past messages that have no vector yet)."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.dispatch import enqueue_on_commit
from core.policy import MemoryPolicy, memory_policy_for
from memory.models import MemoryNote
from memory.services.notes.notes import note_index_text
from memory.services.vectors.embeddings import embed_texts
from tenancy.models import Tenant

DECAY_FACTOR = 0.8  # importance multiplier per daily run once a note has gone unrecalled too long
LIVE = [MemoryNote.Status.ACTIVE, MemoryNote.Status.PENDING_REVIEW]


def policy_groups(
    *, tenant: Tenant, names: tuple[str, ...], path: str = "session__assistant_id"
) -> list[tuple[Q, MemoryPolicy]]:
    """(filter, policy) pairs that together cover every row of the tenant once: the rows of conversations with an
    assistant whose policy overrides one of `names` go by that assistant's policy, all the others by the tenant's.
    `path` leads from the row to its conversation's assistant (notes: session__assistant_id). Maintenance jobs
    run per tenant; this is how an assistant's override reaches them too."""
    from tenancy.models import Assistant

    base = memory_policy_for(tenant=tenant)
    groups: list[tuple[Q, MemoryPolicy]] = []
    overridden: list[int] = []
    for assistant in Assistant.objects.for_tenant(tenant).order_by("id"):
        policy = memory_policy_for(tenant=tenant, assistant=assistant)
        if any(getattr(policy, n) != getattr(base, n) for n in names):
            groups.append((Q(**{path: assistant.pk}), policy))
            overridden.append(assistant.pk)
    rest = ~Q(**{f"{path}__in": overridden}) | Q(**{f"{path}__isnull": True}) if overridden else Q()
    return [(rest, base), *groups]


def memory_expire_notes(*, tenant: Tenant, now=None) -> dict:
    """Active or pending notes past their expiry become `expired` (out of recall)."""
    now = now or timezone.now()
    count = (
        MemoryNote.objects.for_tenant(tenant)
        .filter(status__in=LIVE, expires_at__lte=now, pinned=False)
        .update(status=MemoryNote.Status.EXPIRED, updated_at=now)
    )
    return {"expired": count}


def memory_decay_notes(*, tenant: Tenant, now=None) -> dict:
    """Lower the importance of active notes not recalled for the policy's number of days; archive below the
    floor. Pinned notes never decay. Idempotent within a day (importance_decayed_at)."""
    now = now or timezone.now()
    decayed = archived = 0
    for where, policy in policy_groups(
        tenant=tenant, names=("unrecalled_days_before_decay", "archive_importance_floor")
    ):
        cutoff = now - timedelta(days=policy.unrecalled_days_before_decay)
        stale = (
            MemoryNote.objects.for_tenant(tenant)
            .filter(where, status=MemoryNote.Status.ACTIVE, pinned=False)
            .annotate(last_use=Coalesce("last_recalled_at", "created_at"))
            .filter(last_use__lte=cutoff)
            .filter(Q(importance_decayed_at__isnull=True) | Q(importance_decayed_at__lte=now - timedelta(hours=23)))
        )
        for note in stale:
            note.importance = round(note.importance * DECAY_FACTOR, 4)
            note.importance_decayed_at = now
            if note.importance < policy.archive_importance_floor:
                note.status = MemoryNote.Status.ARCHIVED
                archived += 1
            decayed += 1
            note.save(update_fields=["importance", "importance_decayed_at", "status", "updated_at"])
    return {"decayed": decayed, "archived": archived}


def memory_reembed_notes(*, tenant: Tenant, batch: int = 256, progress=None) -> dict:
    """Embed every live note of the tenant that was embedded with another model than the one its policy names
    now (the tenant's, or the assistant's of the note's conversation when that assistant overrides
    embedding_model: the model that assistant's recall searches with), then every past user message that has no
    vector of that model (episodic recall). `progress(dict)` is called after each batch (the job ledger's
    progress). Idempotent: a second run finds nothing left to do."""
    from memory.services.forgetting.forget_requests import is_memory_command
    from memory.services.recall.episodes import message_vectors_write

    work = _reembed_work(tenant)
    model = memory_policy_for(tenant=tenant).embedding_model
    total_notes = sum(notes.count() for _, notes, _ in work)
    total_messages = sum(unembedded.count() for _, _, unembedded in work)
    done = messages = 0
    report = (
        (
            lambda: progress(
                {
                    "stage": "notes" if done < total_notes else "messages",
                    "model": model,
                    "notes_done": done,
                    "notes_total": total_notes,
                    "messages_done": messages,
                    "messages_total": total_messages,
                }
            )
        )
        if progress
        else (lambda: None)
    )
    for group_model, stale, _ in work:
        while True:
            notes = list(stale.order_by("id")[:batch])
            if not notes:
                break
            used, vectors = embed_texts(
                texts=[note_index_text(content=n.content, kind=n.kind, key=n.key) for n in notes], model=group_model
            )
            for note, vector in zip(notes, vectors, strict=True):
                note.embedding, note.embedding_model = vector, used
            MemoryNote.objects.for_tenant(tenant).bulk_update(notes, ["embedding", "embedding_model"])
            done += len(notes)
            report()
    for group_model, _, unembedded in work:
        last_id = 0
        while True:
            rows = list(unembedded.filter(pk__gt=last_id).order_by("id")[:batch])
            if not rows:
                break
            last_id = rows[-1].pk
            message_vectors_write(
                tenant=tenant, model=group_model, messages=[m for m in rows if not is_memory_command(m.content)]
            )
            messages += len(rows)
            report()
    return {"reembedded": done, "messages_embedded": messages, "model": model}


def _reembed_work(tenant: Tenant) -> list[tuple[str, QuerySet, QuerySet]]:
    """(model, notes to embed with it, user messages without a vector of it), one per policy group."""
    from tenancy.models import Message

    work = []
    for where, policy in policy_groups(tenant=tenant, names=("embedding_model",)):
        model = policy.embedding_model
        notes = (
            MemoryNote.objects.for_tenant(tenant)
            .filter(where, status__in=LIVE)
            .exclude(embedding_model=model)
            .exclude(content="")
        )
        unembedded = (
            Message.objects.for_tenant(tenant)
            .filter(where, role=Message.Role.USER)
            .exclude(vectors__embedding_model=model)
        )
        work.append((model, notes, unembedded))
    return work


def memory_reembed_stale() -> list[int]:
    """Queue the re-embed job for every tenant with notes or past messages not embedded with the model their
    policy names (after an upgrade that changed the default model, or a model switch whose job was lost).
    Returns their ids."""
    queued = []
    for tenant in Tenant.objects.order_by("id"):
        if any(notes.exists() or unembedded.exists() for _, notes, unembedded in _reembed_work(tenant)):
            enqueue_on_commit("memory.jobs.memory_reembed", tenant.pk)
            queued.append(tenant.pk)
    return queued


def memory_embedding_model_set(*, tenant: Tenant, model: str, actor: str = "") -> Tenant:
    """Switch the tenant's embedding model and re-embed its notes in the background. Until the job is done, notes
    of the old model are left out of vector search (never compared across models) and found by keywords."""
    model = (model or "").strip()
    if tenant.embedding_model == model:
        return tenant
    tenant.embedding_model = model
    tenant.save(update_fields=["embedding_model", "updated_at"])
    enqueue_on_commit("memory.jobs.memory_reembed", tenant.pk)
    return tenant
