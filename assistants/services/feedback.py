"""Thumbs up/down on a reply. Positive feedback is what experience memory learns from."""
from __future__ import annotations

from django.db import transaction

from assistants.models import Feedback, Message
from core.exceptions import InvalidInput, NotFound


@transaction.atomic
def feedback_record(*, tenant, end_user, message_id: int, rating: str, comment: str = "") -> Feedback:
    """Record (or change) one user's rating of one reply. "up" schedules the experience-learning job after the
    transaction commits; "down" removes anything learned from that reply, so a retracted thumbs-up saves nothing."""
    if rating not in Feedback.Rating.values:
        raise InvalidInput("The rating must be 'up' or 'down'.")
    message = Message.objects.for_tenant(tenant).select_related("session", "end_user").filter(
        pk=message_id, end_user=end_user, role=Message.Role.ASSISTANT).first()
    if message is None:
        raise NotFound("That reply does not exist.")
    feedback, _ = Feedback.objects.for_tenant(tenant).update_or_create(
        tenant=tenant, message=message, end_user=end_user, defaults={"rating": rating, "comment": comment})
    from assistants.services.chat import turn_uses_long_term_memory

    if rating == Feedback.Rating.UP and turn_uses_long_term_memory(session=message.session,
                                                                   end_user=message.end_user):
        from core.dispatch import enqueue_on_commit
        from tasks.jobs import experience_learn

        tenant_id, key = tenant.pk, f"experience:{message.pk}:{feedback.pk}:{feedback.updated_at.timestamp():.6f}"
        enqueue_on_commit(experience_learn, tenant_id, message.pk, key)  # in the outbox with the feedback
    else:
        from tasks.services.experience import experience_forget_for_message

        experience_forget_for_message(tenant=tenant, message=message)
    return feedback
