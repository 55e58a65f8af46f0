from django.core.management.base import BaseCommand, CommandError

from assistants.services.tenants import api_key_create
from tenancy.models import Tenant


class Command(BaseCommand):
    help = "Create another API key for a tenant. The key is printed alone on the last line."

    def add_arguments(self, parser):
        parser.add_argument("tenant", help="The tenant's slug.")
        parser.add_argument("--name", default="key")

    def handle(self, *args, tenant, name, **options):
        found = Tenant.objects.filter(slug=tenant).first()
        if found is None:
            raise CommandError(f"There is no tenant with the slug '{tenant}'.")
        key, raw = api_key_create(tenant=found, name=name)
        self.stdout.write(f"Created API key '{key.name}' ({key.prefix}…) for '{found.slug}', shown only once:")
        self.stdout.write(raw)
