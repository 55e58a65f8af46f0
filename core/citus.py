"""The path to a distributed PostgreSQL (Citus) with tenant_id as the distribution column (docs/scaling.md).

Which table goes where is derived from the models, so a model added later is planned too:
- distributed by tenant_id, all co-located with assistants_enduser: every table with a NOT NULL tenant_id, except
  REFERENCE_TENANT_TABLES;
- kept on the coordinator: COORDINATOR_TABLES;
- reference tables (a copy on every node): every other table (tenants, logins, Django's and Celery beat's own).

Citus (like declarative partitioning, core/partitioning.py) requires every primary key and unique constraint of a
distributed table to include tenant_id, and every foreign key between distributed tables to include it on both
sides; no foreign key may go from a reference or coordinator table to a distributed one, or from a distributed
table to a coordinator table. `problems()` lists what breaks those rules in the current database;
`prepare_statements()` is the DDL that fixes what can be fixed mechanically (tenant_id added to primary keys, to
unique constraints that already contain a key to a distributed table, and to foreign keys between distributed
tables; foreign keys Citus cannot keep are dropped: Django's on_delete still applies, in Python);
`distribute_statements()` is the Citus calls that follow. `manage.py citus_distribute` prints or runs them.
Not run against a real Citus cluster here (none can be installed on this machine): docs/scaling.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.apps import apps
from django.db.backends.utils import CursorWrapper

DISTRIBUTION_COLUMN = "tenant_id"
COLOCATE_WITH = "assistants_enduser"
# Tenant-owned tables read before the tenant is known, small: a copy on every node.
REFERENCE_TENANT_TABLES = {
    "assistants_apikey": "read by the key's hash to learn the tenant (authentication)",
    "assistants_tenantstaff": "read by the staff login to learn the tenant (admin)",
}
# Tables that stay on the coordinator (Citus: citus_add_local_table_to_metadata).
COORDINATOR_TABLES = {
    "tasks_jobrecord": "the job ledger holds jobs of no tenant too (tenant_id may be null) and is read alone",
}
# Rules the schema still breaks that the DDL cannot fix without changing what a constraint means: each needs a
# decision before distributing (docs/scaling.md, "Before distributing").
OPEN_ISSUES = {
    "assistants_enduser.assistants_enduser_user_id_key": "a web login belongs to one end user in the whole platform (UNIQUE user_id); Citus can only keep that per "
    "tenant (UNIQUE (tenant_id, user_id)), or the link must move to a reference table",
}


@dataclass
class Plan:
    distributed: list[str] = field(default_factory=list)
    reference: list[str] = field(default_factory=list)
    coordinator: list[str] = field(default_factory=list)
    # tables with no tenant_id that hold rows of a distributed table (a key to one): the rule they break
    tenantless_dependents: list[str] = field(default_factory=list)


def plan() -> Plan:
    """Where each model's table goes (see the module docstring)."""
    result = Plan()
    models = [m for m in apps.get_models(include_auto_created=True) if not m._meta.proxy and m._meta.managed]
    owned = {
        m._meta.db_table
        for m in models
        if any(f.column == DISTRIBUTION_COLUMN and not f.null for f in m._meta.concrete_fields)
    }
    distributed = owned - set(REFERENCE_TENANT_TABLES) - set(COORDINATOR_TABLES)
    for model in sorted(models, key=lambda m: m._meta.db_table):
        table = model._meta.db_table
        if table in distributed:
            result.distributed.append(table)
        elif table in COORDINATOR_TABLES:
            result.coordinator.append(table)
        else:
            result.reference.append(table)
            if any(
                f.is_relation and isinstance(f.related_model, type) and f.related_model._meta.db_table in distributed
                for f in model._meta.concrete_fields
            ):
                result.tenantless_dependents.append(table)
    return result


def _constraints(cur: CursorWrapper, tables: list[str]) -> list[tuple]:
    """(table, name, type, columns, referenced table, referenced columns, definition) of p/u/f constraints."""
    cur.execute(
        "SELECT c.conrelid::regclass::text, c.conname, c.contype, "
        "ARRAY(SELECT a.attname FROM unnest(c.conkey) k JOIN pg_attribute a ON a.attrelid = c.conrelid "
        "AND a.attnum = k), c.confrelid::regclass::text, "
        "ARRAY(SELECT a.attname FROM unnest(c.confkey) k JOIN pg_attribute a ON a.attrelid = c.confrelid "
        "AND a.attnum = k), pg_get_constraintdef(c.oid) "
        "FROM pg_constraint c WHERE c.contype IN ('p', 'u', 'f') AND c.conrelid = ANY(%s::regclass[]) "
        "AND c.conparentid = 0 ORDER BY 1, 2",
        [tables],
    )
    return cur.fetchall()


def _unique_indexes(cur: CursorWrapper, tables: list[str]) -> list[tuple[str, str, list[str]]]:
    """(table, index, columns) of unique indexes that back no constraint (a UniqueConstraint with a condition)."""
    cur.execute(
        "SELECT x.indrelid::regclass::text, i.relname, ARRAY(SELECT a.attname FROM unnest(x.indkey) k "
        "JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k) FROM pg_index x "
        "JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indisunique AND x.indrelid = ANY(%s::regclass[]) "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid) "
        "AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = x.indexrelid)",
        [tables],
    )
    return cur.fetchall()


