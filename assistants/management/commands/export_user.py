import json

from django.core.management.base import BaseCommand, CommandError

from assistants.services.privacy import user_export, user_export_write
from tenancy.models import EndUser, Tenant


class Command(BaseCommand):
    help = "Print everything held about one end user as one JSON document (a data access request)."

    def add_arguments(self, parser):
        parser.add_argument("tenant", help="The tenant's slug.")
        parser.add_argument("external_id", help="The integrator's id of the end user.")
        parser.add_argument("--output", "-o", default="", help="Write to this file instead of standard output.")

    def handle(self, *args, tenant, external_id, output, **options):
        tenant_obj = Tenant.objects.filter(slug=tenant).first()
        if tenant_obj is None:
            raise CommandError(f"There is no tenant '{tenant}'.")
        end_user = EndUser.objects.for_tenant(tenant_obj).filter(external_id=external_id).first()
        if end_user is None:
            raise CommandError(f"Tenant '{tenant}' has no user '{external_id}'.")
        if output:  # written piece by piece: any size of user fits
            with open(output, "w", encoding="utf-8") as fh:
                user_export_write(tenant=tenant_obj, end_user=end_user, write=fh.write)
                fh.write("\n")
            self.stdout.write(f"Wrote the export of '{external_id}' to {output}.")
        else:
            self.stdout.write(
                json.dumps(user_export(tenant=tenant_obj, end_user=end_user), ensure_ascii=False, indent=2)
            )
