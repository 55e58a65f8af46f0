"""`python manage.py retire_earlier_versions [--tenant SLUG]`: take earlier versions of messages (edited and resent,
or regenerated, before this release retired them as they were replaced) out of recall and experience memory: their
message vectors and keyword terms are deleted, their experience confirmations withdrawn
(assistants.services.earlier_versions). The messages stay for the person to read. Safe to run again."""

from django.core.management.base import BaseCommand, CommandError

from tenancy.models import Tenant


class Command(BaseCommand):
    help = "Remove the vectors, keyword terms and experience confirmations of messages replaced by a newer version."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", help="Only this tenant (its slug); default: every tenant.")

    def handle(self, *args, **options):
        from assistants.services.earlier_versions import earlier_versions_cleanup

        tenants = Tenant.objects.order_by("pk")
        if options["tenant"]:
            tenants = tenants.filter(slug=options["tenant"])
            if not tenants.exists():
                raise CommandError(f"No tenant has the slug {options['tenant']!r}.")
        for tenant in tenants:
            done = earlier_versions_cleanup(tenant=tenant)
            if done["messages"]:
                self.stdout.write(
                    f"{tenant.slug}: {done['messages']} earlier version(s): {done['vectors']} vector(s) and the "
                    f"keyword terms of {done['terms']} removed, {done['experiences']} experience(s) withdrawn."
                )
        self.stdout.write("Earlier versions of messages are out of recall and experience memory.")
