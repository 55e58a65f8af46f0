"""The admin as a support agent and a privacy officer read it (issue 42): the platform's own title, plurals
that are words, receipts titled by their hashed id and date with one requester label, and the review inbox
showing the note a candidate would replace beside it, to that tenant's staff only."""

import json
import re

import pytest
from django.urls import reverse

from memory.models import MemoryNote
from tests.factories import MemoryNoteFactory

pytestmark = pytest.mark.django_db


def test_the_index_speaks_the_platforms_words_with_real_plurals(admin_client_root, world):
    page = admin_client_root.get(reverse("admin:index")).content.decode()
    assert "Django administration" not in page and "Memory platform" in page
    assert "Webhook deliveries" in page and "Session scratch entries" in page
    assert not re.search(r"deliverys|scratchs|\b1 notes\b", page, re.I)
    for words in ("Reply ratings", "API keys", "Background jobs", "Blocked personal identifiers", "Audit log entries"):
        assert words in page, words
    assert not re.search(r"Feedbacks|Pii rejections|Api keys|Job records|Audit logs", page)


def test_every_admin_model_is_named_in_words_with_a_real_plural():
    """Every list the admin offers: no code word ("pii", "api"), no doubled plural ("feedbacks"), no plural
    that is the singular plus "s" where English says otherwise. Third-party models (celery beat's "clocked")
    keep their packages' names."""
    from django.contrib import admin

    own = [m for m in admin.site._registry if m._meta.app_label not in {"auth", "django_celery_beat", "axes"}]
    for model in own:
        singular, plural = str(model._meta.verbose_name), str(model._meta.verbose_name_plural)
        assert not re.search(r"\b(?:pii|api|feedbacks|entrys|deliverys|scratchs|logs)\b", f"{singular} {plural}"), (
            model,
            singular,
            plural,
        )
        if not singular.startswith(("tenant usage", "note awaiting")):
            assert plural != singular, model


def test_a_receipt_is_titled_by_its_hash_and_date_with_one_requester_label(admin_client_root, world):
    receipt = world["acme"]["receipt"]
    listing = admin_client_root.get(reverse("admin:tenancy_erasurereceipt_changelist")).content.decode()
    page = admin_client_root.get(reverse("admin:tenancy_erasurereceipt_change", args=[receipt.pk])).content.decode()
    assert "ErasureReceipt object" not in listing + page
    assert f"Erasure of {'0' * 12}… on {receipt.created_at:%Y-%m-%d}" in page
    assert "staff: x" in listing and "staff: x" in page
    assert "admin:x" not in listing and "admin:x" not in page


def test_the_review_inbox_shows_the_note_a_candidate_would_replace(admin_client_root, client, world):
    acme = world["acme"]
    current = next(n for n in acme["person"]["notes"] if n.status == "active" and n.key == "budget")
    candidate = MemoryNoteFactory(
        tenant=acme["tenant"],
        end_user=current.end_user,
        kind=current.kind,
        key="budget",
        content="面馆预算 55 万",
        quote="预算提到 55 万吧",
        supersedes=current,
        status=MemoryNote.Status.PENDING_REVIEW,
        review_reason="conflict",
    )
    inbox = admin_client_root.get(reverse("admin:memory_reviewinboxnote_changelist")).content.decode()
    row = inbox[inbox.index(f'value="{candidate.pk}"') :]
    row = row[: row.index("</tr>")]
    assert current.content in row
    assert f"would supersede note {current.pk}" not in inbox
    page = admin_client_root.get(reverse("admin:memory_reviewinboxnote_change", args=[candidate.pk])).content.decode()
    table = page[page.index('class="side-by-side"') :]
    table = table[: table.index("</table>")]
    assert "Remembered now" in table and current.content in table and "面馆预算 55 万" in table
    assert table.index(current.content) < table.index("面馆预算 55 万")  # now on the left, the candidate right

    client.force_login(world["globex"]["staff"])  # another tenant's staff: not their inbox, not their note
    other = client.get(reverse("admin:memory_reviewinboxnote_changelist")).content.decode()
    assert "面馆预算 55 万" not in other and current.content not in other
    assert client.get(reverse("admin:memory_reviewinboxnote_change", args=[candidate.pk])).status_code in (302, 404)


