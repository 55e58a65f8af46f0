from django.core.management.base import BaseCommand, CommandError

from assistants.services.tenants import tenant_create
from core.exceptions import ApplicationError


class Command(BaseCommand):
    help = "Create a tenant with one assistant and an API key. The key is printed alone on the last line."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--name", default="")

    def handle(self, *args, slug, name, **options):
        try:
            tenant, raw_key = tenant_create(slug=slug, name=name)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"Created tenant '{tenant.slug}' (id {tenant.pk}). Its API key, shown only once:")
        self.stdout.write(raw_key)
