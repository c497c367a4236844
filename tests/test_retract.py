"""Deleting a message takes back only what came from it, found by its id through an index (not by
opening every record of the session), and refreshes the session summary lazily: rolled back at once
to a version written before the message (no LLM call, no job), rewritten by the next summary job or
queued when a reply next recalls it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters.runtime.composition import Runtime
from bot.models import Message
from bot.offline.provider import OfflineProvider
from bot.summaries import summarize_session
from memory.models import Fact, Kind, Scope, Source, utcnow
from memory.store.codec import PayloadCodec
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T = "discord:610"
SCOPE = Scope(tenant=T, session="thread-r")
OTHERS = 150


@pytest.fixture
async def rt(tmp_path: Path, redis_url: str, start: Start) -> Runtime:
    return await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)


def _fact(n: int, message: str) -> Fact:
    return Fact(tenant=T, session=SCOPE.session, kind=Kind.DEMAND, subject=f"u-{n}", attribute="wants",
                value=f"thing number {n}", asserted_by=f"u-{n}", users=(f"u-{n}",), slot=f"t:{n}",
                sources=(Source(message_id=message, author_id=f"u-{n}", ts=utcnow(), quote=f"thing number {n}"),))


def _said(mid: str, user: str, text: str, *, mention: bool = False) -> Message:
    return Message(id=mid, scope=SCOPE.narrow(user=user), author_name=user.removeprefix("u-").title(), text=text,
                   ts=utcnow(), mention=mention)


async def _queued(rt: Runtime) -> list[str]:
    return [j.decode() for j in await rt.redis.zrange("arq:queue", 0, -1)]


async def test_a_deletion_opens_only_the_records_citing_it_and_calls_no_llm(
        rt: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    await rt.memory.remember([_fact(n, f"other-{n}") for n in range(OTHERS)])
    await rt.window.append(_said("early", "u-bob", "I promise to fix the garden fence by Monday."))
    v1 = await summarize_session(rt.window, rt.memory, rt.provider, SCOPE)
    gone = _said("gone", "u-ann", "I want the velvetmoth lamp returned by Friday.")
    await rt.window.append(gone)
    await rt.memory.remember([_fact(999, "gone")])
    v2 = await summarize_session(rt.window, rt.memory, rt.provider, SCOPE)
    assert v1 is not None and v2 is not None and "velvetmoth" in v2.text

    opened: list[str] = []
    real = PayloadCodec.fact_from_payload

    def counting(self: PayloadCodec, payload: dict[str, Any]) -> Fact:
        opened.append(str(payload.get("id")))
        return real(self, payload)

    def no_llm(*_: Any, **__: Any) -> Any:
        raise AssertionError("a deletion must not summarise")

    monkeypatch.setattr(PayloadCodec, "fact_from_payload", counting)
    monkeypatch.setattr(rt.provider, "summarize", no_llm)
    before = await _queued(rt)
    assert await rt.engine.retract(SCOPE, "gone") == 1
    assert len(opened) <= 3, f"opened {len(opened)} records to retract one message"
    assert [j for j in await _queued(rt) if j not in before] == []  # no summary job per deletion
    monkeypatch.undo()

    assert len(await rt.memory.list_facts(Scope(tenant=T))) == OTHERS  # only its own record went
    summary = await rt.memory.summary(SCOPE)
    assert summary is not None and summary.stale and summary.text == v1.text  # rolled back, lazily
    assert all("velvetmoth" not in v.text for v in summary.versions())

    # the next reply that recalls it has it written again (a job, not on the reply path)
    await rt.engine.handle(_said("ask", "u-bob", "@Heyan what did we agree?", mention=True))
    assert any(j.startswith(f"summary:{T}:{SCOPE.session}:") and j.endswith(f":stale-v{summary.version}")
               for j in await _queued(rt))
    rebuilt = await summarize_session(rt.window, rt.memory, rt.provider, SCOPE)  # the job
    assert rebuilt is not None and not rebuilt.stale and "velvetmoth" not in rebuilt.text


async def test_records_written_before_the_index_are_still_found(rt: Runtime) -> None:
    [old] = (await rt.memory.remember([_fact(1, "legacy")])).written
    await rt.memory.remember([_fact(2, "unrelated")])
    await rt.store.set_payload("facts", Scope(tenant=T), old.id, {"messages": None})  # as stored before
    assert await rt.engine.retract(SCOPE, "legacy") == 1
    assert [f.value for f in await rt.memory.list_facts(Scope(tenant=T))] == ["thing number 2"]


async def test_a_message_heyan_never_held_only_marks_the_summary_stale(rt: Runtime) -> None:
    await rt.window.append(_said("m1", "u-bob", "I promise to fix the garden fence by Monday."))
    first = await summarize_session(rt.window, rt.memory, rt.provider, SCOPE)
    assert first is not None
    assert await rt.engine.retract(SCOPE, "never-seen") == 0
    after = await rt.memory.summary(SCOPE)
    assert after is not None and after.stale and after.text == first.text and after.version == first.version


async def test_an_edit_rolls_the_summary_back_and_is_read_again(rt: Runtime) -> None:
    from dataclasses import replace

    await rt.window.append(_said("m0", "u-bob", "Hello there."))
    first = await summarize_session(rt.window, rt.memory, rt.provider, SCOPE)
    draft = _said("m1", "u-ann", "I want the velvetmoth lamp returned by Friday.")
    await rt.window.append(draft)
    assert await summarize_session(rt.window, rt.memory, rt.provider, SCOPE) is not None
    await rt.engine.revise(replace(draft, text="I want the copper lamp returned by Friday.", ts=draft.ts))
    after = await rt.memory.summary(SCOPE)
    assert first is not None and after is not None and after.stale and "velvetmoth" not in after.text
    assert any(j.startswith(f"extract:{T}:{SCOPE.session}:") for j in await _queued(rt))  # read again
