import json

from django.core.management.base import BaseCommand

from assistants.management.arguments import command_end_user, command_tenant
from assistants.services.privacy import user_export, user_export_write


class Command(BaseCommand):
    help = "Print everything held about one end user as one JSON document (a data access request)."

    def add_arguments(self, parser):
        parser.add_argument("tenant", help="The tenant's slug.")
        parser.add_argument("external_id", help="The integrator's id of the end user.")
        parser.add_argument("--output", "-o", default="", help="Write to this file instead of standard output.")

    def handle(self, *args, tenant, external_id, output, **options):
        tenant_obj = command_tenant(tenant)
        end_user = command_end_user(tenant_obj, external_id)
        if output:  # written piece by piece: any size of user fits
            with open(output, "w", encoding="utf-8") as fh:
                user_export_write(tenant=tenant_obj, end_user=end_user, write=fh.write)
                fh.write("\n")
            self.stdout.write(f"Wrote the export of '{external_id}' to {output}.")
        else:
            self.stdout.write(
                json.dumps(user_export(tenant=tenant_obj, end_user=end_user), ensure_ascii=False, indent=2)
            )
