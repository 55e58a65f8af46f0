"""The MCP server (official `mcp` SDK, `MCPServer`): seven tools over the platform's memory, chat and export.

`build_mcp_server(tenant_of=...)` makes the server; `tenant_of(ctx)` says whose tools run: the HTTP mount
(mcp_api.asgi) resolves the tenant from the request's API key, the stdio command (`manage.py mcp_server
--tenant <slug>`) fixes it. Every tool takes the end user's `external_id` as `user`; the work is done by
mcp_api.operations in a worker thread (Django's ORM is synchronous), inside `tenant_scope(tenant)`.
Descriptions are in English and Chinese, for agents working in either language.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

import anyio
from django.db import connections
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from core.exceptions import ApplicationError
from mcp_api import operations
from tenancy.scoping import tenant_scope
from usage.flusher import usage_flusher_start
from usage.services import usage_tool_call_record

SERVER_NAME = "memory-platform"
INSTRUCTIONS = (
    "Long-term memory, chat and working memory for the end users of one tenant. Every tool takes `user`: your "
    "id for the end user (their external_id). Facts go in with `remember`, come back with `recall`.\n"
    "一个租户的终端用户的长期记忆、对话与工作记忆。每个工具都需要 `user`：终端用户在你系统里的 id（external_id）。"
    "用 `remember` 记住事实，用 `recall` 取回。"
)

User = Annotated[
    str,
    Field(
        description="The end user's external_id (your id for them). 终端用户的 external_id。",
        min_length=1,
        max_length=200,
    ),
]
Kind = Literal["profile", "preference", "plan", "business_status", "constraint", "conclusion"]

TenantOf = Callable[[Context], tuple[Any, str]]  # ctx -> (tenant, actor name for the audit log)
# A tool that only reads: an agent may call it freely and again (MCP tool annotations).
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)


async def _run(ctx: Context, tenant_of: TenantOf, operation, **arguments) -> dict:
    tenant, actor = tenant_of(ctx)

    def call():
        try:
            with tenant_scope(tenant):
                return operation(tenant=tenant, actor=actor, **arguments)
        finally:
            connections.close_all()  # this worker thread's connections (back to the pool when there is one)
            usage_tool_call_record(tenant_id=tenant.pk, tool=getattr(operation, "__name__", "tool"))
            usage_flusher_start()  # written within USAGE_FLUSH_SECONDS (no request_finished follows an MCP call)

    try:
        return await anyio.to_thread.run_sync(call)
    except ApplicationError as exc:
        # The REST API's error body, as the tool's error result: agents and programs read the same fields.
        body = {"error": {"code": exc.code, "message": exc.message, "details": exc.details}}
        # FastMCP sends a CallToolResult as it is; the tools' declared `dict` is their output schema, kept as it is.
        return CallToolResult(  # type: ignore[return-value]
            content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False))],
            structured_content=body,
            is_error=True,
        )


def build_mcp_server(*, tenant_of: TenantOf) -> MCPServer:
    """The MCP server with its tools, each answering for the tenant `tenant_of` finds for the request. The tools
    are thin: each calls one function of mcp_api.operations through _run, the same services the REST API uses."""
    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, version="1")
    _register_memory_tools(server, tenant_of)
    _register_note_tools(server, tenant_of)
    _register_chat_tools(server, tenant_of)
    _register_user_data_tools(server, tenant_of)
    return server


def _register_memory_tools(server: MCPServer, tenant_of: TenantOf) -> None:
    """remember and recall: writing to the user's long-term memory and reading from it."""

    @server.tool(
        description=(
            "Remember a fact about the user (one sentence, in their language). It goes through the same write rules "
            "and personal-identifier guard as facts learnt from chat: a repeat refreshes the note, a change "
            "supersedes it, whims are not kept, phone/ID/card numbers are never stored.\n"
            "记住关于用户的一条事实（一句话，用用户的语言）。与从对话中学到的事实走同样的写入规则与个人信息保护："
            "重复的会刷新，变化的会替换旧的，一时兴起的不记，电话、证件、卡号绝不保存。"
        )
    )
    async def remember(
        user: User,
        fact: Annotated[
            str, Field(description="The fact, e.g. 'I am vegetarian' / '我对花生过敏'.", min_length=1, max_length=2000)
        ],
        ctx: Context,
        kind: Annotated[
            Kind | None, Field(description="Optional kind; found from the sentence when left out. 可选的类别。")
        ] = None,
        key: Annotated[
            str, Field(description="Optional slot within the kind, e.g. 'budget'. 可选的槽位。", max_length=100)
        ] = "",
    ) -> dict:
        return await _run(ctx, tenant_of, operations.mcp_remember, user=user, fact=fact, kind=kind, key=key)

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Recall what is known about the user that is relevant to a query: notes and past messages, best first, "
            "each with its score, its relevance (0..1) and provenance (session and message ids); "
            "`nothing_relevant` is true when nothing bears on the query.\n"
            "按查询取回与用户相关的记忆：笔记与过去的消息，按相关度排序，附分数、相关概率（0..1）与来源（会话与消息 id）；"
            "没有相关内容时 `nothing_relevant` 为 true。"
        ),
    )
    async def recall(
        user: User,
        query: Annotated[
            str, Field(description="What to recall for, e.g. 'budget' / '预算'.", min_length=1, max_length=2000)
        ],
        ctx: Context,
        k: Annotated[int, Field(description="How many results at most. 最多返回几条。", ge=1, le=100)] = 10,
    ) -> dict:
        return await _run(ctx, tenant_of, operations.mcp_recall, user=user, query=query, k=k)


