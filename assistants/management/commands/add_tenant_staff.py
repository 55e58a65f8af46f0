from django.core.management.base import BaseCommand

from assistants.management.arguments import command_tenant
from assistants.services.staff import tenant_staff_add


class Command(BaseCommand):
    help = "Give a Django account (created if needed) admin access to one tenant's data only."

    def add_arguments(self, parser):
        parser.add_argument("tenant", help="The tenant's slug.")
        parser.add_argument("username")
        parser.add_argument("--password", default="", help="Set this password (otherwise keep or leave unusable).")

    def handle(self, *args, tenant, username, password, **options):
        tenant_obj = command_tenant(tenant)
        user = tenant_staff_add(tenant=tenant_obj, username=username, password=password or None)
        self.stdout.write(f"'{user.get_username()}' is now staff of tenant '{tenant_obj.slug}' in the admin.")
