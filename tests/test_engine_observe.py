"""Engine.observe on a real runtime: extraction triggers, batches and the one idle watch per session."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.models import Message
from memory.models import Scope
from tests.clock import JobSchedule
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

SCOPE = Scope(tenant="t", session="s")


def msg(i: int, text: str) -> Message:
    return Message(id=f"m{i}", scope=SCOPE.narrow(user="u-ann"), author_name="Ann", text=text,
                   ts=datetime(2026, 11, 4, 10, i, tzinfo=UTC))


async def queued(rt: object, prefix: str) -> list[str]:
    jobs = await rt.redis.zrange("arq:queue", 0, -1)  # type: ignore[attr-defined]
    return [j.decode() for j in jobs if j.decode().startswith(prefix)]


async def test_small_talk_waits_for_one_idle_watch_then_is_extracted(
    tmp_path: Path, redis_url: str, start: Start
) -> None:
    from bot.offline.provider import OfflineProvider

    rt = await start(settings(tmp_path, redis_url, idle_seconds=60, batch_turns=50), provider=OfflineProvider(),
                     worker=False)
    for i in range(5):
        assert await rt.engine.observe(msg(i, f"just chatting about the weather, part {i}"))
    assert not await rt.engine.observe(msg(4, "a redelivered message"))  # same id: dropped
    assert len(await queued(rt, "idle:")) == 1  # one watcher, not one job per message
    assert await queued(rt, "extract:") == []
    rt.start_worker()
    # quiet minutes pass (the test moves arq's schedule: tests/clock.py). The watch fires, sees turns
    # after its own and watches again from the latest; that one extracts, drops the batch and
    # releases the watch: wait for the last step
    schedule = JobSchedule(rt.redis)
    deadline = asyncio.get_running_loop().time() + 60
    while await rt.conversation.idle.active(SCOPE):
        assert asyncio.get_running_loop().time() < deadline, "the idle watch was never released"
        await schedule.skip(timedelta(seconds=61), "idle:")
        await asyncio.sleep(0.1)
    assert await rt.conversation.batches.not_extracted(SCOPE, [f"m{i}" for i in range(5)]) == []
    assert await rt.conversation.idle.claim(SCOPE, 1)  # the watch was released when the session went quiet


async def test_fact_bearing_message_is_extracted_at_once_with_the_waiting_batch(
    tmp_path: Path, redis_url: str, start: Start
) -> None:
    from bot.offline.provider import OfflineProvider

    rt = await start(settings(tmp_path, redis_url, idle_seconds=60, batch_turns=50), provider=OfflineProvider(),
                     worker=False)
    await rt.engine.observe(msg(0, "hi all"))
    await rt.engine.observe(msg(1, "I'll send the draft by Friday."))
    assert len(await queued(rt, "extract:")) == 1
    assert await rt.conversation.batches.pending(SCOPE) == []  # the waiting turn went with it


async def test_the_idle_watch_counts_from_when_the_line_was_said(tmp_path: Path, redis_url: str, start: Start) -> None:
    # a replay's clock sits at the line's time when it is read: the watch is due idle seconds after the
    # line was said, however long reading it took (a replay fires it by the script, never by its speed)
    from bot.offline.provider import OfflineProvider
    from memory import clock

    rt = await start(settings(tmp_path, redis_url, idle_seconds=60, batch_turns=50), provider=OfflineProvider(),
                     worker=False)
    said = datetime(2026, 11, 4, 10, 0, tzinfo=UTC)
    with clock.run_from(said + timedelta(seconds=5)):  # read five seconds after it was said
        assert await rt.engine.observe(msg(0, "just chatting about the weather"))
        due = clock.wall(said + timedelta(seconds=60))
    [(job, score)] = await rt.redis.zrange("arq:queue", 0, -1, withscores=True)
    assert job.decode().startswith("idle:") and abs(score - due.timestamp() * 1000) <= 1  # arq rounds to the ms


async def test_a_line_read_late_is_watched_from_now(tmp_path: Path, redis_url: str, start: Start) -> None:
    # a catch-up reads lines said long ago: their batch waits for a quiet minute from now, not at once
    from bot.offline.provider import OfflineProvider
    from memory import clock

    rt = await start(settings(tmp_path, redis_url, idle_seconds=60, batch_turns=50), provider=OfflineProvider(),
                     worker=False)
    with clock.run_from(datetime(2026, 11, 4, 12, 0, tzinfo=UTC)):  # two hours after msg 0 was said
        soonest = clock.wall(clock.now() + timedelta(seconds=60))
        assert await rt.engine.observe(msg(0, "just chatting about the weather"))
    [(job, score)] = await rt.redis.zrange("arq:queue", 0, -1, withscores=True)
    assert job.decode().startswith("idle:") and int(score) >= int(soonest.timestamp() * 1000)
