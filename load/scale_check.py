"""Extreme data for one user (docs/reliability.md, "Scale"): 10,000 sessions for one user and 100,000 notes for
another, in a fresh tenant of the `make run` database; then the latency of listing (API, web, admin), recall, a chat
turn, export, and the erasure of both users. Usage: .venv/bin/python load/scale_check.py [--sessions N] [--notes N]"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--tenant", default="", help="Measure (and then erase) the users of an earlier run's tenant.")
    args = parser.parse_args()
    import django

    django.setup()
    from django.conf import settings

    settings.DEBUG = False  # DEBUG keeps every query in memory, which would distort the export's memory figure
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    load_at_start = os.getloadavg()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from assistants.services.privacy import user_erase
    from assistants.services.tenants import tenant_create
    from load.scale_data import build, measure, timed
    from tenancy.models import Assistant, EndUser, Tenant

    report = {"load_average_at_start": load_at_start}
    if args.tenant:
        tenant = Tenant.objects.get(slug=args.tenant)
    else:
        tenant, _ = tenant_create(slug=f"scale-{int(time.time())}", name="Scale check")
        assistant = Assistant.objects.for_tenant(tenant).first()
        report.update(build(tenant=tenant, assistant=assistant, sessions=args.sessions, notes=args.notes))
    report.update(measure(tenant=tenant, sessions_user="many-sessions", notes_user="many-notes"))
    for name in ("many-notes", "many-sessions"):
        user = EndUser.objects.for_tenant(tenant).get(external_id=name)
        result, report[f"erase_{name}_ms"] = timed(
            lambda: user_erase(
                tenant_id=tenant.pk,
                end_user_id=user.pk,  # noqa: B023 - timed() calls it at once
                requested_by="scale-check",
            )
        )
        report[f"erased_{name}"] = result
    report["load_average_at_end"] = os.getloadavg()
    print(json.dumps(report, indent=2, ensure_ascii=False, default=str))
    out = ROOT / "load" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "scale.json").write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
