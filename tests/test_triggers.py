"""The extraction trigger: fact-bearing messages now, small talk later."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.extraction.triggers import fact_bearing
from bot.models import Message
from memory.models import Scope


def msg(text: str) -> Message:
    return Message(id="m", scope=Scope(tenant="t", session="s", user="u"), author_name="Ann", text=text,
                   ts=datetime(2026, 11, 4, 10, tzinfo=UTC))


@pytest.mark.parametrize(
    "text",
    ["I'll send the draft by Friday.", "我保证明天下午三点前把草稿发给你。", "I want a refund.", "我要求道歉。",
     "好的，我同意以后有延期先在群里说。", "No way, I refuse to pay for that.", "我不同意这个方案。"],
)
def test_fact_bearing(text: str) -> None:
    assert fact_bearing(msg(text))


@pytest.mark.parametrize(
    "text",
    # issue 20: indirect promises, promises after a request, bare answers the thread will explain
    ["包在我身上", "交给我吧", "我来搞定", "leave it with me", "I'll take care of it", "consider it done",
     "Log the bug and I'll fix it by tomorrow 5pm", "你先提需求，我明天给你答复", "Deal.", "行，那就这样。",
     "As the admin of the repo I'll set up the branch protection rules by Friday."],
)
def test_fact_bearing_issue20(text: str) -> None:
    assert fact_bearing(msg(text))


@pytest.mark.parametrize(
    "text",
    ["hello everyone", "今天天气不错。", "He said he'd refund me.", "What did I promise?", "我答应了什么？",
     "我需要想一想。", "I'm worried we'll lose the deposit.", "我妈下个月来。", "They agreed to cover the deposit."],
)
def test_not_urgent(text: str) -> None:
    assert not fact_bearing(msg(text))
