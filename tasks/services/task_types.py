"""Task types: the kinds of task an assistant runs, defined as data (see tasks.examples)."""

from __future__ import annotations

from django.db import transaction

from tasks.examples import EXAMPLE_TASK_TYPES
from tasks.models import TaskType


@transaction.atomic
def task_types_install_examples(*, tenant, assistant) -> list[TaskType]:
    """Give `assistant` the example task types it does not have yet (idempotent; never overwrites an edit)."""
    if assistant.tenant_id != tenant.pk:
        raise ValueError("The assistant belongs to another tenant.")
    created = []
    for example in EXAMPLE_TASK_TYPES:
        task_type, was_created = TaskType.objects.for_tenant(tenant).get_or_create(
            tenant=tenant,
            assistant=assistant,
            name=example["name"],
            defaults={
                "trigger_phrases": example["trigger_phrases"],
                "required_fields": example["required_fields"],
                "completion_prompt": example["completion_prompt"],
            },
        )
        if was_created:
            created.append(task_type)
    return created
