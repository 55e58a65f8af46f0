from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from api.views import chat, memories, memory_events, sessions, users

v1 = [
    path("chat/", chat.ChatView.as_view(), name="chat"),
    path("assistants/", users.AssistantsView.as_view(), name="assistants"),
    path("assistants/<int:pk>/experiences/", users.AssistantExperiencesView.as_view(), name="assistant-experiences"),
    path("users/<str:external_id>/", users.UserView.as_view(), name="user"),
    path("users/<str:external_id>/sessions/", sessions.UserSessionsView.as_view(), name="user-sessions"),
    path("users/<str:external_id>/memories/", memories.UserMemoriesView.as_view(), name="user-memories"),
    path("users/<str:external_id>/memories/forget/", memories.MemoryForgetView.as_view(), name="user-memories-forget"),
    path("users/<str:external_id>/recall/", users.RecallView.as_view(), name="user-recall"),
    path("users/<str:external_id>/tasks/", users.UserTasksView.as_view(), name="user-tasks"),
    path("users/<str:external_id>/export/", users.UserExportView.as_view(), name="user-export"),
    path("sessions/<int:pk>/", sessions.SessionDetailView.as_view(), name="session"),
    path("sessions/<int:pk>/messages/", sessions.SessionMessagesView.as_view(), name="session-messages"),
    path("memories/<int:pk>/", memories.MemoryDetailView.as_view(), name="memory"),
    path("memories/<int:pk>/history/", memories.MemoryHistoryView.as_view(), name="memory-history"),
    path("messages/<int:pk>/feedback/", users.FeedbackView.as_view(), name="message-feedback"),
    path("messages/<int:pk>/memory-events/", memory_events.MemoryEventsView.as_view(), name="message-memory-events"),
    path("messages/<int:pk>/memory-events/<int:note_id>/undo/", memory_events.MemoryEventUndoView.as_view(),
         name="message-memory-event-undo"),
    path("jobs/<int:pk>/", users.JobView.as_view(), name="job"),
]

app_name = "api"
urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    *[path("v1/" + str(p.pattern), p.callback, name=p.name) for p in v1],
]
