"""Memory truth on everyday phrasing (issues 20 and 22): the promised action as a card shows it, reports
of a promise kept in passive / topic-first form, and answers to a proposal that restate it. The corpus
figures are in docs/BENCHMARKS.md ("Everyday truth"); these are the review's own cases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.offline.actions import promised_action
from bot.offline.rules import extract_rules
from memory.extraction import ExtractionRequest, Utterance, to_facts
from memory.models import Fact, Kind

T0 = datetime(2026, 11, 4, 10, tzinfo=UTC)  # a Wednesday


def facts(lines: list[tuple[str, str, str]], lang: str = "en") -> list[Fact]:
    """The facts of the last line, the lines before it as what it answers."""
    turns = [Utterance(f"m{i}", uid, name, text, T0 + timedelta(minutes=i)) for i, (uid, name, text) in enumerate(lines)]
    request = ExtractionRequest("t", "s", turns[-1:], turns[:-1], lang, "UTC")  # type: ignore[arg-type]
    return to_facts(request, extract_rules(request), now=T0)


@pytest.mark.parametrize(
    ("text", "action"),
    [("水管我来修，搞定", "修水管"), ("这个bug我来修", "修这个bug"), ("I'll take care of the invoices", "take care of the invoices"),
     ("打印机我去修", "修打印机"), ("钥匙我去配", "配钥匙"), ("电费我来交，放心", "交电费"), ("发票我来开", "开发票")],
)
def test_the_promised_action_reads_as_a_card_item(text: str, action: str) -> None:
    [promise] = facts([("u-li", "李娜", text)], "zh" if "我" in text else "en")
    assert promise.kind is Kind.COMMITMENT and promise.subject == "u-li"
    assert promised_action(promise.value) == action
