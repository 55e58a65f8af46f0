"""Thumbs up/down on a reply. (Interface fixed; issue 5 turns positive feedback into experience memory.)"""
from __future__ import annotations

from django.db import transaction

from assistants.models import Feedback, Message
from core.exceptions import InvalidInput, NotFound


@transaction.atomic
def feedback_record(*, tenant, end_user, message_id: int, rating: str, comment: str = "") -> Feedback:
    if rating not in Feedback.Rating.values:
        raise InvalidInput("The rating must be 'up' or 'down'.")
    message = Message.objects.for_tenant(tenant).filter(pk=message_id, end_user=end_user,
                                                        role=Message.Role.ASSISTANT).first()
    if message is None:
        raise NotFound("That reply does not exist.")
    feedback, _ = Feedback.objects.for_tenant(tenant).update_or_create(
        tenant=tenant, message=message, end_user=end_user, defaults={"rating": rating, "comment": comment})
    return feedback
