"""Passive forgetting on a schedule (issue 4): django-celery-beat rows, editable in the admin."""
from django.db import migrations

SCHEDULES = [
    # (name, task, crontab minute, hour)
    ("memory: expire notes past expires_at", "memory.jobs.memory_expire", "15", "*"),
    ("memory: decay and archive unrecalled notes", "memory.jobs.memory_decay", "30", "3"),
]


def create(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, task, minute, hour in SCHEDULES:
        crontab, _ = CrontabSchedule.objects.get_or_create(minute=minute, hour=hour, day_of_week="*",
                                                           day_of_month="*", month_of_year="*", timezone="UTC")
        PeriodicTask.objects.get_or_create(name=name, defaults={"task": task, "crontab": crontab, "enabled": True})


def remove(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name__in=[s[0] for s in SCHEDULES]).delete()


class Migration(migrations.Migration):
    dependencies = [("memory", "0002_ltm_review_and_search"), ("django_celery_beat", "0019_alter_periodictasks_options")]

    operations = [migrations.RunPython(create, remove)]
