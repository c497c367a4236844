"""Consolidation: update instead of duplicate, no-op replays, disputes instead of overwrites."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory.consolidation import Action, consolidate
from memory.models import Fact, FactStatus, Kind, Source

T0 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)


def fact(value: str, by: str = "u-li", msg: str = "m1", at: datetime = T0, **kw: object) -> Fact:
    src = Source(message_id=msg, author_id=by, ts=at, quote=value)
    base: dict[str, object] = dict(
        tenant="t", session="s", kind=Kind.COMMITMENT, subject="u-li", attribute="send draft",
        value=value, asserted_by=by, sources=(src,), valid_from=at,
    )
    base.update(kw)
    return Fact(**base)  # type: ignore[arg-type]


def test_new_fact_is_inserted_with_deterministic_id() -> None:
    out = consolidate(None, fact("by Friday"), T0)
    assert out.action is Action.INSERT
    assert out.fact.id == fact("by Friday").with_id().id
    assert out.fact.version == 1


def test_same_slot_same_id_whatever_the_value() -> None:
    assert fact("by Friday").with_id().id == fact("by Monday", msg="m9").with_id().id
    other_slot = fact("x", attribute="pay rent").with_id().id
    assert other_slot != fact("by Friday").with_id().id


def test_identical_fact_is_noop() -> None:
    first = consolidate(None, fact("by Friday"), T0).fact
    again = consolidate(first, fact("by  friday", msg="m2"), T0)
    assert again.action is Action.NOOP
    assert again.fact == first


def test_replayed_source_is_noop_even_if_value_differs() -> None:
    first = consolidate(None, fact("by Friday"), T0).fact
    assert consolidate(first, fact("by Friday evening"), T0).action is Action.NOOP


def test_owner_update_bumps_version_and_keeps_history() -> None:
    first = consolidate(None, fact("by Friday"), T0).fact
    later = T0 + timedelta(days=1)
    out = consolidate(first, fact("by Monday", msg="m2", at=later), later)
    assert out.action is Action.UPDATE
    assert out.fact.value == "by Monday"
    assert out.fact.version == 2
    assert [h.value for h in out.fact.history] == ["by Friday"]
    assert out.fact.history[0].valid_to == later
    assert out.fact.id == first.id


def test_other_speaker_contradiction_marks_disputed_without_overwrite() -> None:
    first = consolidate(None, fact("by Friday"), T0).fact
    out = consolidate(first, fact("never promised anything", by="u-zhang", msg="m3"), T0)
    assert out.action is Action.DISPUTE
    assert out.fact.status is FactStatus.DISPUTED
    assert out.fact.value == "by Friday"
    assert out.fact.version == first.version
    assert out.fact.contested[0].value == "never promised anything"
    assert out.fact.contested[0].asserted_by == "u-zhang"


def test_closed_record_reopens_as_new_version() -> None:
    done = consolidate(None, fact("by Friday"), T0).fact.model_copy(update={"status": FactStatus.DONE})
    out = consolidate(done, fact("by next Friday", by="u-li", msg="m5"), T0)
    assert out.action is Action.UPDATE
    assert out.fact.status is FactStatus.ACTIVE
    assert out.fact.history[-1].status is FactStatus.DONE
