"""The cards of "What I remember about you": each note as it is now, who set it, the words it came from, and
its earlier versions in time order.

A note changes two ways, and a card has to tell the truth after both: extraction supersedes it with a new note
(the supersede chain, memory_note_history), and a person corrects it in place (its content changes; the audit
log keeps what it said before and who changed it). An Undo in the chat rejects the superseding note and makes
the old one active again: a rejected version is not history, it never happened.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import prefetch_related_objects
from django.utils.translation import gettext_lazy as _

from memory.models import AuditLog, MemoryNote
from memory.services.notes.note_versions import note_version
from memory.services.notes.notes import memory_note_history
from web.forms import NoteCorrectionForm
from web.memory_labels import SOURCE_LABELS, in_users_words, slot_label


def actor_label(actor: str, *, corrected: bool) -> str | None:
    """Who an audit actor is, as the note's owner reads it ("user:…", "admin:…", "api-key:…", "mcp…")."""
    if actor.startswith(("user:", "end_user:")):
        return str(_("You corrected it")) if corrected else str(_("You said it"))
    if actor.startswith("admin:"):
        return str(_("Corrected by staff")) if corrected else str(_("Added by staff"))
    if actor.startswith(("api-key:", "mcp")):
        return str(_("Corrected by an integration")) if corrected else str(_("Added by an integration"))
    return None


@dataclass
class Version:
    content: str
    since: datetime
    who: str
    quote: str = ""


def _versions_of(note: MemoryNote, audits: list[AuditLog]) -> list[Version]:
    """Every wording `note` has had, oldest first: as written, then each correction of its content."""
    created_by = next((a.actor for a in audits if a.action == "create"), "")
    first_who = (
        actor_label(created_by, corrected=False) if created_by.startswith(("admin:", "api-key:", "mcp")) else None
    )
    corrections = [
        a for a in audits if a.action == "update" and (a.before or {}).get("content") != (a.after or {}).get("content")
    ]
    if not corrections:
        who = first_who or str(SOURCE_LABELS.get(note.source, note.source))
        return [Version(note.content, note.observed_at or note.created_at, who, note.quote)]
    first = corrections[0]
    said = min(filter(None, [note.observed_at, note.created_at]))  # a restated note's observed_at moves on
    versions = [
        Version(
            (first.before or {}).get("content", ""),
            said,
            first_who or str(SOURCE_LABELS.get(note.source, note.source)),
            note.quote,
        )
    ]
    for audit in corrections:
        who = actor_label(audit.actor, corrected=True) or str(_("Corrected"))
        versions.append(Version((audit.after or {}).get("content", ""), audit.created_at, who))
    versions[-1].content = note.content  # the note itself is the truth for its current wording
    return versions


def _audits_by_note(*, tenant, notes: list[MemoryNote]) -> dict[int, list[AuditLog]]:
    ids = [str(n.pk) for n in notes]
    rows = (
        AuditLog.objects.for_tenant(tenant)
        .filter(object_type="memory_note", object_id__in=ids, action__in=["create", "update"])
        .order_by("created_at", "id")
    )
    found: dict[int, list[AuditLog]] = {}
    for row in rows:
        found.setdefault(int(row.object_id), []).append(row)
    return found


def note_cards(*, tenant, end_user, notes: list[MemoryNote]) -> list[dict]:
    """What each card shows: the note, its current version (who set it, since when, the quote), its earlier
    versions oldest first, the message it came from and the correction form. Only `end_user`'s notes."""
    prefetch_related_objects(notes, "source_messages")
    chains = {n.pk: memory_note_history(tenant=tenant, note=n) for n in notes}
    earlier_notes = {
        n.pk: [
            old
            for old in chains[n.pk][: [c.pk for c in chains[n.pk]].index(n.pk)]
            if old.end_user_id == end_user.pk and old.status == MemoryNote.Status.SUPERSEDED and old.content
        ]
        for n in notes
    }
    everything = list(notes) + [old for olds in earlier_notes.values() for old in olds]
    audits = _audits_by_note(tenant=tenant, notes=everything)
    cards = []
    for note in notes:
        versions = []
        for old in earlier_notes[note.pk]:
            versions += _versions_of(old, audits.get(old.pk, []))
        versions += _versions_of(note, audits.get(note.pk, []))
        for version in versions:  # amounts as the user wrote them: "400k", not "400,000"
            version.content = in_users_words(version.content, version.quote)
        sources = sorted(note.source_messages.all(), key=lambda m: m.pk)
        cards.append(
            {
                "note": note,
                "slot": slot_label(note.key) if note.key else "",
                "current": versions[-1],
                "history": versions[:-1],
                "source_message": sources[0] if sources else None,
                "form": NoteCorrectionForm(
                    initial={"content": note.content, "version": note_version(note)}, prefix=f"n{note.pk}"
                ),
            }
        )
    return cards
