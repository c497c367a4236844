"""Issue 14, operations: metrics and /healthz on the opt-in port, the container health check, JSON logs.

The server runs on a real loopback port against this test's own Redis; every Redis-backed metric
is put in place through the same keys the queue and the outbox write. No timing is asserted.
"""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import aiohttp
import pytest
from redis.asyncio import Redis

from adapters.runtime.healthcheck import check
from adapters.runtime.logs import configure_logging
from adapters.runtime.observability import Metrics, ObservabilityServer, instrument_engine
from bot.config.settings import SettingsError, load_settings
from bot.delivery.outbox import Outbox, Post
from bot.llm.openai_provider import TaskUsage
from bot.text.richtext import RichText
from jobs.queue import QUEUE
from jobs.worker import DEAD_LETTER
from memory.models import utcnow


class _Provider:
    """What the collector reads: a FallbackProvider whose primary keeps ``usage`` per task."""

    def __init__(self) -> None:
        self.primary = type("P", (), {})()
        self.primary.usage = {"reply": TaskUsage(2, 900, 80), "extract": TaskUsage(3, 1200, 150),
                              "rewrite": TaskUsage(1, 100, 10)}


@pytest.fixture
async def served(redis_url: str) -> AsyncIterator[tuple[str, Redis, Metrics]]:
    redis = Redis.from_url(redis_url)
    metrics = Metrics(redis, _Provider())
    server = ObservabilityServer(metrics, host="127.0.0.1", port=0)
    port = await server.start()
    try:
        yield f"http://127.0.0.1:{port}", redis, metrics
    finally:
        await server.stop()
        await redis.aclose()


async def _get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


def _value(text: str, sample: str) -> float:
    line = next(ln for ln in text.splitlines() if ln.startswith(sample + " "))
    return float(line.rsplit(" ", 1)[1])


async def test_healthz_answers_ok_with_redis(served: tuple[str, Redis, Metrics]) -> None:
    base, _, _ = served
    status, body = await _get(base + "/healthz")
    assert status == 200 and json.loads(body) == {"status": "ok", "redis": "ok"}


async def test_metrics_read_the_queue_dead_letters_outbox_and_llm_usage(served: tuple[str, Redis, Metrics]) -> None:
    base, redis, _ = served
    now_ms = time.time() * 1000
    await redis.zadd(QUEUE, {"extract:discord:1:thread:abc": now_ms - 30_000, "remind:x:y:1": now_ms + 3_600_000})
    await redis.rpush(DEAD_LETTER, json.dumps({"job_id": "extract:dead", "function": "extract_memories"}))
    outbox = Outbox(redis)
    await outbox.append(Post(id="p1", tenant="discord:1", session="s", body=RichText.of("hi"),
                             created_at=utcnow()), not_before=utcnow() - timedelta(seconds=20))

    status, text = await _get(base + "/metrics")
    assert status == 200
    assert _value(text, 'heyan_queue_jobs{state="ready"}') == 1
    assert _value(text, 'heyan_queue_jobs{state="deferred"}') == 1
    assert _value(text, "heyan_dead_letter_jobs") == 1
    assert 25 <= _value(text, "heyan_extraction_lag_seconds") < 600
    assert _value(text, 'heyan_outbox_posts{platform="discord",state="ready"}') == 1
    assert _value(text, 'heyan_outbox_lag_seconds{platform="discord"}') >= 15
    assert _value(text, 'heyan_llm_tokens_total{kind="prompt",tier="reply"}') == 900
    assert _value(text, 'heyan_llm_tokens_total{kind="prompt",tier="fast"}') == 1300
    assert _value(text, 'heyan_llm_calls_total{task="extract",tier="fast"}') == 3
    assert _value(text, "heyan_metrics_refresh_failed") == 0


async def test_unreachable_redis_fails_health_but_not_the_scrape() -> None:
    redis = Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.5)
    server = ObservabilityServer(Metrics(redis), host="127.0.0.1", port=0)
    port = await server.start()
    try:
        status, body = await _get(f"http://127.0.0.1:{port}/healthz")
        assert status == 503 and json.loads(body)["status"] == "unhealthy"
        status, text = await _get(f"http://127.0.0.1:{port}/metrics")
        assert status == 200 and _value(text, "heyan_metrics_refresh_failed") == 1
    finally:
        await server.stop()
        await redis.aclose()


