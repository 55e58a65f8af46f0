import json

from django.core.management.base import BaseCommand, CommandError

from assistants.management.arguments import command_end_user, command_tenant
from assistants.services.privacy import ERASE_JOB_KIND, user_erase, user_erase_request
from core.exceptions import ApplicationError
from core.ledger import job_run


class Command(BaseCommand):
    help = (
        "Erase everything about one end user and print the erasure receipt. Runs the erasure job here, under "
        "the job ledger (--queue hands it to the worker instead). Safe to run again after a crash."
    )

    def add_arguments(self, parser):
        parser.add_argument("tenant", help="The tenant's slug.")
        parser.add_argument("external_id", help="The integrator's id of the end user.")
        parser.add_argument("--requested-by", default="manage.py erase_user", help="Who asked (kept on the receipt).")
        parser.add_argument("--queue", action="store_true", help="Queue the job for the worker and return.")

    def handle(self, *args, tenant, external_id, requested_by, queue, **options):
        tenant_obj = command_tenant(tenant)
        end_user = command_end_user(tenant_obj, external_id, missing=" (already erased, or never existed)")
        try:
            job = user_erase_request(tenant=tenant_obj, end_user=end_user, requested_by=requested_by, enqueue=queue)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        if queue:
            self.stdout.write(f"Erasure queued as job {job.pk}; follow it in the admin's job ledger.")
            return
        counts = job_run(
            None,
            kind=ERASE_JOB_KIND,
            job_id=job.pk,
            body=lambda j: user_erase(
                tenant_id=tenant_obj.pk, end_user_id=end_user.pk, requested_by=requested_by, job_id=j.pk
            ),
        )
        self.stdout.write(f"Erased user '{external_id}' of tenant '{tenant}' (job {job.pk}). Deleted per table:")
        self.stdout.write(json.dumps(counts or {}, indent=2, sort_keys=True))
