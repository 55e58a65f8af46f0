"""A file download that streams under ASGI and WSGI without holding the whole file in memory.

Django serves a *sync* iterator under ASGI by reading it completely first (StreamingHttpResponse.__aiter__), and
FileResponse is such an iterator; so under ASGI the file is read through an async iterator instead, one block
per step. A file smaller than `whole_below` bytes is answered as a plain response.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse, StreamingHttpResponse

BLOCK = 256 * 1024


def _blocks(fileobj) -> Iterator[bytes]:
    try:
        while block := fileobj.read(BLOCK):
            yield block
    finally:
        fileobj.close()


async def _ablocks(fileobj) -> AsyncIterator[bytes]:
    read = sync_to_async(fileobj.read, thread_sensitive=False)
    try:
        while block := await read(BLOCK):
            yield block
    finally:
        fileobj.close()


def file_download(request, fileobj, *, content_type: str, filename: str | None = None, whole_below: int = 0):
    """Answer with the content of `fileobj` (binary; closed once sent), streamed unless it is smaller than
    `whole_below` bytes."""
    size = fileobj.seek(0, 2)
    fileobj.seek(0)
    response: HttpResponse | StreamingHttpResponse
    if size < whole_below:
        response = HttpResponse(fileobj.read(), content_type=content_type)
        fileobj.close()
    else:
        content = _ablocks(fileobj) if isinstance(request, ASGIRequest) else _blocks(fileobj)
        response = StreamingHttpResponse(content, content_type=content_type)
        response["Content-Length"] = str(size)
    if filename:
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
