"""Declarative partitioning of the largest tenant-owned tables by HASH(tenant_id), done by migrations, so that
a statement that names the tenant reads one partition.

Django has no notion of a partitioned table, so a migration rebuilds one in place, in its own transaction:
rename the table, create the partitioned table LIKE it (columns, defaults, generated columns, identity, checks),
create its partitions, copy every row, drop the old table, then recreate its indexes, its primary key and its
unique and foreign-key constraints under their old names, read from the catalog before the swap (so later
Django migrations that look indexes up by name still find them).

PostgreSQL requires every primary key and unique constraint of a partitioned table to include the partition key:
the primary key becomes (id, tenant_id), while Django keeps `id` as the model's pk (ids stay unique: one identity
sequence serves every partition). A foreign key INTO a partitioned table would need a unique constraint on the
referenced columns alone, which cannot exist, so every such key is declared with `db_constraint=False` first
(Django's deletion collector still cascades and sets null: `on_delete` is applied in Python, never by the
database). `partition_by_tenant` refuses to run while one remains, rather than drop it silently.

The same layout is what a distributed PostgreSQL (Citus) needs with `tenant_id` as the distribution column:
docs/scaling.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db.backends.utils import CursorWrapper

PARTITION_KEY = "tenant_id"


@dataclass
class _Saved:
    """What the swap must recreate on the new table, captured from the catalog before the old one is dropped."""

    indexes: list[tuple[str, str]]  # (name, CREATE INDEX statement) of indexes that back no constraint
    primary_key: str  # constraint name
    uniques: list[tuple[str, str]]  # (name, definition) of unique constraints
    foreign_keys: list[tuple[str, str]]  # (name, definition) of foreign keys from this table
    columns: list[str]  # stored, non-generated columns, in order
    identity_always: bool


def partition_names(table: str, partitions: int) -> list[str]:
    """The partitions' table names, by remainder."""
    return [f"{table}_p{i}" for i in range(partitions)]


def _save(cur: CursorWrapper, table: str) -> _Saved:
    cur.execute(
        "SELECT conrelid::regclass::text, conname FROM pg_constraint WHERE contype = 'f' AND confrelid = %s::regclass",
        [table],
    )
    incoming = cur.fetchall()
    if incoming:
        raise RuntimeError(
            f"{table} cannot be rebuilt while foreign keys point at it: {incoming}. Declare them "
            "with db_constraint=False in an earlier migration (core/partitioning.py)."
        )
    cur.execute(
        "SELECT i.relname, pg_get_indexdef(x.indexrelid) FROM pg_index x JOIN pg_class i ON "
        "i.oid = x.indexrelid WHERE x.indrelid = %s::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint "
        "c WHERE c.conindid = x.indexrelid AND c.conrelid = x.indrelid) ORDER BY i.relname",
        [table],
    )
    indexes = cur.fetchall()
    cur.execute(
        "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = "
        "%s::regclass AND contype IN ('p', 'u', 'f') ORDER BY conname",
        [table],
    )
    constraints = cur.fetchall()
    cur.execute(
        "SELECT attname, attidentity FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
        "AND NOT attisdropped AND attgenerated = '' ORDER BY attnum",
        [table],
    )
    columns = cur.fetchall()
    primary = [name for name, kind, _ in constraints if kind == "p"]
    if len(primary) != 1:
        raise RuntimeError(f"{table} has no primary key to rebuild.")
    return _Saved(
        indexes=indexes,
        primary_key=primary[0],
        uniques=[(n, d) for n, k, d in constraints if k == "u"],
        foreign_keys=[(n, d) for n, k, d in constraints if k == "f"],
        columns=[name for name, _ in columns],
        identity_always=any(i == "a" for _, i in columns),
    )


def _rebuild(cur: CursorWrapper, table: str, partitions: int | None) -> None:
    """Rebuild `table` partitioned into `partitions` by HASH(tenant_id), or as a plain table when None."""
    saved = _save(cur, table)
    old = f"{table}_before_rebuild"
    # rows written earlier in this transaction have deferred foreign-key checks queued on the old table, which
    # PostgreSQL will not drop with them pending: run them now (Django's keys are all INITIALLY DEFERRED, restored
    # at the end)
    cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
    cur.execute(f'ALTER TABLE "{table}" RENAME TO "{old}"')
    layout = f" PARTITION BY HASH ({PARTITION_KEY})" if partitions else ""
    cur.execute(
        f'CREATE TABLE "{table}" (LIKE "{old}" INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING IDENTITY '
        f"INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION){layout}"
    )
    for remainder, name in enumerate(partition_names(table, partitions or 0)):
        cur.execute(
            f'CREATE TABLE "{name}" PARTITION OF "{table}" '
            f"FOR VALUES WITH (MODULUS {partitions}, REMAINDER {remainder})"
        )
    columns = ", ".join(f'"{c}"' for c in saved.columns)
    overriding = " OVERRIDING SYSTEM VALUE" if saved.identity_always else ""
    cur.execute(f'INSERT INTO "{table}" ({columns}){overriding} SELECT {columns} FROM "{old}"')
    cur.execute(f'DROP TABLE "{old}"')
    # the new identity sequence carries on from the copied ids, under the old sequence's name
    cur.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
    sequence = cur.fetchone()[0]
    cur.execute(f'ALTER SEQUENCE {sequence} RENAME TO "{table}_id_seq"')
    cur.execute(f'SELECT setval(%s, coalesce((SELECT max(id) FROM "{table}"), 0) + 1, false)', [f"{table}_id_seq"])
    key = f"id, {PARTITION_KEY}" if partitions else "id"
    cur.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{saved.primary_key}" PRIMARY KEY ({key})')
    for name, definition in saved.uniques + saved.foreign_keys:
        cur.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" {definition}')
    for _, statement in saved.indexes:
        cur.execute(statement)
    cur.execute(f'ANALYZE "{table}"')
    cur.execute("SET CONSTRAINTS ALL DEFERRED")


def partition_by_tenant(cur: CursorWrapper, table: str, partitions: int) -> None:
    """Turn `table` (with its rows) into a table partitioned by HASH(tenant_id) into `partitions` partitions.

    Run inside the migration's transaction: a failure leaves the table as it was. Every unique constraint must
    already include tenant_id (PostgreSQL's rule for partitioned tables): the model's Meta says so first."""
    if partitions < 1:
        raise ValueError("partitions must be at least 1")
    saved = _save(cur, table)
    for name, definition in saved.uniques:
        columns = re.search(r"\((.*?)\)", definition)
        if not columns or PARTITION_KEY not in [c.strip().strip('"') for c in columns.group(1).split(",")]:
            raise RuntimeError(f"{table}.{name} ({definition}) must include {PARTITION_KEY} to be partitioned.")
    _rebuild(cur, table, partitions)


def unpartition(cur: CursorWrapper, table: str) -> None:
    """The reverse of partition_by_tenant: one plain table with the same rows, primary key (id) again."""
    _rebuild(cur, table, None)


def partitions_of(cur: CursorWrapper, table: str) -> list[str]:
    """The partitions of `table` (empty when it is not partitioned)."""
    cur.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE i.inhparent = %s::regclass ORDER BY c.relname",
        [table],
    )
    return [row[0] for row in cur.fetchall()]
