"""What the web chat keeps that no other layer owns: the replies it streams, named by the browser."""

from __future__ import annotations

from django.db import models

from tenancy.models import ChatSession
from tenancy.scoping import TenantOwnedModel


class StreamedTurn(TenantOwnedModel):
    """A reply the web chat streams, named by a key the browser chose before it sent the message, so that Stop
    names the reply it stops even when it reaches the server before the message does: the key is
    unknown then, the Stop is kept here, and the turn that arrives later with that key stops at once. Earlier
    messages are never touched by it."""

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64, help_text="Chosen by the browser for one turn; unique in the session.")
    after_message_id = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="The turn's reply is the assistant message stored after this one; null until the turn has "
        "stored the user's message.",
    )
    stop_chars = models.PositiveIntegerField(
        null=True, blank=True, help_text="The person pressed Stop after seeing this many characters."
    )

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.UniqueConstraint(fields=["session", "key"], name="uniq_streamed_turn_key")]

    def __str__(self):
        return f"Turn {self.key} of session {self.session_id}"
