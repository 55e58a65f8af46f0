"""POST /api/v1/chat/: one chat turn, as JSON or as server-sent events."""

from __future__ import annotations

import json
import logging

from django.conf import settings
from django.db import transaction
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer
from rest_framework.response import Response

from api.errors import error_body, error_for_status
from api.fields import MAX_ID, Bool, Id, StrictSerializer, Text
from api.idempotency import idempotency_abandon, idempotency_begin, idempotency_finish, request_fingerprint
from api.schema import api_doc
from api.views.base import TenantAPIView, UnicodeJSONRenderer
from api.views.chat_schema import CHAT_EXAMPLE, SSE_EXAMPLE, ChatResponse, SseEventSerializer
from assistants.services.chat import chat_session_start, chat_turn, chat_turn_stream, tool_choice_check
from assistants.services.reply import TurnResult
from assistants.services.sessions import session_title
from assistants.services.turn_session import turn_assistant_get, turn_session_check, turn_session_get
from assistants.services.turn_usage import turn_quota_check
from core.erasure import end_user_being_erased, end_user_erasure_refuse
from core.exceptions import ApplicationError
from core.policy import memory_policy_for
from core.sse import sse, sse_response
from tenancy.models import ChatSession

logger = logging.getLogger(__name__)


class ChatRequest(StrictSerializer):
    user = Text(max_length=200, help_text="Your id for the end user; created on first use.")
    message = Text(max_length=settings.MAX_MESSAGE_CHARS, help_text="What the user said.")
    session = Id(
        required=False,
        allow_null=True,
        help_text="Continue this session (it must belong to the user); omitted: a new session.",
    )
    assistant = Id(
        required=False,
        allow_null=True,
        help_text="For a new session: which assistant; omitted: the tenant's first assistant.",
    )
    stream = Bool(
        required=False,
        default=False,
        help_text="true: answer with server-sent events (also: 'Accept: text/event-stream').",
    )
    temporary = Bool(
        required=False,
        default=False,
        help_text="For a new session: a temporary chat. Nothing of it is written to long-term memory "
        "or experiences, nothing is recalled into it, and it is deleted after the tenant's "
        "temporary_chat_ttl_hours. With `session`: must match that session.",
    )

    tool_choice = Text(
        required=False,
        default="auto",
        max_length=64,
        help_text="'auto' (the model decides), 'none' (no tool), or the name of a tool it must call first.",
    )

    def validate_message(self, value):
        limit = settings.MAX_MESSAGE_CHARS
        if len(value) > limit:
            raise serializers.ValidationError(f"The message is {len(value)} characters; the limit is {limit}.")
        return value


