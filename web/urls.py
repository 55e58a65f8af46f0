from django.urls import path

from web.views import account, chat, memory

app_name = "web"

urlpatterns = [
    path("", chat.chat_home, name="home"),
    path("chat/new/", chat.chat_new, name="chat_new"),
    path("chat/<int:session_id>/", chat.chat_page, name="chat"),
    path("chat/<int:session_id>/rename/", chat.chat_rename, name="chat_rename"),
    path("chat/<int:session_id>/delete/", chat.chat_delete, name="chat_delete"),
    path("chat/<int:session_id>/send/", chat.chat_send, name="chat_send"),
    path("chat/<int:session_id>/stream/", chat.chat_stream, name="chat_stream"),
    path("chat/<int:session_id>/stop/", chat.chat_stop, name="chat_stop"),
    path("chat/search/", chat.chat_search, name="chat_search"),
    path("messages/<int:message_id>/feedback/", chat.message_feedback, name="feedback"),
    path("messages/<int:message_id>/regenerate/", chat.message_regenerate, name="regenerate"),
    path("messages/<int:message_id>/edit/", chat.message_edit, name="edit"),
    path("messages/<int:message_id>/memory/<int:note_id>/undo/", chat.memory_undo, name="memory_undo"),
    path("memory/", memory.memory_page, name="memory"),
    path("memory/forget-all/", memory.memory_forget_all, name="memory_forget_all"),
    path("memory/switch/", memory.memory_switch, name="memory_switch"),
    path("memory/<int:note_id>/correct/", memory.memory_correct, name="memory_correct"),
    path("memory/<int:note_id>/forget/", memory.memory_forget, name="memory_forget"),
    path("account/export/", account.account_export, name="account_export"),
    path("account/delete/", account.account_delete, name="account_delete"),
]
