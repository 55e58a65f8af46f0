from urllib.parse import unquote

from django.core.exceptions import ImproperlyConfigured
from django.urls import URLPattern, path, register_converter
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from api.views import chat, memories, memory_events, sessions, tools, usage, users, webhooks


class ExternalIdConverter:
    """One path segment holding a user id, with its '%' and '/' percent-encoded (api.middleware.api_path_info
    keeps them so): every id the API accepts, whatever its characters, has an address (docs/api.md "User ids")."""

    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        return unquote(value)

    def to_url(self, value: str) -> str:
        return value.replace("%", "%25").replace("/", "%2F")


register_converter(ExternalIdConverter, "external_id")

v1 = [
    path("chat/", chat.ChatView.as_view(), name="chat"),
    path("assistants/", users.AssistantsView.as_view(), name="assistants"),
    path("assistants/<int:pk>/experiences/", users.AssistantExperiencesView.as_view(), name="assistant-experiences"),
    path("users/<external_id:external_id>/", users.UserView.as_view(), name="user"),
    path("users/<external_id:external_id>/sessions/", sessions.UserSessionsView.as_view(), name="user-sessions"),
    path("users/<external_id:external_id>/memories/", memories.UserMemoriesView.as_view(), name="user-memories"),
    path(
        "users/<external_id:external_id>/memories/forget/",
        memories.MemoryForgetView.as_view(),
        name="user-memories-forget",
    ),
    path("users/<external_id:external_id>/recall/", users.RecallView.as_view(), name="user-recall"),
    path("users/<external_id:external_id>/tasks/", users.UserTasksView.as_view(), name="user-tasks"),
    path("users/<external_id:external_id>/export/", users.UserExportView.as_view(), name="user-export"),
    path("sessions/<int:pk>/", sessions.SessionDetailView.as_view(), name="session"),
    path("sessions/<int:pk>/messages/", sessions.SessionMessagesView.as_view(), name="session-messages"),
    path("memories/<int:pk>/", memories.MemoryDetailView.as_view(), name="memory"),
    path("memories/<int:pk>/history/", memories.MemoryHistoryView.as_view(), name="memory-history"),
    path("messages/<int:pk>/feedback/", users.FeedbackView.as_view(), name="message-feedback"),
    path("messages/<int:pk>/memory-events/", memory_events.MemoryEventsView.as_view(), name="message-memory-events"),
    path(
        "messages/<int:pk>/memory-events/<int:note_id>/undo/",
        memory_events.MemoryEventUndoView.as_view(),
        name="message-memory-event-undo",
    ),
    path("jobs/<int:pk>/", users.JobView.as_view(), name="job"),
    path("usage/", usage.UsageView.as_view(), name="usage"),
    path("usage/quotas/", usage.UsageQuotasView.as_view(), name="usage-quotas"),
    path("webhooks/", webhooks.WebhooksView.as_view(), name="webhooks"),
    path("webhooks/<int:pk>/", webhooks.WebhookDetailView.as_view(), name="webhook"),
    path("webhooks/<int:pk>/deliveries/", webhooks.WebhookDeliveriesView.as_view(), name="webhook-deliveries"),
    path("tools/", tools.ToolsView.as_view(), name="tools"),
    path("tools/calls/", tools.ToolCallsView.as_view(), name="tool-calls"),
    path("tools/<int:pk>/", tools.ToolDetailView.as_view(), name="tool"),
]


def _under_v1(route: URLPattern) -> URLPattern:
    """`route` at "v1/<route>", under its own name (every v1 route is reversed by name: "api:<name>")."""
    if route.name is None:
        raise ImproperlyConfigured(f"The API route {route.pattern} has no name.")
    return path("v1/" + str(route.pattern), route.callback, name=route.name)


app_name = "api"
urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file: the page runs under the strict CSP.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),
    *[_under_v1(p) for p in v1],
]
