"""kombu's filesystem transport (the zero-setup broker of `make run`) with messages written atomically.

kombu 5 creates a message file and then writes it; a worker that lists the folder in between moves the empty file
away, fails to decode it and stops with "Unrecoverable error: JSONDecodeError" (seen with several workers on one
folder, which `make run` now starts: one per queue). Here a message is written under a name no worker looks for
and renamed into place (os.replace is atomic on one filesystem), so a worker sees a whole message or none.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    # kombu-stubs name the message `payload` in filesystem.Channel and `message` in the AbstractChannel it derives
    # from, so no override satisfies both (kombu passes it by position): a stubs inconsistency.
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f".{name}.part")  # listed, but matches no queue
        try:
            with open(partial, "wb") as f:
                f.write(dumps(payload).encode())
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
