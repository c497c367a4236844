"""The base form of an English verb (bot/text/verbs.py), so a reply reads "promised to send", never
"promised to sending"."""

from __future__ import annotations

import pytest

from bot.offline.informal import informal_action
from bot.text.verbs import base_form


@pytest.mark.parametrize(("verb", "base"), [
    ("sending", "send"), ("dropping", "drop"), ("writing", "write"), ("updating", "update"), ("cancelling", "cancel"),
    ("adding", "add"), ("using", "use"), ("paying", "pay"), ("re-tracing", "re-trace"), ("Bringing", "Bring"),
    ("wibbling", "wibble"),  # a verb the tables do not hold is still cut to a base form by its rules
    ("send", "send"),
])
def test_base_forms(verb: str, base: str) -> None:
    assert base_form(verb) == base


@pytest.mark.parametrize(("said", "action"), [
    ("I'm dropping the keys off tomorrow", "drop the keys off tomorrow"),
    ("I'm sending the $40 back to Lucía before Friday", "send the $40 back to Lucía before Friday"),
    ("will send the docs tonight", "send the docs tonight"),  # another form, untouched
    ("we're bringing the projector on Saturday", "bring the projector on Saturday"),
])
def test_a_promise_said_in_the_progressive_reads_as_its_base_form(said: str, action: str) -> None:
    assert informal_action(said) == action
