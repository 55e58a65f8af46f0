"""Which partitions of the tables partitioned by HASH(tenant_id) a statement reads: its EXPLAIN plan names them."""

from __future__ import annotations

import re

from django.db import connection

from core.partitioning import partitions_of

PARTITIONED = ("assistants_message", "memory_memorynote", "memory_messagevector")


def partitions_in_plan(sql: str) -> dict[str, set[str]]:
    """{partitioned table: the partitions its plan scans} for one statement, planned but not run (EXPLAIN)."""
    with connection.cursor() as cur:
        names = {table: set(partitions_of(cur, table)) for table in PARTITIONED}
        cur.execute("EXPLAIN " + sql)
        plan = "\n".join(row[0] for row in cur.fetchall())
    seen = set(re.findall(r"\b(\w+_p\d+)\b", plan))
    return {table: parts & seen for table, parts in names.items() if parts & seen}


def statements_touching_partitioned(captured: list[dict]) -> list[str]:
    """The captured SELECT/UPDATE/DELETE statements that name a partitioned table (an INSERT goes to the one
    partition its row's tenant hashes to, whatever it says)."""
    out = []
    for query in captured:
        sql = query["sql"]
        verb = sql.lstrip().split(" ", 1)[0].upper()
        if verb in ("SELECT", "UPDATE", "DELETE", "WITH") and any(re.search(rf'\b"?{t}"?\b', sql) for t in PARTITIONED):
            out.append(sql)
    return out


def unpruned(captured: list[dict]) -> list[tuple[str, dict[str, set[str]]]]:
    """Statements among `captured` whose plan reads more than one partition of a partitioned table."""
    bad = []
    for sql in statements_touching_partitioned(captured):
        scanned = partitions_in_plan(sql)
        if any(len(parts) > 1 for parts in scanned.values()):
            bad.append((sql, scanned))
    return bad
