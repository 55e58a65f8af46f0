"""Pre-turn hooks are the dotted paths in settings.ASSISTANT_PRE_TURN_HOOKS: the list decides what runs, and a
path that names nothing callable is refused by a system check, not skipped turn after turn."""

import pytest

from assistants.services.hooks import check_pre_turn_hooks
from tenancy.models import Feedback
from tests.chat.helpers import make_session, say

FEEDBACK_HOOK = "assistants.services.feedback.feedback_turn_hook"


def test_the_configured_hooks_pass_the_check_and_bad_paths_are_refused(settings):
    assert settings.ASSISTANT_PRE_TURN_HOOKS and check_pre_turn_hooks(None) == []
    settings.ASSISTANT_PRE_TURN_HOOKS = settings.ASSISTANT_PRE_TURN_HOOKS + [
        "memory.services.writing.commands.no_such_hook",
        "no_such_package.hook",
        "config.settings.base.MAX_MESSAGE_CHARS",
    ]
    errors = check_pre_turn_hooks(None)
    assert [e.id for e in errors] == ["assistants.E001"] * 3
    assert "no_such_hook" in errors[0].msg and "cannot be imported" in errors[0].msg
    assert "no_such_package.hook" in errors[1].msg
    assert "MAX_MESSAGE_CHARS" in errors[2].msg and "not a function" in errors[2].msg


@pytest.mark.django_db
@pytest.mark.parametrize("praise", ["很好，就按这个来", "perfect, go with this"])
def test_praise_in_chat_is_a_thumbs_up_only_while_its_hook_is_configured(settings, praise):
    default = list(settings.ASSISTANT_PRE_TURN_HOOKS)
    assert FEEDBACK_HOOK in default

    session = make_session()
    first = say(session, "帮我写一个开店计划 / help me write a shop plan")
    say(session, praise)
    assert list(Feedback.objects.for_tenant(session.tenant).values_list("message_id", "rating")) == [
        (first.reply_message.pk, "up")
    ]

    settings.ASSISTANT_PRE_TURN_HOOKS = [path for path in default if path != FEEDBACK_HOOK]
    other = make_session()
    say(other, "帮我写一个开店计划 / help me write a shop plan")
    result = say(other, praise)
    assert result.reply and not Feedback.objects.for_tenant(other.tenant).exists()
