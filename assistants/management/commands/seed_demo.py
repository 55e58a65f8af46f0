from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from assistants.services.tenants import api_key_create, end_user_create_with_login, tenant_create
from tenancy.models import Tenant

DEMO_KEY_FILE = "demo-api-key"


class Command(BaseCommand):
    help = "Create (once) the demo tenant, a demo end user with a web login, a superuser and an API key."

    def handle(self, *args, **options):
        tenant = Tenant.objects.filter(slug="demo").first()
        key_file = settings.RUN_DIR / DEMO_KEY_FILE
        if tenant is None:
            tenant, raw_key = tenant_create(slug="demo", name="Demo Company", assistant_name="Demo assistant")
            key_file.parent.mkdir(parents=True, exist_ok=True)
            key_file.write_text(raw_key)
        elif not key_file.exists():
            _key, raw_key = api_key_create(tenant=tenant, name="demo")
            key_file.write_text(raw_key)
        end_user_create_with_login(
            tenant=tenant,
            external_id="demo-user",
            username="demo",
            password=settings.DEMO_PASSWORD,
            display_name="Demo user",
        )
        User = get_user_model()
        if not User.objects.filter(username="admin").exists():
            User.objects.create_superuser("admin", "admin@example.invalid", settings.DEMO_PASSWORD)
        self.stdout.write(f"demo tenant: {tenant.slug}")
        self.stdout.write(f"web chat login: demo / {settings.DEMO_PASSWORD}")
        self.stdout.write(f"admin login:    admin / {settings.DEMO_PASSWORD}")
        self.stdout.write(f"API key:        {key_file.read_text().strip()}")
