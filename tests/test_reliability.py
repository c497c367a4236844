"""Nothing lost, nothing twice: one test per window where work used to be acknowledged before it was
durable (each fails on the code before the fix), on a real runtime, Redis and store."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adapters.cli.app import app
from adapters.runtime.composition import Runtime
from adapters.runtime.valkey import EmbeddedValkey, ValkeyStartError
from bot.config.settings import SettingsError, load_settings
from bot.delivery.outbox import PostKind
from bot.delivery.reminders import record_delivery, reminder_post
from bot.engine import EngineConfig
from bot.llm.base import ProviderError
from bot.models import Message
from bot.offline.provider import OfflineProvider
from jobs.cron import reconcile
from jobs.queue import QUEUE
from jobs.tasks import extract_idle, extract_memories
from jobs.worker import DEAD_LETTER
from memory.errors import StoreError
from memory.models import Fact, Kind, Scope, Source, utcnow
from memory.store.edge import EdgeStore
from tests.clock import JobSchedule
from tests.jobs_helpers import ScriptedProvider, Start, promise, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

ROOT = Path(__file__).resolve().parents[1]
T = "console:rel"


def ctx(rt: Runtime) -> dict[str, Any]:
    return {"heyan": rt.services, "redis": rt.redis, "max_tries": rt.settings.jobs.max_tries}


def say(i: int, text: str, *, user: str = "u-ann", session: str = "s", mention: bool = False) -> Message:
    return Message(id=f"m{i}", scope=Scope(tenant=T, session=session, user=user),
                   author_name=user.removeprefix("u-").capitalize(),
                   text=text, ts=utcnow(), mention=mention)


async def until(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


# --- one huge message ----------------------------------------------------------------------------


async def test_a_200kb_message_costs_little_and_loses_nothing(tmp_path: Path, redis_url: str,
                                                             start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url, job_timeout=60), provider=OfflineProvider())
    await rt.engine.observe(say(1, "I will send the signed lease by Friday."))
    huge = say(2, "I think we should talk about the noise and the rent and the dishes again. " * 2800)
    assert len(huge.text) > 200_000
    cpu = time.process_time()
    assert await rt.engine.observe(huge)
    assert time.process_time() - cpu < 1.0  # CPU time of this process: other load cannot inflate it
    await rt.engine.flush(Scope(tenant=T, session="s"))
    await rt.drain(120)
    [lease] = await rt.memory.open_commitments(Scope(tenant=T))
    assert "lease" in lease.value and lease.subject == "u-ann"  # the earlier promise is kept
    [kept] = await rt.window.get_many(Scope(tenant=T, session="s"), ["m2"])
    assert kept.text == huge.text  # the source text stays whole
    reply = await rt.engine.respond(say(3, "what did Ann promise?", user="u-bob", mention=True))
    assert "lease" in reply.text


# --- the embedded Valkey ---------------------------------------------------------------------------

_HOLD = """
import asyncio, sys
from pathlib import Path
from adapters.runtime.valkey import EmbeddedValkey
import redis.asyncio as r

