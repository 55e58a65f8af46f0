"""Django under ASGI with a request's sync work done in one trip to its thread, not twenty.

Django's own ASGIHandler runs the middleware in async mode. Each middleware built on MiddlewareMixin (all of
Django's, csp's, axes', permissions-policy's) then sends its process_request and its process_response through
sync_to_async, a sync-only one (whitenoise, ours) turns the stack below it back with async_to_sync, and the view,
the response's render and each process_view cross once more: about twenty crossings between the event loop and
the request's thread for one API request, each costing what Django's docs put at "around a millisecond"
(topics/async, "Performance"). Every view here is sync (DRF), so the async mode buys nothing.

`SyncStackASGIHandler` loads the same middleware in the same order in sync mode, as WSGI runs them, and calls
the whole stack with one thread-sensitive sync_to_async, as Django calls a sync view: the request's later sync
work (an SSE stream's next(), core/sse.py) still runs in that same thread, on the same database connection. What
stays async is what Django's handler does on the event loop: reading the body, the request_started and
request_finished signals, watching for a disconnect and sending the response, streamed ones included.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler


class SyncStackASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        """The sync middleware chain, whatever the caller asks for (ASGIHandler.__init__ asks for the async one)."""
        super().load_middleware(is_async=False)

    async def get_response_async(self, request):
        """The response from the sync stack, run in the request's thread (its ThreadSensitiveContext)."""
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)
