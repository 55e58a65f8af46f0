"""Print, or run, the steps that distribute this schema on Citus by tenant_id (docs/scaling.md)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from core.citus import OPEN_ISSUES, distribute_statements, plan, prepare_statements, problems


class Command(BaseCommand):
    help = (
        "Print the DDL that makes the schema Citus-ready and the Citus calls that distribute it by tenant_id. "
        "--prepare runs the DDL; --distribute then runs the Citus calls (on a Citus coordinator only)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--prepare", action="store_true", help="Run the DDL, in one transaction.")
        parser.add_argument("--distribute", action="store_true", help="Then run the Citus calls (needs Citus).")

    def handle(self, *args: Any, **options: Any) -> None:
        layout = plan()
        with transaction.atomic(), connection.cursor() as cur:
            ddl = prepare_statements(cur, layout)
            for statement in ddl:
                self.stdout.write(statement + ";")
                if options["prepare"] or options["distribute"]:
                    cur.execute(statement)
            left = problems(cur, layout) if (options["prepare"] or options["distribute"]) else []
            for problem in left:
                if problem.startswith(tuple(OPEN_ISSUES)):
                    self.stderr.write(f"open: {problem}")
            if options["distribute"] and left or [p for p in left if not p.startswith(tuple(OPEN_ISSUES))]:
                raise CommandError("Not Citus-ready after the DDL (rolled back):\n" + "\n".join(left))
            calls = distribute_statements(layout)
            for call in calls:
                self.stdout.write(call + ";")
                if options["distribute"]:
                    cur.execute(call)
