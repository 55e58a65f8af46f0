"""Working memory (issue 5): the example task types for every existing assistant, and the periodic job that
expires task states and session scratch past their TTL (django-celery-beat, editable in the admin)."""
from django.db import migrations

EXPIRY_TASK_NAME = "tasks: expire task states and session scratch"


def install(apps, schema_editor):
    from tasks.examples import EXAMPLE_TASK_TYPES

    Assistant = apps.get_model("assistants", "Assistant")
    TaskType = apps.get_model("tasks", "TaskType")
    for assistant in Assistant._default_manager.all():
        for example in EXAMPLE_TASK_TYPES:
            TaskType._default_manager.get_or_create(
                assistant=assistant, name=example["name"],
                defaults={"tenant_id": assistant.tenant_id, "trigger_phrases": example["trigger_phrases"],
                          "required_fields": example["required_fields"],
                          "completion_prompt": example["completion_prompt"]})
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every, _ = IntervalSchedule.objects.get_or_create(every=15, period="minutes")
    PeriodicTask.objects.get_or_create(name=EXPIRY_TASK_NAME,
                                       defaults={"task": "tasks.jobs.task_states_expire", "interval": every})


def uninstall(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=EXPIRY_TASK_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tasks", "0001_initial"),
        ("assistants", "0003_enduser_erasure_requested_at"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(install, uninstall)]
