"""Background jobs that fire once, on time, across restarts — against a real Runtime and Redis.

Each test gets its own data dir (Qdrant Edge) and its own database of the test run's Valkey
(``redis_url`` in tests/conftest.py). Job timings are shortened through settings (a 5 s job timeout,
few tries); a reminder's time comes when the test moves arq's schedule (``tests.clock.JobSchedule``).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from arq.constants import in_progress_key_prefix, job_key_prefix
from typer.testing import CliRunner

from adapters.runtime.composition import Runtime
from jobs import admin
from jobs.cron import cron_jobs, purge, reconcile
from jobs.queue import QUEUE
from jobs.tasks import send_reminder
from jobs.worker import DEAD_LETTER
from memory.models import Fact, FactStatus, Kind, Scope, utcnow
from tests.clock import JobSchedule
from tests.jobs_helpers import (
    ScriptedProvider,
    Start,
    TimedNotifier,
    ctx,
    feed,
    flush_db,
    posted,
    promise,
    remind_id,
    result,
    settings,
    wait_for,
)

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.usefixtures("hash_embedder")


# --- reminders ---------------------------------------------------------------------------------


async def test_reminder_fires_once_at_its_time(tmp_path: Path, redis_url: str, start: Start) -> None:
    provider, notifier = ScriptedProvider(), TimedNotifier()
    rt = await start(settings(tmp_path, redis_url), provider=provider, notifier=notifier)
    tenant = "console:once"
    due = utcnow() + timedelta(hours=1)  # never reached: the test moves the job's schedule instead
    await feed(rt, provider, promise(tenant, "thread-1", "m1", "u-zhang", "张伟", "send the draft", due))
    await rt.drain(30)

    [fact] = await rt.memory.open_commitments(Scope(tenant=tenant))
    assert fact.due_at is not None and abs((fact.due_at - due).total_seconds()) < 0.01
    schedule = JobSchedule(rt.redis)
    [(job_id, when)] = (await schedule.deferred("remind:")).items()
    assert job_id == remind_id(fact) and abs((when - due).total_seconds()) < 0.002  # arq scores in whole ms
    assert await schedule.run_due(due - timedelta(seconds=1), "remind:") == []  # not before its time
    assert notifier.posts == []
    assert await schedule.run_due(due, "remind:") == [job_id]
    # The job queues the post; the process connected to the platform delivers it.
    assert await result(rt, remind_id(fact), timeout=30) == "queued"
    await wait_for(lambda: posted(notifier, 1), 30, "the follow-up to be delivered")

    [(scope, text, mention)] = notifier.posts
    assert scope == Scope(tenant=tenant, session="thread-1")
    assert mention == "u-zhang"
    assert "send the draft" in text
    await wait_for(lambda: _reminded(rt, tenant, fact.id), 30, "the delivery to be recorded")
    stored = await rt.memory.get(Scope(tenant=tenant), fact.id)
    assert stored is not None and len(stored.reminders_sent) == 1 and stored.version == fact.version

    # Running the job again posts nothing — with the outbox record, and without it (the store remembers).
    assert await send_reminder(ctx(rt), tenant, fact.id, fact.version) == "already sent"
    await rt.redis.delete(f"heyan:outbox:post:{remind_id(fact)}")
    assert await send_reminder(ctx(rt), tenant, fact.id, fact.version) == "already sent"
    assert (await reconcile(ctx(rt))).scheduled == 0
    await rt.deliver_now()
    assert len(notifier.posts) == 1


async def _reminded(rt: Runtime, tenant: str, fact_id: str) -> bool:
    fact = await rt.memory.get(Scope(tenant=tenant), fact_id)
    return fact is not None and bool(fact.reminders_sent)


async def test_commitment_done_before_its_time_sends_nothing(
    tmp_path: Path, redis_url: str, start: Start
) -> None:
    provider, notifier = ScriptedProvider(), TimedNotifier()
    rt = await start(settings(tmp_path, redis_url), provider=provider, notifier=notifier)
    tenant = "console:done"
    due = utcnow() + timedelta(hours=1)
    await feed(rt, provider, promise(tenant, "t", "m1", "u-li", "李娜", "refund the deposit", due))
    await rt.drain(30)
    [fact] = await rt.memory.open_commitments(Scope(tenant=tenant))
    await rt.memory.set_status(Scope(tenant=tenant), fact.id, FactStatus.DONE)

    assert await JobSchedule(rt.redis).run_due(due, "remind:") == [remind_id(fact)]  # its time comes
    assert await result(rt, remind_id(fact), timeout=30) == "skipped: done"
    await rt.deliver_now()
    assert notifier.posts == []
    assert (await reconcile(ctx(rt))).scheduled == 0


# --- a worker killed mid-job -------------------------------------------------------------------


async def test_job_of_a_killed_worker_completes_later_without_duplicates(
    tmp_path: Path, redis_url: str, start: Start
) -> None:
    s = settings(tmp_path, redis_url)
    marker = tmp_path / "extraction-started"
    tenant, session = "console:kill", "t"
    msg, cand = promise(tenant, session, "m1", "u-wang", "王芳", "share the budget", utcnow() + timedelta(days=2))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # its stderr is inherited: pytest shows it if the worker dies
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.jobs_helpers", "worker", str(tmp_path), redis_url, str(marker),
        cwd=ROOT, env=env, stdout=asyncio.subprocess.DEVNULL,
    )
    try:
        # The job is enqueued from here (Redis only: the store belongs to the worker process).
        from bot.conversation import MessageLog
        from jobs.queue import JobQueue, connect

        pool = await connect(redis_url)
        try:
            await MessageLog(pool).append(msg)
            assert await JobQueue(pool).extract(Scope(tenant=tenant, session=session), [msg.id])
            deadline = time.monotonic() + 30
            while not marker.exists():
                assert proc.returncode is None, "the worker process died"
                assert time.monotonic() < deadline, "the worker never started the extraction"
                await asyncio.sleep(0.05)
            in_progress = [k async for k in pool.scan_iter(match=f"{in_progress_key_prefix}extract:*")]
            assert len(in_progress) == 1
            proc.send_signal(signal.SIGKILL)  # mid-job: the provider call is still sleeping
            assert await asyncio.wait_for(proc.wait(), 10) == -signal.SIGKILL
            job_id = in_progress[0].decode().removeprefix(in_progress_key_prefix)
            assert await pool.zscore(QUEUE, job_id) is not None  # still queued, owned by nobody
            # Nobody renews the dead worker's claim: it lapses after arq's in-progress timeout (the
            # job timeout, its grace and 10 s). Time passes here by expiring it, not by waiting for it.
            ttl_ms = await pool.pttl(in_progress[0])
            assert 0 < ttl_ms <= 60_000
            await pool.pexpire(in_progress[0], 1)
        finally:
            await pool.aclose()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

    # A new process on the same data dir and Redis finishes the job once arq's in-progress key expires.
    provider = ScriptedProvider()
    provider.script[msg.id] = [cand]
    rt = await start(s, provider=provider, notifier=TimedNotifier())
    assert await result(rt, job_id, timeout=30) == 1
    assert provider.calls == 1
    facts = await rt.memory.list_facts(Scope(tenant=tenant))
    assert [(f.kind, f.subject, f.attribute) for f in facts] == [(Kind.COMMITMENT, "u-wang", "share the budget")]
    assert await rt.redis.exists(job_key_prefix + remind_id(facts[0]))  # its reminder is queued

    # The same job run again (arq may run a job twice) changes nothing.
    assert await result_of_rerun(rt, tenant, session, msg.id) == 0
    assert await rt.memory.store.count("facts", Scope(tenant=tenant)) == 1


async def result_of_rerun(rt: Runtime, tenant: str, session: str, message_id: str) -> int:
    from jobs.tasks import extract_memories

    return await extract_memories(ctx(rt), tenant, session, [message_id])


# --- Redis lost --------------------------------------------------------------------------------


async def test_reconcile_rebuilds_reminders_after_flushdb(tmp_path: Path, redis_url: str, start: Start) -> None:
    provider, notifier = ScriptedProvider(), TimedNotifier()
    s = settings(tmp_path, redis_url)
    rt = await start(s, provider=provider, notifier=notifier, worker=False)
    tenant = "console:flush"
    soon = utcnow() + timedelta(hours=1)  # reached by moving the schedule (tests/clock.py), not by waiting
    past = utcnow() - timedelta(hours=1)
    later = utcnow() + timedelta(days=3)
    await feed(
        rt,
        provider,
        promise(tenant, "a", "m1", "u-zhang", "张伟", "send the draft", soon),
        promise(tenant, "b", "m2", "u-li", "李娜", "call the landlord", past),
        promise(tenant, "a", "m3", "u-wang", "王芳", "book the room", later),
    )
    from jobs.tasks import extract_memories

    for sess, mid in (("a", "m1"), ("b", "m2"), ("a", "m3")):
        await extract_memories(ctx(rt), tenant, sess, [mid])
    facts = await rt.memory.open_commitments(Scope(tenant=tenant))
    assert len(facts) == 3
    keys = [job_key_prefix + remind_id(f) for f in facts]
    assert await rt.redis.exists(*keys) == 3

    await asyncio.to_thread(flush_db, redis_url)  # Redis loses everything
    assert await rt.redis.exists(*keys) == 0
    assert (await admin.status(rt.redis)).deferred == 0

    before = time.time()
    report = await reconcile(ctx(rt))
    assert (report.open_commitments, report.scheduled, report.overdue) == (3, 3, 1)
    assert await rt.redis.exists(*keys) == 3
    for f in facts:  # each deferred to its due time (one already past: to now)
        score = await rt.redis.zscore(QUEUE, remind_id(f))
        assert f.due_at is not None and score is not None
        assert abs(score / 1000 - max(f.due_at.timestamp(), before)) < 1
    overdue = await rt.memory.get(Scope(tenant=tenant), facts[0].id)  # soonest due first: the past one
    assert overdue is not None and overdue.version == 1 and overdue.status is FactStatus.ACTIVE  # nothing written
    assert overdue.status_at(utcnow()) is FactStatus.OVERDUE  # overdue is read from the clock
    again = await reconcile(ctx(rt))
    assert again.scheduled == 0  # queued already: a no-op
    assert (again.open_commitments, again.opened) == (3, 0)  # incremental: nothing changed, nothing opened

    # The worker (with its own reconcile at startup) sends the due ones, each once.
    assert remind_id(facts[1]) in await JobSchedule(rt.redis).run_due(soon)
    rt.start_worker()
    for f in facts[:2]:
        assert await result(rt, remind_id(f), timeout=30) == "queued"
    await wait_for(lambda: posted(notifier, 2), 30, "two follow-ups")
    for f in facts[:2]:
        await wait_for(lambda f=f: _reminded(rt, tenant, f.id), 30, "the deliveries to be recorded")
    assert sorted(m for _, _, m in notifier.posts) == ["u-li", "u-zhang"]

    # Lose Redis again: nothing already sent is rebuilt; the later one is.
    await asyncio.to_thread(flush_db, redis_url)
    report = await reconcile(ctx(rt))
    assert report.scheduled == 1
    assert await rt.redis.exists(job_key_prefix + remind_id(facts[2])) == 1
    await rt.deliver_now()
    assert len(notifier.posts) == 2


# --- poison jobs -------------------------------------------------------------------------------


async def test_poison_job_is_dead_lettered_and_can_be_retried(
    tmp_path: Path, redis_url: str, start: Start
) -> None:
    provider = ScriptedProvider()
    provider.fail.add("poison")
    rt = await start(settings(tmp_path, redis_url, max_tries=2), provider=provider, notifier=TimedNotifier())
    tenant = "console:poison"
    later = utcnow() + timedelta(days=1)
    bad = promise(tenant, "poison", "m1", "u-zhang", "张伟", "send the draft", later)
    good = promise(tenant, "fine", "m2", "u-li", "李娜", "call the landlord", later)
    await feed(rt, provider, bad, good)

    async def dead() -> bool:
        await JobSchedule(rt.redis).skip(timedelta(minutes=10), "extract:")  # no waiting out the retry's backoff
        return bool(await rt.redis.llen(DEAD_LETTER))

    await wait_for(dead, 60, "the dead letter")
    [entry] = await admin.dead_letters(rt.redis, rt.services.dead_letters)
    assert entry.function == "extract_memories" and entry.tries == 2
    assert entry.job_id.startswith(f"extract:{tenant}:poison:")
    # the error's message may quote members: sealed in the entry, shown to whoever holds the keys
    assert "scripted failure" not in entry.raw and "scripted failure" in entry.detail
    assert entry.error.startswith("ProviderError")
    assert list(entry.args) == [tenant, "poison", ["m1"]]
    # the other job went through meanwhile
    assert [f.subject for f in await rt.memory.list_facts(Scope(tenant=tenant))] == ["u-li"]
    st = await admin.status(rt.redis)
    assert st.dead == 1 and st.in_progress == 0

    provider.fail.clear()  # the provider is fixed; retry the dead job under a new id
    assert await admin.retry_dead(rt.redis, "no-such-job") == 0
    assert await admin.retry_dead(rt.redis, entry.job_id) == 1
    assert await admin.dead_letters(rt.redis) == []
    assert await result(rt, f"{entry.job_id}:retry1", timeout=10) == 1
    assert sorted(f.subject for f in await rt.memory.list_facts(Scope(tenant=tenant))) == ["u-li", "u-zhang"]


# --- purge -------------------------------------------------------------------------------------


async def test_purge_removes_expired_facts_only(tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=ScriptedProvider(), worker=False)
    now = utcnow()

    def fact(tenant: str, attribute: str, expires: timedelta | None) -> Fact:
        return Fact(tenant=tenant, session="t", kind=Kind.EMOTION, subject="u-1", attribute=attribute,
                    value="upset", asserted_by="u-1", expires_at=now + expires if expires else None)

    await rt.memory.remember([fact("console:p1", "feels", -timedelta(minutes=1)),
                              fact("console:p1", "feels about rent", timedelta(days=1))])
    await rt.memory.remember([fact("console:p2", "feels", -timedelta(seconds=1)),
                              fact("console:p2", "feels about noise", None)])

    assert await purge(ctx(rt)) == {"console:p1": 1, "console:p2": 1}
    left = {t: [f.attribute for f in await rt.memory.list_facts(Scope(tenant=t))]
            for t in ("console:p1", "console:p2")}
    assert left == {"console:p1": ["feels about rent"], "console:p2": ["feels about noise"]}
    assert await purge(ctx(rt)) == {}


# --- wiring ------------------------------------------------------------------------------------


def test_cron_schedule_follows_settings(tmp_path: Path) -> None:
    jobs = {j.name: j for j in cron_jobs(settings(tmp_path, "redis://unused", reconcile_minutes=15))}
    assert set(jobs) == {"reconcile", "purge"}
    assert jobs["reconcile"].minute == {0, 15, 30, 45} and jobs["reconcile"].run_at_startup
    assert jobs["reconcile"].unique and jobs["purge"].unique
    assert isinstance(jobs["purge"].minute, int)
    # the standalone worker (`heyan worker`) runs them too
    from adapters.runtime.worker import standalone_settings

    assert {j.name for j in standalone_settings(settings(tmp_path, "redis://unused"))["cron_jobs"]} == {
        "reconcile", "purge", "post_digests"}  # and the moderators' digest check (issue 22)


def test_standalone_worker_reads_job_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """`heyan worker` builds its arq settings from HEYAN_JOBS_* when it starts, not at import, and
    runs the worker the doorbell wakes."""
    import adapters.runtime.worker
    from adapters.cli.app import app
    from jobs.worker import DoorbellWorker

    captured: list[DoorbellWorker] = []
    monkeypatch.setattr(DoorbellWorker, "run", lambda self: captured.append(self))
    for name, value in {"REDIS_URL": "redis://127.0.0.1:6399/3", "JOBS_RECONCILE_MINUTES": "20",
                        "JOBS_MAX_TRIES": "7", "JOBS_JOB_TIMEOUT": "33", "QDRANT_URL": "http://127.0.0.1:1"}.items():
        monkeypatch.setenv(f"HEYAN_{name}", value)
    out = CliRunner().invoke(app, ["worker"])
    assert out.exit_code == 0, out.output
    [worker] = captured
    # arq's tries: one above ours; arq's timeout a few seconds above ours (ours retries and dead-letters)
    assert worker.job_timeout_s == 38 and worker.max_tries == 8
    tasks = [worker.functions[n] for n in ("extract_memories", "extract_idle", "summarize_session",
                                             "send_reminder", "forget_user", "purge_tenant")]
    assert {(f.max_tries, f.timeout_s) for f in tasks} == {(8, 38)}
    [reconcile_job] = [j for j in worker.cron_jobs if j.name == "reconcile"]
    assert reconcile_job.minute == {0, 20, 40}
    assert worker.redis_settings.port == 6399 and worker.redis_settings.database == 3
    # `arq adapters.runtime.worker.WorkerSettings` reads the environment when it is looked up, too
    monkeypatch.setenv("HEYAN_JOBS_JOB_TIMEOUT", "44")
    assert adapters.runtime.worker.WorkerSettings["job_timeout"] == 49


def test_cli_status_and_dead_letter(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import redis as sync_redis

    from adapters.cli.app import app

    r = sync_redis.Redis.from_url(redis_url)
    try:
        r.rpush(DEAD_LETTER, json.dumps({"job_id": "extract:x:y:1", "function": "forget_user",
                                         "args": ["console:cli", "nobody"], "error": "Boom", "tries": 2,
                                         "at": "2025-01-01T00:00:00+00:00"}))
        r.zadd(QUEUE, {"deferred-job": int(time.time() * 1000) + 3_600_000})
        monkeypatch.setenv("HEYAN_REDIS_URL", redis_url)
        runner = CliRunner()
        out = runner.invoke(app, ["jobs", "status", "--json"])
        assert out.exit_code == 0, out.output
        assert json.loads(out.output) == {"ready": 0, "deferred": 1, "in_progress": 0, "dead": 1, "outbox": []}
        out = runner.invoke(app, ["jobs", "dead-letter", "--json"])
        assert out.exit_code == 0, out.output
        listed = json.loads(out.output)
        [dead] = listed["jobs"]
        assert dead["job_id"] == "extract:x:y:1" and dead["error"] == "Boom"
        assert listed["posts"] == []
        out = runner.invoke(app, ["jobs", "dead-letter", "--all", "--json"])
        assert out.exit_code == 0, out.output
        assert json.loads(out.output) == {"retried": 1}
        assert r.llen(DEAD_LETTER) == 0
        assert r.exists(job_key_prefix + "extract:x:y:1:retry1")
        out = runner.invoke(app, ["jobs", "dead-letter", "--retry", "gone"])
        assert out.exit_code == 2
    finally:
        r.close()
