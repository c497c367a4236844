"""Ranking pieces without a store: time words, names in a query, the signals, the feedback expansion."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.index.sparse import Bm25Encoder
from memory.ports import Hit
from memory.recall.feedback import Expander, Feedback
from memory.recall.ranking import Candidate, Signals, fuse, kept, query_names
from memory.recall.timeq import TimeWindow, query_window, wants_latest

NOW = datetime(2026, 6, 17, 12, 0, tzinfo=UTC)  # a Wednesday


def day(month: int, d: int) -> datetime:
    return datetime(2026, month, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("上周何静订了什么？", day(6, 8), day(6, 15)),
        ("What did Bob promise last week?", day(6, 8), day(6, 15)),
        ("上个月赵凯提出了什么？", day(5, 1), day(6, 1)),
        ("this month", day(6, 1), day(7, 1)),
        ("三月份林晓承诺了什么？", day(3, 1), day(4, 1)),
        ("五月初何静确认了什么？", day(5, 1), day(5, 11)),
        ("What happened in March?", day(3, 1), day(4, 1)),
        ("late April", day(4, 21), day(5, 1)),
        ("最近陈磊在担心什么？", day(6, 3), day(6, 18)),
        ("十二月的账单", datetime(2025, 12, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)),
        ("What did she paint in 2022?", datetime(2022, 1, 1, tzinfo=UTC), datetime(2023, 1, 1, tzinfo=UTC)),
        ("When did she go there in May 2023?", datetime(2023, 5, 1, tzinfo=UTC), datetime(2023, 6, 1, tzinfo=UTC)),
    ],
)
def test_time_words_give_their_window(text: str, start: datetime, end: datetime) -> None:
    assert query_window(text, NOW) == TimeWindow(start, end)


@pytest.mark.parametrize("text", ["Who may bring the keys?", "谁负责编曲？", "When did Caroline go to the group?"])
def test_no_time_words_no_window(text: str) -> None:
    assert query_window(text, NOW) is None


def test_latest_questions() -> None:
    assert wants_latest("现在乐队每周什么时候排练？") and wants_latest("Is Bob still angry?")
    assert not wants_latest("谁负责编曲？")


def test_query_names_cover_latin_runs_and_chinese_pieces() -> None:
    names = query_names("Did Mount Rainier impress Caroline's sister? 周航答应了什么")
    assert {"Mount Rainier", "Mount", "Rainier", "Caroline"} <= names
    assert {"周航", "答应", "周航答应"} <= names
    assert len(query_names("长" * 10_000)) <= 3  # bounded: one distinct piece per length


def _hit(pid: str, score: float, subject: str = "", session: str = "s", when: datetime | None = None) -> Hit:
    payload: dict[str, object] = {"subject": subject, "session": session}
    if when is not None:
        payload["valid_from"] = when.isoformat()
    return Hit(pid, score, payload)


def test_signals_add_names_time_and_recency() -> None:
    dense = [_hit("a", 0.50, "bob", when=day(3, 2)), _hit("b", 0.48, "carol", when=day(6, 10)),
             _hit("c", 0.47, "dave", when=day(1, 5))]
    plain = kept(fuse(dense, None, "weighted", 1.0), set(), None)
    assert [c.hit.id for c in plain] == ["a", "b", "c"]

    fused = fuse(dense, None, "weighted", 1.0)
    Signals(subjects={"dave"}, entity_weight=0.1).apply(fused)
    assert kept(fused, set(), None)[0].hit.id == "c"

    fused = fuse(dense, None, "weighted", 1.0)
    Signals(window=TimeWindow(day(6, 8), day(6, 15)), time_weight=0.1).apply(fused)
    assert kept(fused, set(), None)[0].hit.id == "b"

    fused = fuse(dense, None, "weighted", 1.0)
    Signals(latest=True, recency_weight=0.1).apply(fused)
    assert [c.hit.id for c in kept(fused, set(), None)] == ["b", "a", "c"]

    fused = fuse(dense, None, "weighted", 1.0)
    Signals(latest=True, recency_weight=0.0, subjects={"dave"}, entity_weight=0.0).apply(fused)
    assert [c.hit.id for c in kept(fused, set(), None)] == ["a", "b", "c"]  # weights 0: off


def test_calibration_rescales_dense_scores() -> None:
    fused = fuse([_hit("a", 0.85)], None, "weighted", 1.0, lambda c: (c - 0.7) / 0.3)
    assert fused["a"].dense == pytest.approx(0.5) and fused["a"].score == pytest.approx(0.5)


def test_feedback_cap_keeps_shared_terms_first() -> None:
    sparse = Bm25Encoder()
    query = sparse.encode_query("deposit")
    texts = ["Alice returns the hall deposit on Friday evening", "Alice pays the hall cleaning fee on Friday"]
    full = Expander(sparse, Feedback(terms=0)).expand(query, texts)
    capped = Expander(sparse, Feedback(terms=3)).expand(query, texts)
    assert len(capped.indices) == len(query.indices) + 3 < len(full.indices)
    shared = set(sparse.encode_document(texts[0]).indices) & set(sparse.encode_document(texts[1]).indices)
    extra = set(capped.indices) - set(query.indices)
    assert extra <= shared  # "alice", "hall", "friday": held by both facts


def test_feedback_skips_a_confident_first_pass() -> None:
    settings = Feedback(skip_margin=0.2)
    close = [Candidate(_hit("a", 0), 0.8, None, None), Candidate(_hit("b", 0), 0.7, None, None)]
    clear = [Candidate(_hit("a", 0), 0.9, None, None), Candidate(_hit("b", 0), 0.6, None, None)]
    assert not settings.confident(close) and settings.confident(clear)
    assert not Feedback(skip_margin=None).confident(clear)  # None: never skip
    with pytest.raises(ValueError, match="skip_margin"):
        Feedback(skip_margin=-1.0)
