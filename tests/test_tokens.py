"""The offline token estimate over-estimates published token counts; the budget drops the least important first."""

from __future__ import annotations

import pytest

from bot.tokens import Item, Section, estimate_tokens, fit_to_budget

# Token counts published by OpenAI for cl100k_base: the tiktoken README ("hello world") and the
# "How to count tokens with tiktoken" cookbook (the other four).
PUBLISHED = [
    ("hello world", 2),
    ("tiktoken is great!", 6),
    ("antidisestablishmentarianism", 6),
    ("2 + 2 = 4", 7),
    ("お誕生日おめでとう", 9),
]


@pytest.mark.parametrize(("text", "tokens"), PUBLISHED)
def test_estimate_never_under_counts_published_examples(text: str, tokens: int) -> None:
    estimate = estimate_tokens(text)
    assert estimate >= tokens
    assert estimate <= 2 * tokens + 1  # conservative, not absurd


def test_estimates_scale_with_text() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("   \t ") == 0
    english = "I promised to send the draft by Friday, but the review took longer than expected."
    chinese = "我答应周五前把初稿发过去，但是审核比预期的时间要长。"
    # ~4 characters per token is OpenAI's rule of thumb for English; we must stay at or above it.
    assert estimate_tokens(english) >= len(english) / 4
    # Common Han characters are about one token each; we count a margin above that.
    assert estimate_tokens(chinese) >= len(chinese)
    assert estimate_tokens(english * 10) >= 10 * estimate_tokens(english) - 10
    assert estimate_tokens("3.14159265") >= 4  # digits in groups of three plus the point
    assert estimate_tokens("line one\nline two") == estimate_tokens("line one line two") + 1


def _items(prefix: str, n: int, *, priority_step: float = 1.0) -> list[Item[str]]:
    return [
        Item(f"{prefix} {i} " + "word " * 20, priority=i * priority_step, payload=f"{prefix}{i}")
        for i in range(n)
    ]


def _sections() -> list[Section[str]]:
    return [
        Section("system", [Item("You are Heyan. " * 10)], required=True),
        Section("summary", [Item("summary " * 20, payload="sum")], drop_rank=3),
        Section(
            "facts",
            [Item("fact low " * 20, 0.2, "f-low"), Item("fact high " * 20, 0.9, "f-high")],
            drop_rank=1,
        ),
        Section("commitments", [Item("promise " * 20, payload="c1")], drop_rank=2),
        Section("window", _items("turn", 4), drop_rank=0),
        Section("turn", [Item("current turn " * 10, payload="now")], required=True),
    ]


def test_everything_fits_under_a_large_budget() -> None:
    kept = fit_to_budget(_sections(), 100_000)
    assert kept.dropped == {}
    assert [len(s.items) for s in kept.sections] == [1, 1, 2, 1, 4, 1]
    assert not kept.over_budget


def test_oldest_window_turns_go_first_then_lowest_facts() -> None:
    sections = _sections()
    full = fit_to_budget(sections, 100_000).tokens
    turn_cost = sections[4].items[0].tokens

    kept = fit_to_budget(sections, full - turn_cost)  # room for all but one turn
    assert [i.payload for i in kept.section("window").items] == ["turn1", "turn2", "turn3"]
    assert kept.dropped == {"window": 1}

    window_cost = sum(i.tokens for i in sections[4].items)
    kept = fit_to_budget(sections, full - window_cost - 1)  # all turns gone, and one fact
    assert kept.section("window").items == ()
    assert [i.payload for i in kept.section("facts").items] == ["f-high"]
    assert [i.payload for i in kept.section("summary").items] == ["sum"]
    assert kept.tokens <= kept.budget
    assert [s.name for s in kept.sections] == ["system", "summary", "facts", "commitments", "window", "turn"]


def test_required_sections_are_never_dropped() -> None:
    kept = fit_to_budget(_sections(), 10)
    assert kept.over_budget
    assert kept.section("system").items and kept.section("turn").items
    assert all(not s.items for s in kept.sections if s.name not in ("system", "turn"))
    assert kept.dropped == {"window": 4, "facts": 2, "commitments": 1, "summary": 1}


def test_non_ascii_scripts_and_emoji_are_counted_finer() -> None:
    assert estimate_tokens("привет мир") > estimate_tokens("hello world")
    assert estimate_tokens("😀") == 3
    assert estimate_tokens("—") == 2
