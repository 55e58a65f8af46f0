"""Every assistant has the example task types: the ones that existed before (data migration) and new ones."""

import importlib

import pytest
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from assistants.services.tenants import tenant_create
from tasks.models import TaskType
from tests.factories import AssistantFactory

migration = importlib.import_module("tasks.migrations.0002_wm_example_task_types_and_expiry_schedule")


@pytest.mark.django_db
def test_a_new_tenants_assistant_gets_the_examples_in_both_languages():
    tenant, _ = tenant_create(slug="fresh")
    types = {t.name: t for t in TaskType.objects.for_tenant(tenant)}
    assert set(types) == {"项目计划", "Project plan"}
    assert [f["name"] for f in types["项目计划"].required_fields] == ["项目名称", "截止时间", "团队规模", "预算"]
    assert "budget" in types["项目计划"].required_fields[3]["aliases"]
    assert [f["name"] for f in types["Project plan"].required_fields] == [
        "project name",
        "deadline",
        "team size",
        "budget",
    ]


@pytest.mark.django_db
def test_the_data_migration_gives_existing_assistants_the_examples_once():
    existing = AssistantFactory()  # an assistant made before the migration, without task types
    edited = AssistantFactory()
    TaskType.objects.unscoped().create(
        tenant=edited.tenant, assistant=edited, name="项目计划", required_fields=[{"name": "预算"}]
    )
    # the models as that migration sees them (the assistants app's Assistant, before issue 40 moved it to tenancy)
    apps = MigrationLoader(connection).project_state(("tasks", "0002_wm_example_task_types_and_expiry_schedule")).apps
    migration.install(apps, None)
    migration.install(apps, None)  # idempotent
    assert TaskType.objects.for_tenant(existing.tenant).filter(assistant=existing).count() == 2
    # an admin's edit is never overwritten
    assert TaskType.objects.for_tenant(edited.tenant).get(assistant=edited, name="项目计划").required_fields == [
        {"name": "预算"}
    ]