def problems(cur: CursorWrapper, layout: Plan | None = None) -> list[str]:
    """Every way the current schema breaks Citus's rules for `layout` (default: plan()). Empty: ready."""
    layout = layout or plan()
    dist = set(layout.distributed)
    others = set(layout.reference) | set(layout.coordinator)
    found = [
        f"{t}: holds rows of a distributed table but has no {DISTRIBUTION_COLUMN}" for t in layout.tenantless_dependents
    ]
    cur.execute(
        "SELECT c.relname FROM pg_class c WHERE c.relname = ANY(%s) AND NOT EXISTS (SELECT 1 FROM "
        "pg_attribute a WHERE a.attrelid = c.oid AND a.attname = %s AND a.attnotnull)",
        [sorted(dist), DISTRIBUTION_COLUMN],
    )
    found += [f"{t}: no NOT NULL {DISTRIBUTION_COLUMN}" for (t,) in cur.fetchall()]
    for table, name, kind, cols, ref, ref_cols, _ in _constraints(cur, sorted(dist | others)):
        if table in dist and kind in "pu" and DISTRIBUTION_COLUMN not in cols:
            found.append(
                f"{table}.{name}: {'primary key' if kind == 'p' else 'unique'} {cols} lacks {DISTRIBUTION_COLUMN}"
            )
        elif (
            kind == "f"
            and table in dist
            and ref in dist
            and not (DISTRIBUTION_COLUMN in cols and DISTRIBUTION_COLUMN in ref_cols)
        ):
            found.append(f"{table}.{name}: foreign key {cols} -> {ref} {ref_cols} lacks {DISTRIBUTION_COLUMN}")
        elif kind == "f" and table in others and ref in dist:
            found.append(f"{table}.{name}: foreign key from a non-distributed table into distributed {ref}")
        elif kind == "f" and table in dist and ref in layout.coordinator:
            found.append(f"{table}.{name}: foreign key from a distributed table into coordinator table {ref}")
    found += [
        f"{t}.{i}: unique index {cols} lacks {DISTRIBUTION_COLUMN}"
        for t, i, cols in _unique_indexes(cur, sorted(dist))
        if DISTRIBUTION_COLUMN not in cols
    ]
    return found


def prepare_statements(cur: CursorWrapper, layout: Plan | None = None) -> list[str]:
    """The DDL that gives the current schema what Citus requires, where that can be done without changing what
    the constraints mean. A unique constraint it cannot widen (no key to a distributed table among its columns)
    stays, and problems() still reports it."""
    layout = layout or plan()
    dist = set(layout.distributed)
    others = set(layout.reference) | set(layout.coordinator)
    constraints = _constraints(cur, sorted(dist | others))
    drops, adds = [], []
    fk_cols = {(t, c[0]) for t, _, k, c, ref, _, _ in constraints if k == "f" and ref in dist and len(c) == 1}
    for table, name, kind, cols, ref, ref_cols, definition in constraints:
        if kind == "f" and ((table in others and ref in dist) or (table in dist and ref in layout.coordinator)):
            drops.append(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"')
        elif kind == "f" and table in dist and ref in dist and DISTRIBUTION_COLUMN not in cols:
            drops.append(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"')
            tail = definition.split(")", 2)[-1]  # ON DELETE ..., DEFERRABLE ...
            column_list = ", ".join([DISTRIBUTION_COLUMN] + cols)
            referenced = ", ".join([DISTRIBUTION_COLUMN] + ref_cols)
            adds.append(
                f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" FOREIGN KEY ({column_list}) '
                f'REFERENCES "{ref}" ({referenced}){tail}'
            )
        elif table in dist and kind == "p" and DISTRIBUTION_COLUMN not in cols:
            drops.append(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"')
            adds.insert(
                0,
                f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" PRIMARY KEY '
                f"({', '.join(cols + [DISTRIBUTION_COLUMN])})",
            )
        elif (
            table in dist
            and kind == "u"
            and DISTRIBUTION_COLUMN not in cols
            and any((table, c) in fk_cols for c in cols)
        ):
            drops.append(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"')
            adds.insert(
                0, f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" UNIQUE ({", ".join([DISTRIBUTION_COLUMN] + cols)})'
            )
    # foreign keys go first (they depend on the keys they reference), primary and unique keys come back first
    fk_drops = [d for d in drops if _is_fk_drop(d, constraints)]
    return fk_drops + [d for d in drops if d not in fk_drops] + adds


def _is_fk_drop(statement: str, constraints: list[tuple]) -> bool:
    return any(k == "f" and f'"{t}" DROP CONSTRAINT "{n}"' in statement for t, n, k, *_ in constraints)


def distribute_statements(layout: Plan | None = None) -> list[str]:
    """The Citus calls, in order, for a schema that problems() finds ready (run on the coordinator)."""
    layout = layout or plan()
    calls = [f"SELECT create_reference_table('{t}')" for t in layout.reference]
    calls += [f"SELECT citus_add_local_table_to_metadata('{t}')" for t in layout.coordinator]
    first, *rest = [COLOCATE_WITH] + [t for t in layout.distributed if t != COLOCATE_WITH]
    calls.append(f"SELECT create_distributed_table('{first}', '{DISTRIBUTION_COLUMN}')")
    calls += [
        f"SELECT create_distributed_table('{t}', '{DISTRIBUTION_COLUMN}', colocate_with => '{first}')" for t in rest
    ]
    return calls