class EventStreamRenderer(BaseRenderer):
    """Lets 'Accept: text/event-stream' through content negotiation; the stream itself is written by the view."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return json.dumps(data, ensure_ascii=False).encode()


def chat_body(result: TurnResult) -> dict:
    context = result.context.as_dict()
    memories = context.get("memories") or []
    return {
        "session": result.session.pk,
        "message_id": result.reply_message.pk if result.reply_message else None,
        "user_message_id": result.user_message.pk,
        "reply": result.reply,
        "error": result.error,
        "memories_used": [
            {
                "id": m["id"],
                "type": m.get("type", "note"),
                "kind": m.get("kind", ""),
                "content": m.get("content", ""),
                "score": m.get("score", 0.0),
            }
            for m in memories
        ],
        "context": context,
        "tool_calls": list(result.tool_calls),
        "temporary": result.session.temporary,
        "expires_at": result.session.expires_at.isoformat() if result.session.expires_at else None,
    }


class ChatView(TenantAPIView):
    renderer_classes = [UnicodeJSONRenderer, EventStreamRenderer]

    @api_doc(
        summary="Send a message and get the reply",
        description=(
            "One chat turn: the user's message is stored, the context is assembled from short-term, long-term and "
            "working memory, the model answers, and the reply is stored.\n\n"
            "`context` is what the reply was built from. When the model fails, the user's message is still "
            "stored, `reply` is empty and `error` says why (status 200).\n\n"
            '**Streaming**: `"stream": true` or `Accept: text/event-stream` answers with server-sent events: '
            '`context`, then `delta` events (`{"text": ...}`), then `done` with the same object as the JSON '
            "answer (or `error` with the error body), then `memory`: what the turn wrote, updated, superseded or "
            "forgot (as at GET /api/v1/messages/<id>/memory-events/; `status` pending if its job has not finished "
            "within MEMORY_EVENTS_WAIT_SECONDS).\n\n"
            "**Tools**: the model may call tools (built-in memory tools, the tenant's HTTP tools listed for the "
            "assistant, Python tools); `tool_calls` lists each call (name, arguments, status, duration_ms, a bounded "
            "result), and a stream sends `tool_call` and `tool_result` events as they happen. `tool_choice`: `auto`, "
            "`none`, or a tool's name. A failing tool is a call with its status, never a failed turn.\n\n"
            "**Idempotency**: with an `Idempotency-Key` header, a retry with the same key and body returns the "
            "first result (header `Idempotent-Replayed: true`) and no second turn; the same key with another body "
            "is a 409."
        ),
        body=True,
        errors=(409,),
        request=ChatRequest,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                required=False,
                description="Any unique string per logical request (e.g. a UUID).",
            )
        ],
        responses={
            (200, "application/json"): OpenApiResponse(
                ChatResponse, description="The reply and its context.", examples=[OpenApiExample("reply", CHAT_EXAMPLE)]
            ),
            (200, "text/event-stream"): OpenApiResponse(
                SseEventSerializer, description="Server-sent events.", examples=[OpenApiExample("stream", SSE_EXAMPLE)]
            ),
        },
        examples=[
            OpenApiExample("new session", {"user": "alice", "message": "我的预算大概 40 万"}, request_only=True),
            OpenApiExample(
                "continue", {"user": "alice", "message": "What was my budget?", "session": 12}, request_only=True
            ),
        ],
    )
    def post(self, request):
        """Everything that can refuse the request (body, Idempotency-Key, session, assistant, erasure) is checked
        before anything is written, so a 4xx leaves no user, session or message behind, and a replay writes
        nothing at all."""
        data = self.validated(ChatRequest)
        wants_stream = data["stream"] or "text/event-stream" in request.headers.get("Accept", "")
        record = None
        key = request.headers.get("Idempotency-Key")
        if key is not None:
            record, replay = idempotency_begin(
                tenant=self.tenant,
                api_key=self.api_key,
                key=key,
                fingerprint=request_fingerprint(path=request.path, data=request.data),
            )
            if replay:
                if wants_stream:
                    return self._stream(
                        request,
                        iter([sse("done", record.response_body), sse("memory", self._memory_of(record.response_body))]),
                        replayed=True,
                    )
                return Response(
                    record.response_body, status=record.response_status, headers={"Idempotent-Replayed": "true"}
                )
        try:
            session = self._session(
                data["user"],
                data.get("session"),
                data.get("assistant"),
                data["message"],
                temporary=data["temporary"],
                tool_choice=data["tool_choice"],
            )
            turn = {
                "tenant": self.tenant,
                "session": session,
                "text": data["message"],
                "tool_choice": data["tool_choice"],
            }
            if wants_stream:
                events = chat_turn_stream(**turn)
                first = next(events)  # the turn's checks run here, so their errors are ordinary JSON errors
                return self._stream(request, self._events(first, events, record))
            body = chat_body(chat_turn(**turn))
        except BaseException:
            if record is not None:
                idempotency_abandon(record=record)
            raise
        if record is not None:
            idempotency_finish(record=record, status=200, body=body, session_id=session.pk)
        return Response(body)

    def _memory_of(self, body: dict | None) -> dict:
        """The memory events of a replayed turn, as they stand now."""
        from memory.services.notes.events import memory_events_for_message

        body = body or {}  # a finished record always holds its body (idempotency_finish); the column is nullable
        try:
            return memory_events_for_message(tenant=self.tenant, message_id=body["user_message_id"])
        except (KeyError, ApplicationError):
            return {"message_id": body.get("user_message_id"), "status": "done", "events": []}

    def _session(
        self, external_id: str, session_id, assistant_id, message: str, *, temporary: bool, tool_choice: str
    ) -> ChatSession:
        """The session the turn goes to (assistants.services.turn_session decides). The user and a new session are
        created last, once nothing can refuse."""
        asked = {"assistant_id": assistant_id, "temporary": temporary}
        if session_id is not None:
            session = self._continued_session(external_id, session_id)
            if session is not None:
                return turn_session_check(session, **asked)
            # not found, or its user is being erased: the slower path below says which, as it always did
            end_user = self.end_user(
                external_id, create=False, missing=f"Session {session_id} does not exist for this user."
            )
            end_user_erasure_refuse(end_user)  # before the session: erasure deletes sessions as it goes
            return turn_session_get(tenant=self.tenant, end_user=end_user, session_id=session_id, **asked)
        assistant = turn_assistant_get(tenant=self.tenant, assistant_id=assistant_id)
        with transaction.atomic():
            end_user = self.end_user(external_id, create=True)
            session = chat_session_start(
                tenant=self.tenant,
                end_user=end_user,
                assistant=assistant,
                title=session_title(message, from_message=True),
                temporary=temporary,
            )
            # a usage limit refuses the turn: checked here too, so that the refusal takes the new session (and a
            # new user) back with it: a refused request leaves nothing behind
            turn_quota_check(
                tenant=self.tenant,
                session=session,
                policy=memory_policy_for(tenant=self.tenant, assistant=session.assistant),
                text=message,
            )
            # so does a tool_choice naming a tool this assistant does not have (the turn checks it again)
            tool_choice_check(tenant=self.tenant, session=session, tool_choice=tool_choice)
            return session

    def _continued_session(self, external_id, session_id) -> ChatSession | None:
        """The session with its user and assistant in one statement (the turn of every continuing conversation),
        or None when it is not there or its user is being erased (then _session answers as before)."""
        external_id = external_id.strip() if isinstance(external_id, str) else external_id
        if not isinstance(session_id, int) or not 0 < session_id <= MAX_ID or not isinstance(external_id, str):
            return None
        session = (
            ChatSession.objects.for_tenant(self.tenant)
            .filter(pk=session_id, end_user__tenant_id=self.tenant.pk, end_user__external_id=external_id)
            .select_related("end_user", "assistant")
            .first()
        )
        if session is None or end_user_being_erased(session.end_user):
            return None
        return session

    def _events(self, first, events, record):
        """The SSE body. Runs after the view returned: every failure becomes an `error` event."""
        session_id = None
        try:
            kind, payload = first
            if kind == "context":
                yield sse("context", payload.as_dict())
            for kind, payload in events:
                if kind == "delta":
                    yield sse("delta", {"text": payload})
                elif kind == "context":
                    yield sse("context", payload.as_dict())
                elif kind == "done":
                    body = chat_body(payload)
                    session_id = payload.session.pk
                    if record is not None:
                        idempotency_finish(record=record, status=200, body=body, session_id=session_id)
                        record = None
                    yield sse("done", body)
                elif kind in ("tool_call", "tool_result"):
                    yield sse(kind, payload)  # a tool the model called, then what it returned (bounded)
                elif kind == "memory":
                    yield sse("memory", payload)  # what the turn wrote or changed in memory
        except ApplicationError as exc:
            yield sse("error", error_body(exc.code, exc.message, exc.details))
        except Exception:  # the client gets an error event, the log gets the trace
            logger.exception("chat stream failed")
            yield sse("error", error_body(*error_for_status(500)))
        finally:
            if record is not None:
                idempotency_abandon(record=record)

    def _stream(self, request, chunks, replayed: bool = False) -> StreamingHttpResponse:
        response = sse_response(request, chunks)
        if replayed:
            response["Idempotent-Replayed"] = "true"
        return response
