"""A tenant's memory policy as support staff read it in the admin: labelled fields with their units
and help in plain words, the time each kind of note is kept as one number per kind, and the raw JSON only in a
collapsed "Advanced" section. The stored fields are unchanged (tenancy.models.Tenant); only the form speaks
differently, so no migration and no change for the API or the policy code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a label translated when it is shown

# Kinds of note whose lifetime the policy sets: MemoryNote.Kind and "whim", a passing remark (every kind listed:
# tests/admin/test_admin_words.py).
TTL_KINDS = {
    "profile": _("About the person (profile)"),
    "preference": _("Preferences"),
    "business_status": _("Their business as it is now"),
    "constraint": _("Constraints (budget, allergies, limits)"),
    "plan": _("Plans"),
    "conclusion": _("Conclusions reached together"),
    "whim": _("Passing remarks"),
}

LABELS = {
    "window_turns": _("Recent turns kept word for word"),
    "context_limit_tokens": _("Chat model's context size (tokens)"),
    "budget_pinned_tokens": _("Room for pinned facts (tokens)"),
    "budget_memories_tokens": _("Room for recalled notes (tokens)"),
    "budget_task_tokens": _("Room for the task in progress (tokens)"),
    "budget_summary_tokens": _("Room for the conversation summary (tokens)"),
    "budget_window_tokens": _("Room for recent turns (tokens)"),
    "reply_reserve_tokens": _("Room kept for the reply (tokens)"),
    "summary_trigger_messages": _("Summarise after this many older messages"),
    "ttl_days_by_kind": _("Days each kind of note is kept (JSON)"),
    "review_confidence_threshold": _("Send notes to review below this confidence"),
    "inferred_policy": _("Facts the assistant only inferred"),
    "recall_all_below": _("Give every note when a person has at most"),
    "recall_top_k": _("Notes recalled per reply"),
    "recall_min_relevance": _("Least relevance for a recalled note"),
    "pii_policy": _("Personal identifiers in a fact"),
    "experience_sharing": _("Share what helped with other users"),
    "experience_min_users": _("Users who must confirm before sharing"),
    "decay_rate_per_day": _("Daily decay of an unused note's weight"),
    "decay_floor": _("Lowest weight decay can reach"),
    "unrecalled_days_before_decay": _("Days unused before a note starts to fade"),
    "archive_importance_floor": _("Archive notes whose importance falls below"),
    "task_ttl_days": _("Days an unfinished task is kept"),
    "chat_model": _("Chat model"),
    "embedding_model": _("Embedding model"),
    "temporary_chat_ttl_hours": _("Hours a temporary chat is kept"),
    "bulk_jobs_max": _("Big background jobs at once"),
}

HELP = {
    "window_turns": _("One turn is a message and its reply. Older turns are summarised."),
    "context_limit_tokens": _("A token is about ¾ of an English word or one Chinese character."),
    "summary_trigger_messages": _(
        "Messages that left the recent turns are merged into the summary in batches of this size."
    ),
    "ttl_days_by_kind": _(
        'The same lifetimes as the fields above, e.g. {"plan": 30}. Edit here only to set a kind '
        "the fields do not list."
    ),
    "review_confidence_threshold": _(
        "Between 0 and 1. Notes the assistant is less sure of wait in the review inbox "
        "and are not used until staff approve them."
    ),
    "recall_all_below": _("notes. Above that, only the most relevant notes are given."),
    "recall_min_relevance": _("Between 0 and 1. Lower gives the assistant more, less related notes."),
    "decay_rate_per_day": _("Between 0 and 1; 0.95 means an unused note counts 5% less each day."),
    "decay_floor": _("Between 0 and 1: an old note never counts less than this share."),
    "archive_importance_floor": _("Between 0 and 1. Archived notes are no longer used but can be restored."),
    "experience_sharing": _(
        "Procedures users liked, with nothing of the person in them. Off: they only help the people they came from."
    ),
    "experience_min_users": _("Staff approval in the admin also shares an experience."),
    "chat_model": _("Blank: the platform's default model."),
    "embedding_model": _("Blank: the platform's default. Changing it re-embeds every note of this tenant."),
    "bulk_jobs_max": _(
        "Imports, re-embedding and erasures of this tenant that may run together, so other tenants "
        "are not kept waiting. Blank: the platform's default (1)."
    ),
}


def ttl_field_name(kind: str) -> str:
    return f"ttl_{kind}"


def _days(label: StrOrPromise) -> forms.IntegerField:
    return forms.IntegerField(
        label=label, required=False, min_value=1, help_text=_("days; blank: kept until changed or forgotten")
    )


class TenantPolicyFormMixin(forms.ModelForm):
    """Adds one "kept for N days" field per kind of note; the JSON field stays as the advanced way to set it.
    The fields are declared here, as the admin checks its fieldsets against the form's declared fields."""

    ttl_profile = _days(TTL_KINDS["profile"])
    ttl_preference = _days(TTL_KINDS["preference"])
    ttl_business_status = _days(TTL_KINDS["business_status"])
    ttl_constraint = _days(TTL_KINDS["constraint"])
    ttl_plan = _days(TTL_KINDS["plan"])
    ttl_conclusion = _days(TTL_KINDS["conclusion"])
    ttl_whim = _days(TTL_KINDS["whim"])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        stored = (self.instance.ttl_days_by_kind if self.instance and self.instance.pk else None) or {}
        for kind in TTL_KINDS:
            self.initial.setdefault(ttl_field_name(kind), stored.get(kind))
        for name, label in LABELS.items():
            if name in self.fields:
                self.fields[name].label = label
        for name, text in HELP.items():
            if name in self.fields:
                self.fields[name].help_text = text

    def clean(self):
        data = super().clean() or self.cleaned_data
        if self.errors.get("ttl_days_by_kind"):
            return data
        stored = self.instance.ttl_days_by_kind if self.instance.pk else None
        if stored is not None and data.get("ttl_days_by_kind") != stored:
            return data  # set as JSON in the advanced section: that wins
        if any(ttl_field_name(kind) in self.changed_data for kind in TTL_KINDS):
            by_kind = {kind: data.get(ttl_field_name(kind)) for kind in TTL_KINDS}
            data["ttl_days_by_kind"] = {kind: days for kind, days in by_kind.items() if days}
        return data


TTL_FIELDS = tuple(ttl_field_name(kind) for kind in TTL_KINDS)