def test_an_end_users_page_links_to_their_notes_conversations_export_and_erasure(staff_client_a, world):
    person = world["acme"]["person"]["user"]
    page = staff_client_a.get(reverse("admin:tenancy_enduser_change", args=[person.pk])).content.decode()
    links = dict((text, href) for href, text in re.findall(r'<a href="([^"]+)">([^<]+)</a>', page))
    notes_link = next(href for text, href in links.items() if re.fullmatch(r"\d+ notes?", text))
    sessions_link = next(href for text, href in links.items() if re.fullmatch(r"\d+ conversations?", text))
    notes = staff_client_a.get(notes_link.replace("&amp;", "&"))
    assert {n.end_user_id for n in notes.context["cl"].result_list} == {person.pk}
    sessions = staff_client_a.get(sessions_link.replace("&amp;", "&"))
    assert [s.end_user_id for s in sessions.context["cl"].result_list] == [person.pk]

    export = staff_client_a.get(links["Export all their data (JSON)"])
    body = b"".join(export.streaming_content) if export.streaming else export.content
    assert export.status_code == 200 and person.external_id.encode() in body
    assert world["acme"]["bystander"]["user"].external_id.encode() not in body
    erase = staff_client_a.get(links["Erase all their data…"])
    assert erase.status_code == 200 and "Erase all data of these users?" in erase.content.decode()

    # another tenant's staff reach none of it
    other = world["globex"]["person"]["user"]
    for name in ("export", "erase"):
        assert staff_client_a.get(reverse(f"admin:tenancy_enduser_{name}", args=[other.pk])).status_code in (
            302,
            404,
        )


def test_the_memory_policy_is_a_form_in_plain_words_with_json_only_in_advanced(admin_client_root, world):
    from assistants.admin_policy import TTL_KINDS
    from tenancy.models import Tenant

    assert set(TTL_KINDS) == set(MemoryNote.Kind.values) | {"whim"}  # every kind has its field
    tenant = world["acme"]["tenant"]
    change = reverse("admin:tenancy_tenant_change", args=[tenant.pk])
    response = admin_client_root.get(change)
    page = response.content.decode()
    assert "seed 00" not in page and "LLM_CHAT_MODEL" not in page and "BULK_JOBS_PER_TENANT" not in page
    assert "Plans" in page and "days; blank: kept until changed or forgotten" in page
    assert "Send notes to review below this confidence" in page
    advanced = page[page.index("Advanced: note lifetimes as JSON") - 300 :]
    assert "collapse" in advanced[:400] and 'name="ttl_days_by_kind"' in advanced

    form = response.context["adminform"].form
    assert form.initial["ttl_plan"] == tenant.ttl_days_by_kind["plan"]
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update({"ttl_plan": "14", "staff-TOTAL_FORMS": "0", "staff-INITIAL_FORMS": "0"})
    data["ttl_days_by_kind"] = json.dumps(tenant.ttl_days_by_kind)  # as the page's text box holds it
    posted = admin_client_root.post(change, data)
    assert posted.status_code == 302, posted.context["adminform"].form.errors
    tenant = Tenant.objects.get(pk=tenant.pk)
    assert tenant.ttl_days_by_kind["plan"] == 14 and tenant.ttl_days_by_kind["profile"] == 365
    assert Tenant.objects.get(pk=world["globex"]["tenant"].pk).ttl_days_by_kind["plan"] == 30  # the other tenant


def test_the_end_user_filter_is_a_box_and_stays_within_the_tenant(admin_client_root, client, world):
    page = admin_client_root.get(reverse("admin:memory_memorynote_changelist")).content.decode()
    sidebar = page[page.index('id="changelist-filter"') :]
    assert 'name="end_user_is"' in sidebar and "Person u-1" not in sidebar  # no list of every user
    both = admin_client_root.get(reverse("admin:memory_memorynote_changelist"), {"end_user_is": "u-1", "kind": "plan"})
    assert {n.end_user.external_id for n in both.context["cl"].result_list} == {"u-1"}
    assert {n.tenant_id for n in both.context["cl"].result_list} == {
        world["acme"]["tenant"].pk,
        world["globex"]["tenant"].pk,
    }
    assert 'name="kind" value="plan"' in both.content.decode()  # the other filters are kept

    client.force_login(world["globex"]["staff"])  # the same id in another tenant: only their own person
    mine = client.get(reverse("admin:memory_reviewinboxnote_changelist"), {"end_user_is": "u-1"})
    assert {n.tenant_id for n in mine.context["cl"].result_list} == {world["globex"]["tenant"].pk}