def _register_note_tools(server: MCPServer, tenant_of: TenantOf) -> None:
    """list_memories and forget: the user's notes, page by page, and forgetting them."""

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "List the user's notes, newest first, one page at a time (pass `next_offset` back as `offset`).\n"
            "列出用户的笔记，最新的在前，分页返回（把 `next_offset` 作为 `offset` 传回取下一页）。"
        ),
    )
    async def list_memories(
        user: User,
        ctx: Context,
        kind: Annotated[Kind | None, Field(description="Only this kind. 只看此类别。")] = None,
        status: Annotated[
            Literal["active", "pending_review", "superseded", "forgotten", "expired", "all"],
            Field(description="Default active. 默认 active。"),
        ] = "active",
        limit: Annotated[int, Field(ge=1, le=100, description="Page size. 每页条数。")] = 50,
        offset: Annotated[int, Field(ge=0, description="Start here. 起始位置。")] = 0,
    ) -> dict:
        return await _run(
            ctx,
            tenant_of,
            operations.mcp_list_memories,
            user=user,
            kind=kind,
            status=status,
            limit=limit,
            offset=offset,
        )

    @server.tool(
        annotations=ToolAnnotations(destructive_hint=True, idempotent_hint=True),
        description=(
            "Forget a note by its id, or every active note that matches a query ('my budget' / '预算'). The content "
            "and its embedding are removed, not just hidden.\n"
            "按 id 忘记一条笔记，或忘记与查询匹配的所有有效笔记。内容与向量会被删除，而不只是隐藏。"
        ),
    )
    async def forget(
        user: User,
        ctx: Context,
        id: Annotated[int | None, Field(description="The note's id. 笔记 id。", ge=1)] = None,
        query: Annotated[str | None, Field(description="What to forget. 要忘记的内容。", max_length=2000)] = None,
    ) -> dict:
        return await _run(ctx, tenant_of, operations.mcp_forget, user=user, id=id, query=query)


def _register_chat_tools(server: MCPServer, tenant_of: TenantOf) -> None:
    """chat: one chat turn, the same turn as the REST API's."""

    @server.tool(
        description=(
            "One chat turn: the user's message is stored, context is built from short-term, long-term and working "
            "memory, the assistant replies. Pass `session` back to continue the conversation.\n"
            "一轮对话：保存用户消息，用短期、长期与工作记忆组装上下文，助手回复。传回 `session` 以继续同一会话。"
        )
    )
    async def chat(
        user: User,
        message: Annotated[str, Field(description="What the user said. 用户说的话。", min_length=1)],
        ctx: Context,
        session: Annotated[int | None, Field(description="Continue this session. 继续此会话。", ge=1)] = None,
        assistant: Annotated[
            int | None, Field(description="For a new session: which assistant. 新会话使用哪个助手。", ge=1)
        ] = None,
        tool_choice: Annotated[
            str,
            Field(
                description="auto, none, or a tool the model must call first; the answer lists `tool_calls`. "
                "auto、none，或模型须先调用的工具名；回答列出 `tool_calls`。",
                max_length=64,
            ),
        ] = "auto",
    ) -> dict:
        return await _run(
            ctx,
            tenant_of,
            operations.mcp_chat,
            user=user,
            message=message,
            session=session,
            assistant=assistant,
            tool_choice=tool_choice,
        )


def _register_user_data_tools(server: MCPServer, tenant_of: TenantOf) -> None:
    """get_task_state and export_user: the user's working memory and everything held about them."""

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "The user's task states (working memory): the task, its state, collected and pending fields, most "
            "recently updated first.\n"
            "用户的任务状态（工作记忆）：任务、状态、已收集与待收集的字段，最近更新的在前。"
        ),
    )
    async def get_task_state(
        user: User,
        ctx: Context,
        session: Annotated[int | None, Field(description="Only this session. 只看此会话。", ge=1)] = None,
        state: Annotated[
            Literal["collecting_info", "planning", "waiting_confirm", "completed", "paused", "cancelled", "expired"]
            | None,
            Field(description="Only this state. 只看此状态。"),
        ] = None,
    ) -> dict:
        return await _run(ctx, tenant_of, operations.mcp_get_task_state, user=user, session=session, state=state)

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Export everything held about the user (sessions, messages, notes, task states, feedback) as one JSON "
            "document, as the REST export does.\n"
            "导出关于该用户保存的全部数据（会话、消息、笔记、任务状态、反馈），为一个 JSON 文档。"
        ),
    )
    async def export_user(user: User, ctx: Context) -> dict:
        return await _run(ctx, tenant_of, operations.mcp_export_user, user=user)
