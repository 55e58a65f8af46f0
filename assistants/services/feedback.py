"""Thumbs up/down on a reply. Positive feedback is what experience memory learns from."""

from __future__ import annotations

from django.db import transaction

from core.exceptions import InvalidInput, NotFound
from tenancy.models import Feedback, Message


@transaction.atomic
def feedback_record(*, tenant, end_user, message_id: int, rating: str, comment: str = "") -> Feedback:
    """Record (or change) one user's rating of one reply. "up" schedules the experience-learning job after the
    transaction commits; "down" removes anything learned from that reply, so a retracted thumbs-up saves nothing."""
    if rating not in Feedback.Rating.values:
        raise InvalidInput("The rating must be 'up' or 'down'.")
    message = (
        Message.objects.for_tenant(tenant)
        .select_related("session", "end_user")
        .filter(pk=message_id, end_user=end_user, role=Message.Role.ASSISTANT)
        .first()
    )
    if message is None:
        raise NotFound("That reply does not exist.")
    feedback, _ = Feedback.objects.for_tenant(tenant).update_or_create(
        tenant=tenant, message=message, end_user=end_user, defaults={"rating": rating, "comment": comment}
    )
    from assistants.services.chat import turn_uses_long_term_memory

    if rating == Feedback.Rating.UP and turn_uses_long_term_memory(session=message.session, end_user=message.end_user):
        from core.dispatch import enqueue_on_commit

        tenant_id, key = tenant.pk, f"experience:{message.pk}:{feedback.pk}:{feedback.updated_at.timestamp():.6f}"
        enqueue_on_commit("tasks.jobs.experience_learn", tenant_id, message.pk, key)  # in the outbox with the feedback
    else:
        from tasks.services.experience import experience_forget_for_message

        experience_forget_for_message(tenant=tenant, message=message)
    return feedback


def feedback_turn_hook(*, tenant, session, message) -> None:
    """A pre-turn hook (assistants.services.hooks): a message that explicitly praises the previous reply ("很好，
    就按这个来", "perfect, go with this") is recorded as a thumbs-up on that reply, which is what experience memory
    learns from. Says nothing in the reply; the experience hook after it offers no hint for such a message."""
    from tasks.services.experience import is_positive_feedback

    text = message.content or ""
    if not is_positive_feedback(text):
        return None
    previous = (
        Message.objects.for_tenant(tenant)
        .filter(session=session, role=Message.Role.ASSISTANT, id__lt=message.pk)
        .order_by("-id")
        .first()
    )
    if previous is not None:
        feedback_record(
            tenant=tenant,
            end_user=session.end_user,
            message_id=previous.pk,
            rating="up",
            comment=f"explicit: {text[:500]}",
        )
    return None
