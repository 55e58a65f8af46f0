"""The memory policy in force for one assistant: the tenant's settings, overridden by the assistant's."""

from __future__ import annotations

from dataclasses import dataclass, fields

from django.conf import settings

from tenancy.models import Assistant, Tenant


@dataclass(frozen=True)
class MemoryPolicy:
    window_turns: int
    context_limit_tokens: int
    budget_pinned_tokens: int
    budget_memories_tokens: int
    budget_task_tokens: int
    budget_summary_tokens: int
    budget_window_tokens: int
    reply_reserve_tokens: int
    summary_trigger_messages: int
    ttl_days_by_kind: dict
    review_confidence_threshold: float
    inferred_policy: str
    pii_policy: str
    decay_rate_per_day: float
    decay_floor: float
    unrecalled_days_before_decay: int
    archive_importance_floor: float
    recall_all_below: int
    recall_top_k: int
    recall_min_relevance: float
    task_ttl_days: int
    experience_sharing: bool
    experience_min_users: int
    chat_model: str
    embedding_model: str
    usage_quotas: dict  # the tenant's limits (usage.quotas reads them); {} is no limit


def memory_policy_for(*, tenant: Tenant, assistant: Assistant | None = None) -> MemoryPolicy:
    values = {f.name: getattr(tenant, f.name) for f in fields(MemoryPolicy)}
    values["chat_model"] = values["chat_model"] or settings.LLM_CHAT_MODEL
    values["embedding_model"] = values["embedding_model"] or settings.LLM_EMBEDDING_MODEL
    if assistant is not None:
        if assistant.chat_model:
            values["chat_model"] = assistant.chat_model
        for name, value in (assistant.policy_overrides or {}).items():
            if name in values and value is not None:
                values[name] = value
    return MemoryPolicy(**values)
