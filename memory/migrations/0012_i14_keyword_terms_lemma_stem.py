"""Issue 14: English keyword terms are now the Snowball stem of the word's dictionary form ("won" -> "win",
"commuting" -> "commut"; memory.services.vectors.embeddings._stem). A query's terms are computed with the new rule, so the
stored terms of notes (search_text) and of past messages (search_vector; both feed GENERATED tsvector columns) are
recomputed here with the same functions, in batches by id (a forgotten note or message, whose terms were
cleared, stays without). Chinese terms (CJK bigrams) come out unchanged.

It reads every note and every indexed message once: about 1 s per 10,000 rows on 2 cores. Reversing leaves the new
terms in place (they are derived data; the old rule is gone from the code)."""

from django.db import migrations

BATCH = 2000


def _recompute(cursor, *, select: str, update: str, terms_of) -> None:
    last = 0
    while True:
        cursor.execute(select, [last, BATCH])
        rows = cursor.fetchall()
        if not rows:
            return
        cursor.executemany(update, [(terms_of(row), row[0], row[1]) for row in rows])
        last = rows[-1][0]


def recompute_terms(apps, schema_editor):
    from memory.services.vectors.embeddings import search_terms
    from memory.services.writing.extraction import message_search_text
    from memory.services.notes.notes import note_index_text

    with schema_editor.connection.cursor() as cursor:
        _recompute(
            cursor,
            # a forgotten note's terms were cleared with its content: it stays unsearchable
            select=(
                "SELECT id, tenant_id, content, kind, key FROM memory_memorynote WHERE id > %s AND search_text <> '' "
                "ORDER BY id LIMIT %s"
            ),
            update="UPDATE memory_memorynote SET search_text = %s WHERE id = %s AND tenant_id = %s",
            terms_of=lambda row: " ".join(search_terms(note_index_text(content=row[2], kind=row[3], key=row[4]))),
        )
        _recompute(
            cursor,
            select=(
                "SELECT id, tenant_id, content FROM assistants_message WHERE id > %s AND search_vector <> '' "
                "ORDER BY id LIMIT %s"
            ),
            update="UPDATE assistants_message SET search_vector = %s WHERE id = %s AND tenant_id = %s",
            terms_of=lambda row: message_search_text(row[2]),
        )


class Migration(migrations.Migration):
    dependencies = [
        ("assistants", "0011_erasurereceipt_job_in_core"),
        ("memory", "0011_i22_note_source_message_tenant"),
    ]

    operations = [migrations.RunPython(recompute_terms, migrations.RunPython.noop, elidable=True)]