async def main():
    v = EmbeddedValkey(Path(sys.argv[1]))
    url = await v.start()
    client = r.Redis.from_url(url)
    await client.set("kept", "yes")
    await client.execute_command("BGREWRITEAOF")
    print(Path(sys.argv[1], "heyan-valkey.pid").read_text(), flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def _is_valkey(pid: int) -> bool:
    try:
        return b"valkey" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _appended(folder: Path) -> bytes:
    """What the append-only files hold now; a rewrite's temp file may vanish between listing and reading."""
    held = []
    for path in folder.rglob("*.aof"):
        try:
            held.append(path.read_bytes())
        except FileNotFoundError:
            continue  # a finished rewrite renamed it: the next pass reads its successor
    return b"".join(held)


def test_a_valkey_left_by_a_killed_process_is_stopped_and_its_data_kept(tmp_path: Path) -> None:
    folder = tmp_path / "valkey"
    proc = subprocess.Popen([sys.executable, "-c", _HOLD, str(folder)], cwd=ROOT, stdout=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True)
    assert proc.stdout is not None
    orphan = int(proc.stdout.readline())
    deadline = time.monotonic() + 60  # appendfsync everysec: wait until the write is in the file
    while b"kept" not in _appended(folder):
        assert time.monotonic() < deadline, "the write never reached the append-only file"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert _is_valkey(orphan)  # the orphan outlived its parent

    async def restart() -> None:
        valkey = EmbeddedValkey(folder)
        url = await valkey.start()
        try:
            assert not _is_valkey(orphan)  # found through its pid file and stopped
            import redis.asyncio as aioredis

            client = aioredis.Redis.from_url(url)
            assert await client.get("kept") == b"yes"
            assert (await client.config_get("port"))["port"] == "0"  # no TCP: the unix socket only
            await client.aclose()
            assert (folder.stat().st_mode & 0o777) == 0o700  # owner only
            with pytest.raises(ValkeyStartError, match="another Heyan process"):
                await EmbeddedValkey(folder).start()  # two Valkeys never share one data dir
        finally:
            await valkey.stop()

    asyncio.run(restart())


async def test_a_damaged_append_only_file_is_a_one_line_error(tmp_path: Path) -> None:
    folder = tmp_path / "valkey"
    valkey = EmbeddedValkey(folder)
    await valkey.start()
    await valkey.stop()
    [manifest] = list((folder / "appendonlydir").glob("*.manifest"))
    manifest.write_text("this is not a manifest\n")
    with pytest.raises(ValkeyStartError) as failed:
        await EmbeddedValkey(folder).start()
    message = str(failed.value)
    assert "\n" not in message and "valkey.log" in message and "appendonlydir" in message
    again = EmbeddedValkey(folder)  # the failed start released its lock: the error is the same
    with pytest.raises(ValkeyStartError, match="did not start"):  # not "another Heyan process"
        await again.start()



async def test_a_stop_keeps_every_write_and_ends_valkey_even_when_shutdown_cannot_reach_it(tmp_path: Path) -> None:
    """A stop asks Valkey to SHUTDOWN (it fsyncs its append-only file and exits); when that cannot be
    sent (its socket gone), SIGTERM still ends it. Either way, every write is there after a restart."""
    import redis.asyncio as aioredis

    folder = tmp_path / "valkey"
    for n, socket_gone in enumerate([False, True]):
        valkey = EmbeddedValkey(folder)
        client = aioredis.Redis.from_url(await valkey.start())
        await client.set(f"written-{n}", "kept")
        await client.aclose()
        server = valkey._server
        assert server is not None and server._process is not None
        pid = server._process.pid
        if socket_gone:
            valkey.socket_path.unlink()
        await valkey.stop()
        assert not _is_valkey(pid)
    valkey = EmbeddedValkey(folder)
    client = aioredis.Redis.from_url(await valkey.start())
    try:
        assert await client.mget("written-0", "written-1") == [b"kept", b"kept"]
    finally:
        await client.aclose()
        await valkey.stop()

# --- settings and files --------------------------------------------------------------------------


def test_server_store_without_url_is_a_settings_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEYAN_STORE", "server")
    monkeypatch.delenv("HEYAN_QDRANT_URL", raising=False)
    with pytest.raises(SettingsError, match="HEYAN_QDRANT_URL"):
        load_settings()


async def test_a_missing_shard_is_an_error_not_an_empty_store(tmp_path: Path) -> None:
    import shutil

    store = await EdgeStore.open(tmp_path / "qdrant", embedder_name="e", dim=4)
    await store.close()
    shutil.rmtree(tmp_path / "qdrant" / "facts")
    with pytest.raises(StoreError, match=r"facts shard .* is missing"):
        await EdgeStore.open(tmp_path / "qdrant", embedder_name="e", dim=4)
    env = {"HEYAN_DATA_DIR": str(tmp_path), "HEYAN_REDIS_URL": "", "HEYAN_QDRANT_URL": ""}
    out = await asyncio.to_thread(CliRunner().invoke, app, ["memory", "list"], env=env)
    assert out.exit_code == 2 and "is missing" in out.output and "Traceback" not in out.output


def test_a_redis_password_is_never_printed(tmp_path: Path) -> None:
    env = {"HEYAN_DATA_DIR": str(tmp_path), "HEYAN_REDIS_URL": "redis://:s3cret-pw@127.0.0.1:1/0"}
    out = CliRunner().invoke(app, ["memory", "list"], env=env)
    assert out.exit_code == 2 and "s3cret" not in out.output and "***" in out.output
    shown = CliRunner().invoke(app, ["config"], env=env)
    assert shown.exit_code == 0 and "s3cret" not in shown.output


# --- batches and messages --------------------------------------------------------------------------


async def test_a_failed_idle_extraction_keeps_its_batch(tmp_path: Path, redis_url: str,
                                                        start: Start) -> None:
    provider = ScriptedProvider()
    rt = await start(settings(tmp_path, redis_url), provider=provider, worker=False)
    msg, cand = promise(T, "quiet", "q1", "u-ann", "Ann", "water the plants", None)
    msg = replace(msg, text="just chatting, water the plants maybe")  # not fact-bearing: it waits
    provider.script[msg.id] = [replace(cand, quote="water the plants")]
    await rt.engine.observe(msg)
    scope = Scope(tenant=T, session="quiet")
    assert await rt.conversation.batches.pending(scope) == ["q1"]
    turn = await rt.window.turns(scope)
    provider.fail.add("quiet")
    with pytest.raises(ProviderError):
        await extract_idle(ctx(rt), T, "quiet", turn)  # the LLM fails; the job will be retried
    assert await rt.conversation.batches.pending(scope) == ["q1"]  # the batch is still there for the retry
    provider.fail.clear()
    assert await extract_idle(ctx(rt), T, "quiet", turn) == 1
    assert await rt.conversation.batches.pending(scope) == []


async def test_an_edit_landing_while_its_extraction_finishes_is_read_again(
    tmp_path: Path, redis_url: str, start: Start
) -> None:
    """The edit's unmark used to run before the first job's mark, which then marked the *new* text
    extracted: the edit's job skipped it and the message's memories were gone (seen under load)."""
    provider = ScriptedProvider()
    rt = await start(settings(tmp_path, redis_url), provider=provider, worker=False)
    msg, cand = promise(T, "edit", "e1", "u-bob", "Bob", "send the draft by Friday", None)
    provider.script[msg.id] = [cand]
    await rt.engine.observe(msg)
    scope = Scope(tenant=T, session="edit")
    real_mark = rt.conversation.batches.mark_extracted
    edited = replace(msg, text=msg.text.replace("Friday", "Monday"))

    async def edit_before_mark(scope: Scope, messages: Any) -> None:
        provider.script[msg.id] = [replace(cand, value=cand.value.replace("Friday", "Monday"),
                                           attribute=cand.attribute.replace("Friday", "Monday"),
                                           quote=cand.quote.replace("Friday", "Monday"))]
        await rt.engine.revise(edited)  # the edit lands after the facts were written, before the mark
        await real_mark(scope, messages)

    rt.conversation.batches.mark_extracted = edit_before_mark  # type: ignore[method-assign]
    await extract_memories(ctx(rt), T, "edit", [msg.id])
    rt.conversation.batches.mark_extracted = real_mark  # type: ignore[method-assign]
    assert await rt.conversation.batches.not_extracted(scope, [msg.id]) == [msg.id]  # the new text is still to read
    await extract_memories(ctx(rt), T, "edit", [msg.id])  # the edit's own job
    assert [f.value for f in await rt.memory.open_commitments(Scope(tenant=T))] == ["send the draft by Monday"]
    assert await rt.conversation.batches.not_extracted(scope, [msg.id]) == []


async def test_a_crash_between_storing_and_queueing_leaves_work_for_the_sweep(
    tmp_path: Path, redis_url: str, start: Start
) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    real = rt.queue.extract

    async def crash(*args: Any, **kw: Any) -> bool:
        raise ConnectionError("the process died here")

    rt.queue.extract = crash  # type: ignore[method-assign]
    msg = say(1, "I will return the projector by Friday.", session="crash")
    with pytest.raises(ConnectionError):
        await rt.engine.observe(msg)
    rt.queue.extract = real  # type: ignore[method-assign]
    assert not await rt.engine.observe(msg)  # the platform's redelivery is a duplicate: it was stored…
    scope = Scope(tenant=T, session="crash")
    assert await rt.conversation.batches.pending(scope) == ["m1"]  # …and it still waits for extraction
    await rt.conversation.idle.release(scope)  # as if the idle job had been lost too
    report = await reconcile(ctx(rt))
    assert report.swept == 1
    rt.start_worker()
    await rt.drain(60)
    [fact] = await rt.memory.open_commitments(Scope(tenant=T))
    assert "projector" in fact.value


async def test_a_mention_is_answered_once_even_across_a_crash(tmp_path: Path, redis_url: str,
                                                              start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    rt.engine.config = EngineConfig(answer_claim_seconds=1)
    ask = say(1, "what did we agree?", mention=True, session="ask")
    first = await rt.engine.handle(ask)
    assert first is not None
    assert await rt.engine.handle(ask) is None  # a redelivery of an answered mention: no second answer

    crashing = say(2, "and what about the rent?", mention=True, session="ask")
    real, release = rt.engine.respond, rt.conversation.answers.release

    class Died(BaseException):
        """The process died mid-answer: nothing of it runs any more (no release, no heartbeat)."""

    async def die(msg: Message, **_: Any) -> Any:
        raise Died

    async def nothing(*_: Any) -> None:
        return None

    rt.engine.respond = die  # type: ignore[method-assign]
    rt.conversation.answers.release = nothing  # type: ignore[method-assign]
    with pytest.raises(Died):
        await rt.engine.handle(crashing)
    await rt.conversation.answers.close()  # its heartbeats died with it
    rt.engine.respond, rt.conversation.answers.release = real, release  # type: ignore[method-assign]
    assert await rt.engine.handle(crashing) is None  # redelivered at once: its claim has not lapsed yet

    async def orphaned() -> bool:  # no redelivery needed: the orphan is found once its claim lapses
        return [m.id for m in await rt.engine.unanswered()] == ["m2"]

    await until(orphaned, "the half-answered mention to be found")
    [again] = await rt.engine.unanswered()
    assert await rt.engine.handle(again) is not None
    assert await rt.engine.unanswered() == [] and await rt.engine.handle(crashing) is None


# --- records -----------------------------------------------------------------------------------


def commitment(session: str = "s") -> Fact:
    t0 = datetime(2026, 11, 2, tzinfo=UTC)
    return Fact(tenant=T, session=session, kind=Kind.COMMITMENT, subject="u-ann", attribute="send draft",
                value="send the draft", asserted_by="u-ann", due_at=t0 + timedelta(days=3),
                sources=(Source(message_id="m1", author_id="u-ann", ts=t0, quote="send the draft"),))


async def test_concurrent_changes_are_all_kept(tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    [fact] = (await rt.memory.remember([commitment()])).written
    scope = Scope(tenant=T)

    def add_time(i: int) -> Callable[[Fact], Fact]:
        stamp = datetime(2026, 11, 2, tzinfo=UTC) + timedelta(minutes=i)
        return lambda cur: cur.model_copy(update={"reminders_sent": (*cur.reminders_sent, stamp)})

    await asyncio.gather(*(rt.memory.modify(scope, fact.id, add_time(i)) for i in range(20)))
    stored = await rt.memory.get(scope, fact.id)
    assert stored is not None and len(stored.reminders_sent) == 20  # no write lost another


async def test_a_deleted_record_is_never_written_back(tmp_path: Path, redis_url: str,
                                                      start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    [fact] = (await rt.memory.remember([commitment()])).written
    post = reminder_post(fact, "UTC")
    assert post.kind is PostKind.REMINDER
    await rt.memory.delete(Scope(tenant=T), [fact.id])  # a member erased it while the reminder was out
    assert not await record_delivery(rt.memory, post, "msg-1")
    assert await rt.memory.get(Scope(tenant=T), fact.id) is None
    assert await rt.memory.modify(Scope(tenant=T), fact.id, lambda cur: cur) is None


# --- jobs and the worker ---------------------------------------------------------------------------


#: How much faster the job timeout runs out in the test below than it says (``_fast_job_timeouts``).
_WARP = 100


def _fast_job_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's job timeout (``jobs.worker.resilient``: ``asyncio.timeout(timeout)``, the shortest the
    settings allow is 5 s) runs out ``_WARP`` times sooner; its shorter waits (the idle wait) are left
    alone. Nothing else changes: the dead letter still reads "timed out after 5s"."""
    import jobs.worker

    real = asyncio.timeout
    fast = type(asyncio)("asyncio_fast_job_timeouts")
    fast.__dict__.update(vars(asyncio))
    fast.timeout = lambda delay: real(delay / _WARP if delay is not None and delay >= 5 else delay)  # type: ignore[attr-defined]
    monkeypatch.setattr(jobs.worker, "asyncio", fast)


async def test_a_job_that_times_out_is_retried_then_dead_lettered(tmp_path: Path, redis_url: str,
                                                                  start: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    _fast_job_timeouts(monkeypatch)
    provider = ScriptedProvider()
    provider.delay = 3600.0
    rt = await start(settings(tmp_path, redis_url, job_timeout=5, max_tries=2), provider=provider)
    msg, cand = promise(T, "slow", "s1", "u-ann", "Ann", "send the draft", None)
    provider.script[msg.id] = [cand]
    await rt.window.append(msg)
    await rt.queue.extract(Scope(tenant=T, session="slow"), [msg.id])

    async def dead() -> bool:
        await JobSchedule(rt.redis).skip(timedelta(minutes=10), "extract:")  # no waiting out the retry's backoff
        return bool(await rt.redis.llen(DEAD_LETTER))  # type: ignore[misc]

    await until(dead, "the timed-out job to be dead-lettered", timeout=120)
    [entry] = [json.loads(e) for e in await rt.redis.lrange(DEAD_LETTER, 0, -1)]  # type: ignore[misc]
    assert entry["function"] == "extract_memories" and "timed out after 5s" in entry["error"]
    assert entry["tries"] == 2 and provider.calls == 2


async def test_a_worker_that_dies_is_restarted(tmp_path: Path, redis_url: str, start: Start,
                                               monkeypatch: pytest.MonkeyPatch,
                                               caplog: pytest.LogCaptureFixture) -> None:
    import adapters.runtime.composition
    from jobs.worker import build_worker

    monkeypatch.setattr(adapters.runtime.composition, "_RESTART_BACKOFF", 0.01)
    crashes = {"left": 1}

    def flaky(svc: Any) -> Any:
        worker = build_worker(svc)
        if crashes["left"]:
            crashes["left"] -= 1

            async def boom() -> None:
                raise ConnectionError("Redis went away")

            worker.main = boom  # type: ignore[method-assign]
        return worker

    monkeypatch.setattr(adapters.runtime.composition, "build_worker", flaky)
    caplog.set_level(logging.ERROR, logger="adapters.runtime.composition")
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(say(1, "I will fix the printer by Monday.", session="w"))
    await rt.engine.flush(Scope(tenant=T, session="w"))

    async def extracted() -> bool:
        return bool(await rt.memory.open_commitments(Scope(tenant=T)))

    await until(extracted, "the restarted worker to run the job")
    assert "restarting it" in caplog.text and "Redis went away" in caplog.text
    assert rt.worker_alive and rt.worker_failure is None


async def test_a_worker_that_keeps_dying_stops_the_process(
    tmp_path: Path, redis_url: str, start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    import adapters.runtime.composition
    from jobs.worker import build_worker

    monkeypatch.setattr(adapters.runtime.composition, "_RESTART_BACKOFF", 0.001)

    def broken(svc: Any) -> Any:
        worker = build_worker(svc)

        async def boom() -> None:
            raise ConnectionError("Redis is gone for good")

        worker.main = boom  # type: ignore[method-assign]
        return worker

    monkeypatch.setattr(adapters.runtime.composition, "build_worker", broken)
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await asyncio.wait_for(rt.worker_failed.wait(), 60)
    assert isinstance(rt.worker_failure, ConnectionError) and not rt.worker_alive


async def test_jobs_are_stored_as_json_not_pickle(tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    await rt.queue.extract(Scope(tenant=T, session="j"), ["m1"])
    [job_id] = await rt.redis.zrange(QUEUE, 0, -1)
    raw = await rt.redis.get(b"arq:job:" + job_id)
    assert raw is not None and raw.startswith(b"{")  # JSON: no pickle for anyone who can write to Redis
    assert json.loads(raw)["a"] == [T, "j", ["m1"]]
