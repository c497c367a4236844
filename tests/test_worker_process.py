"""The distributed shape: `heyan worker` runs the jobs in its own process; only the process holding the
platform connection posts the follow-up, exactly once, and records it as sent (the store over HTTP by the
Qdrant stand-in, Redis by this run's Valkey, arq's schedule moved by tests/clock.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from arq.jobs import Job
from typer.testing import CliRunner

from adapters.cli.app import app
from adapters.runtime.composition import Runtime
from bot.config.settings import load_settings
from bot.delivery.outbox import PostState
from bot.delivery.reminders import reminder_post_id
from bot.models import Message
from jobs.cron import reconcile
from jobs.queue import QUEUE, deserialize
from jobs.tasks import send_reminder
from memory.models import Kind, Scope, utcnow
from tests.clock import JobSchedule
from tests.jobs_helpers import TimedNotifier, wait_for
from tests.keys import TEST_KEY
from tests.qdrant_standin import QdrantStandIn

ROOT = Path(__file__).resolve().parents[1]
TENANT = "console:worker"


@pytest.fixture
async def shared(tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[dict[str, str]]:
    """The environment both processes read: a shared Redis and a shared Qdrant (the stand-in)."""
    async with QdrantStandIn() as qdrant_url:
        env = {
            "HEYAN_REDIS_URL": redis_url,
            "HEYAN_QDRANT_URL": qdrant_url,
            "HEYAN_QDRANT_PREFIX": "worker_test",
            "HEYAN_DATA_DIR": str(tmp_path / "data"),
            "HEYAN_TIMEZONE": "UTC",
            "HEYAN_JOBS_JOB_TIMEOUT": "30",
            "HEYAN_LOG_LEVEL": "INFO",
            # the distributed shape: every process shares the keys
            "HEYAN_ENCRYPTION_KEYS": TEST_KEY,
        }
        for key in [k for k in os.environ if k.startswith("HEYAN_")]:
            monkeypatch.delenv(key)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        yield env


async def test_worker_queues_and_the_connected_process_delivers_once(shared: dict[str, str]) -> None:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("HEYAN_")}, **shared,
           "PYTHONPATH": str(ROOT)}
    worker = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli.app", "worker", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )
    rt = await Runtime.start(load_settings(), worker=False)  # this process runs no jobs
    try:
        said = utcnow()
        msg = Message(id="w-1", scope=Scope(tenant=TENANT, session="thread-9", user="u-li"), author_name="李娜",
                      text="I will send the signed contract in 10 minutes.", ts=said)
        assert await rt.engine.observe(msg)  # a promise: extraction is queued for the worker

        async def extracted() -> bool:
            found = await rt.memory.open_commitments(Scope(tenant=TENANT))
            return bool(found)

        await wait_for(extracted, 120, "the worker process to extract the promise")
        [fact] = await rt.memory.open_commitments(Scope(tenant=TENANT))
        assert fact.kind is Kind.COMMITMENT and fact.subject == "u-li" and fact.due_at is not None
        post_id = reminder_post_id(fact)
        # deferred to its due time, which comes when the test moves arq's schedule (tests/clock.py); the
        # promise is stored first and its follow-up deferred right after (FollowUpKeeper watches the write)
        schedule = JobSchedule(rt.redis)
        [(job_id, when)] = (await schedule.wait_deferred("remind:", timeout=120)).items()
        assert abs((when - fact.due_at).total_seconds()) < 0.002
        assert await schedule.run_due(fact.due_at, "remind:") == [job_id]
        job = Job(job_id, rt.redis, _queue_name=QUEUE, _deserializer=deserialize)
        # the job has finished: whatever the worker would (wrongly) post or record, it has by now
        assert await job.result(timeout=120, poll_delay=0.1) == "queued"
        record = await rt.outbox.get(post_id)
        assert record is not None and record.state is PostState.PENDING and record.message_id is None
        stored = await rt.memory.get(Scope(tenant=TENANT), fact.id)
        assert stored is not None and stored.reminders_sent == ()  # the worker alone never marks it sent
        status = await asyncio.to_thread(CliRunner().invoke, app, ["jobs", "status", "--json"])
        assert status.exit_code == 0, status.output
        [console] = [o for o in json.loads(status.output)["outbox"] if o["platform"] == "console"]
        assert console["ready"] == 1  # the post waits for the process connected to the console

        platform = TimedNotifier()
        [sender] = [s for s in platform.senders() if s.platform == "console"]
        rt.connect(sender, poll_seconds=0.2)

        async def recorded() -> bool:
            fact_now = await rt.memory.get(Scope(tenant=TENANT), fact.id)
            return fact_now is not None and bool(fact_now.reminders_sent)

        await wait_for(recorded, 60, "the connected process to deliver and record the follow-up")
        [(scope, text, mention)] = platform.posts
        assert scope == Scope(tenant=TENANT, session="thread-9") and mention == "u-li"
        assert "signed contract" in text
        record = await rt.outbox.get(post_id)
        assert record is not None and record.state is PostState.SENT and record.message_id == "console-msg-1"

        # Replays of the reminder and reconciliation change nothing: still one post.
        ctx = {"heyan": rt.services, "redis": rt.redis}
        assert await send_reminder(ctx, TENANT, fact.id, fact.version) == "already sent"
        assert (await reconcile(ctx)).scheduled == 0
        await rt.deliver_now()
        assert len(platform.posts) == 1
    finally:
        await rt.stop()
        if worker.returncode is None:
            worker.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(worker.wait(), 60)
        except TimeoutError:
            worker.kill()
            await worker.wait()
        assert worker.stderr is not None
        log = (await worker.stderr.read()).decode(errors="replace")
        assert "send_reminder" in log, log[-3000:]  # the reminder job ran in the worker process
