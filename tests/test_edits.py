"""Edits and deletions on the platform reach memory: an edited message is read again (what its old text
said is taken back), a deleted one removes the memories that came only from it and returns a record it
had changed to the version before."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.models import Message
from bot.offline.provider import OfflineProvider
from memory.models import FactStatus, Kind, Scope
from memory.retraction import without_message as _without_message
from tests.jobs_helpers import Start, settings

pytestmark = [pytest.mark.dated, pytest.mark.usefixtures("hash_embedder")]  # fixed dates: `make any-day` runs them years ahead too

T = "slack:T1"
SCOPE = Scope(tenant=T, session="C1:100.1")
MONDAY = datetime(2026, 11, 2, 10, tzinfo=UTC)  # said on a Monday morning, UTC


@pytest.fixture(autouse=True)
def _on_monday(clock_at: Callable[[datetime], None]) -> None:
    """The tests' now is the Monday their messages were said, whatever today is."""
    clock_at(MONDAY + timedelta(minutes=5))


def said(mid: str, user: str, name: str, text: str, minutes: int = 0) -> Message:
    return Message(id=mid, scope=SCOPE.narrow(user=user), author_name=name, text=text,
                   ts=MONDAY + timedelta(minutes=minutes))


async def test_an_edit_is_read_again_and_a_delete_takes_back(tmp_path: Path, redis_url: str,
                                                             start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    draft = said("m1", "u-ann", "Ann", "I will send the draft by Friday.")
    await rt.engine.observe(draft)
    await rt.engine.observe(said("m2", "u-bob", "Bob", "I will book the room by Wednesday.", 1))
    await rt.drain(60)
    by_owner = {f.subject: f for f in await rt.memory.open_commitments(Scope(tenant=T))}
    assert by_owner["u-ann"].due_at is not None and by_owner["u-ann"].due_at.weekday() == 4  # Friday

    await rt.engine.revise(replace(draft, text="I will send the draft by Thursday."))
    await rt.drain(60)
    by_owner = {f.subject: f for f in await rt.memory.open_commitments(Scope(tenant=T))}
    assert by_owner["u-ann"].due_at is not None and by_owner["u-ann"].due_at.weekday() == 3  # Thursday now
    assert all("Friday" not in f.value for f in by_owner.values())
    [stored] = await rt.window.get_many(SCOPE, ["m1"])
    assert stored.text == "I will send the draft by Thursday."

    assert await rt.engine.retract(SCOPE, "m2") == 1  # Bob deleted his message
    assert {f.subject for f in await rt.memory.open_commitments(Scope(tenant=T))} == {"u-ann"}
    assert await rt.window.get_many(SCOPE, ["m2"]) == []
    assert "m2" not in [m.id for m in await rt.window.recent(SCOPE)]


def test_taking_back_a_source_restores_the_version_before() -> None:
    from memory.models import Fact, HistoryEntry, Source

    t0 = MONDAY
    first = Source(message_id="m1", author_id="u-ann", ts=t0, quote="a refund")
    second = Source(message_id="m2", author_id="u-ann", ts=t0, quote="a full refund")
    fact = Fact(tenant=T, session=SCOPE.session, kind=Kind.DEMAND, subject="u-ann", attribute="wants",
                value="a full refund", asserted_by="u-ann", sources=(second,), version=2,
                history=(HistoryEntry(version=1, value="a refund", asserted_by="u-ann", status=FactStatus.ACTIVE,
                                      valid_from=t0, valid_to=t0, sources=(first,)),))
    back = _without_message(fact, "m2", t0)
    assert back is not None and back.value == "a refund" and back.sources == (first,) and back.history == ()
    assert back.version == 3  # a change like any other
    assert _without_message(fact, "m9", t0) is fact  # not cited: untouched
    gone = _without_message(back, "m1", t0)
    assert gone is None  # nothing left: the record goes
