"""The OpenAPI schema at /api/schema/ and the Swagger UI at /api/docs/ (served with no CDN)."""

import re

import pytest
import yaml
from django.contrib.staticfiles import finders
from django.test import Client

pytestmark = pytest.mark.django_db

CONTRACT = {
    ("/api/v1/chat/", "post"),
    ("/api/v1/assistants/", "get"),
    ("/api/v1/assistants/{id}/experiences/", "get"),
    ("/api/v1/users/{external_id}/", "delete"),
    ("/api/v1/users/{external_id}/sessions/", "get"),
    ("/api/v1/users/{external_id}/sessions/", "post"),
    ("/api/v1/users/{external_id}/memories/", "get"),
    ("/api/v1/users/{external_id}/memories/", "post"),
    ("/api/v1/users/{external_id}/memories/forget/", "post"),
    ("/api/v1/users/{external_id}/recall/", "get"),
    ("/api/v1/users/{external_id}/tasks/", "get"),
    ("/api/v1/users/{external_id}/export/", "get"),
    ("/api/v1/sessions/{id}/", "get"),
    ("/api/v1/sessions/{id}/", "delete"),
    ("/api/v1/sessions/{id}/messages/", "get"),
    ("/api/v1/memories/{id}/", "get"),
    ("/api/v1/memories/{id}/", "patch"),
    ("/api/v1/memories/{id}/", "delete"),
    ("/api/v1/memories/{id}/history/", "get"),
    ("/api/v1/messages/{id}/feedback/", "post"),
    ("/api/v1/jobs/{id}/", "get"),
}


@pytest.fixture(scope="module")
def schema():
    response = Client().get("/api/schema/")
    assert response.status_code == 200
    return yaml.safe_load(response.content)


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in {"get", "post", "patch", "put", "delete"}:
                yield path, method, operation


def test_every_endpoint_of_the_contract_is_in_the_schema(schema):
    found = {(path, method) for path, method, _ in operations(schema)}
    assert CONTRACT <= found, CONTRACT - found


def test_every_operation_is_authenticated_summarised_and_documents_its_errors(schema):
    assert schema["components"]["securitySchemes"]["ApiKey"] == {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "mk_...",
        "description": "A tenant API key (create_tenant, create_api_key or the admin).",
    }
    error_ref = "#/components/schemas/Error"
    for path, method, operation in operations(schema):
        assert operation.get("summary"), (path, method)
        assert {"ApiKey": []} in operation["security"], (path, method)
        codes = set(operation["responses"])
        assert {"401", "404", "405", "429", "500"} <= codes, (path, method, codes)
        if "requestBody" in operation:
            assert {"400", "413", "415"} <= codes, (path, method, codes)
        for code, response in operation["responses"].items():
            if code.startswith(("4", "5")):
                content = response["content"]["application/json"]
                assert content["schema"]["$ref"] == error_ref
                assert content["examples"], (path, method, code)


def test_request_bodies_refuse_unknown_fields_and_have_examples(schema):
    for path, method, operation in operations(schema):
        if "requestBody" not in operation:
            continue
        content = operation["requestBody"]["content"]["application/json"]
        name = content["schema"]["$ref"].rsplit("/", 1)[1]
        assert schema["components"]["schemas"][name]["additionalProperties"] is False, name
        assert content.get("examples"), (path, method)


def test_chat_documents_json_and_event_stream_and_the_idempotency_key(schema):
    chat = schema["paths"]["/api/v1/chat/"]["post"]
    assert set(chat["responses"]["200"]["content"]) == {"application/json", "text/event-stream"}
    assert any(p["name"] == "Idempotency-Key" and p["in"] == "header" for p in chat["parameters"])
    reply = schema["components"]["schemas"]["ChatResponse"]
    assert {"session", "message_id", "reply", "memories_used", "context", "error"} <= set(reply["properties"])
    context = schema["components"]["schemas"]["TurnContext"]
    assert {"summary", "pinned_facts", "memories", "task"} <= set(context["properties"])


def test_docs_page_uses_only_files_served_by_us():
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    urls = re.findall(r'(?:src|href)="([^"]+)"', html) + re.findall(r'"(https?://[^"]+)"', html)
    assert urls, html[:500]
    assert not [u for u in urls if u.startswith(("http://", "https://", "//"))], urls
    assert "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert "cdn" not in html.lower()