async def test_instrumented_engine_times_handle_and_respond(redis_url: str) -> None:
    class Engine:
        async def handle(self, msg: Any) -> Any:
            return await self.respond(msg) if msg else None

        async def respond(self, msg: Any) -> str:
            return f"reply to {msg}"

    redis = Redis.from_url(redis_url)
    metrics = Metrics(redis)
    engine = Engine()
    instrument_engine(engine, metrics)
    instrument_engine(engine, metrics)  # idempotent: never timed twice
    assert await engine.handle("hello") == "reply to hello"
    assert await engine.handle("") is None
    await redis.aclose()
    assert metrics.registry.get_sample_value("heyan_message_seconds_count") == 2
    assert metrics.registry.get_sample_value("heyan_reply_seconds_count") == 1


async def test_container_healthcheck_uses_the_port(served: tuple[str, Redis, Metrics]) -> None:
    base, _, _ = served
    port = base.rsplit(":", 1)[1]
    assert await _in_thread(check, port) is None
    assert "HEYAN_METRICS_PORT" in (check(None) or "")
    assert "did not answer" in (await _in_thread(check, "1") or "")


async def _in_thread(fn: Any, *args: Any) -> Any:
    import asyncio

    return await asyncio.to_thread(fn, *args)


def test_metrics_and_log_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEYAN_METRICS_PORT", "9108")
    monkeypatch.setenv("HEYAN_LOG_FORMAT", "json")
    s = load_settings()
    assert s.metrics_port == 9108 and s.log_format == "json"
    monkeypatch.setenv("HEYAN_LOG_FORMAT", "yaml")
    with pytest.raises(SettingsError, match="HEYAN_LOG_FORMAT"):
        load_settings()
    monkeypatch.setenv("HEYAN_LOG_FORMAT", "text")
    monkeypatch.setenv("HEYAN_METRICS_PORT", "70000")
    with pytest.raises(SettingsError, match="HEYAN_METRICS_PORT"):
        load_settings()


def test_json_logs_are_one_object_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEYAN_LOG_FORMAT", "json")
    monkeypatch.setenv("HEYAN_LOG_LEVEL", "INFO")
    root = logging.getLogger()
    before = list(root.handlers), root.level
    # An earlier test's CLI run may have left Heyan's handler on a stream that is closed by now:
    # this test installs its own and puts the others back afterwards.
    for h in before[0]:
        if getattr(h, "_heyan", False):
            root.removeHandler(h)
    try:
        configure_logging(load_settings())
        ours = next(h for h in root.handlers if getattr(h, "_heyan", False))
        assert isinstance(ours, logging.StreamHandler)
        buffer = io.StringIO()
        ours.stream = buffer
        log = logging.getLogger("heyan.test")
        log.info("reply sent to %s", "张伟", extra={"tenant": "discord:1"})
        try:
            raise ValueError("boom\nsecond line")
        except ValueError:
            log.exception("job failed")
        lines = buffer.getvalue().splitlines()
        assert len(lines) == 2  # the traceback stays inside its record
        first, second = (json.loads(line) for line in lines)
        assert first["message"] == "reply sent to 张伟" and first["level"] == "INFO"
        assert first["logger"] == "heyan.test" and first["tenant"] == "discord:1" and "ts" in first
        assert second["level"] == "ERROR" and "ValueError: boom" in second["exc"]
        monkeypatch.setenv("HEYAN_LOG_FORMAT", "text")
        configure_logging(load_settings())  # a second call switches the format back
        buffer2 = io.StringIO()
        ours.stream = buffer2
        log.info("plain")
        assert buffer2.getvalue().strip().endswith("INFO heyan.test: plain")
    finally:
        for h in list(root.handlers):
            if h not in before[0]:
                root.removeHandler(h)
        for h in before[0]:
            if h not in root.handlers:
                root.addHandler(h)
        root.setLevel(before[1])
