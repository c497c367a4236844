"""Prometheus metrics and a health endpoint, on the opt-in port ``HEYAN_METRICS_PORT``.

``/healthz`` answers 200 while the event loop runs and Redis answers a PING within two seconds, else
503; it is served on the process's own loop (aiohttp), so an answer proves the loop is not stuck.
Redis-backed metrics are read at scrape time; the engine is only wrapped (``instrument_engine``),
never patched. The metrics: docs/DEPLOY.md, "Operations".
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector
from redis.asyncio import Redis

from bot.delivery.outbox import Outbox
from jobs.admin import status
from jobs.queue import QUEUE
from jobs.worker import DEAD_LETTER

__all__ = ["Metrics", "ObservabilityServer", "instrument_engine", "start_observability"]

log = logging.getLogger(__name__)

#: Reply latency buckets (seconds): offline replies take ~10-50 ms, LLM replies seconds.
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: A health check that cannot reach Redis within this long reports the process unhealthy.
_PING_TIMEOUT = 2.0
#: How far into the queue to look for the oldest extraction job (jobs are scored by due time).
_LAG_SCAN = 500


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class _LLMUsage(Collector):
    """Counters read from the provider's ``usage`` at scrape time (no hook in the provider needed)."""

    def __init__(self, provider: Any) -> None:
        self._provider = provider

    def _usage(self) -> dict[str, Any]:
        provider = self._provider
        for _ in range(3):  # FallbackProvider(primary=OpenAIProvider, ...)
            usage = getattr(provider, "usage", None)
            if isinstance(usage, dict):
                return usage
            provider = getattr(provider, "primary", None)
            if provider is None:
                break
        return {}

    def collect(self) -> Iterator[Metric]:
        calls = CounterMetricFamily("heyan_llm_calls", "LLM requests answered, by tier and task", labels=["tier", "task"])
        tokens = CounterMetricFamily("heyan_llm_tokens", "LLM tokens by tier and kind", labels=["tier", "kind"])
        totals: dict[tuple[str, str], int] = {}
        for task, usage in sorted(self._usage().items()):
            tier = "reply" if task == "reply" else "fast"
            calls.add_metric([tier, task], usage.calls)
            for kind in ("prompt", "completion"):
                totals[(tier, kind)] = totals.get((tier, kind), 0) + getattr(usage, f"{kind}_tokens")
        for (tier, kind), value in sorted(totals.items()):
            tokens.add_metric([tier, kind], value)
        yield calls
        yield tokens
        fallbacks = CounterMetricFamily("heyan_llm_fallbacks", "Calls the offline provider answered because the "
                                        "LLM failed, by task", labels=["task"])
        for task, n in sorted(dict(getattr(self._provider, "fallbacks", None) or {}).items()):
            fallbacks.add_metric([task], n)
        yield fallbacks


class Metrics:
    """Heyan's metric definitions in a registry of their own (so tests and two runtimes never clash)."""

    def __init__(self, redis: Redis, provider: Any = None) -> None:
        self.redis = redis
        self.registry = CollectorRegistry()
        r = self.registry
        self.reply_seconds = Histogram("heyan_reply_seconds", "Engine.respond: a reply, end to end", buckets=_BUCKETS,
                                       registry=r)
        self.message_seconds = Histogram("heyan_message_seconds", "Engine.handle: one message (and its reply)",
                                         buckets=_BUCKETS, registry=r)
        self.queue_jobs = Gauge("heyan_queue_jobs", "Jobs in the arq queue", ["state"], registry=r)
        self.dead_letters = Gauge("heyan_dead_letter_jobs", "Jobs that failed their last try", registry=r)
        self.extraction_lag = Gauge("heyan_extraction_lag_seconds",
                                    "Age of the oldest due extraction job still queued", registry=r)
        self.outbox_posts = Gauge("heyan_outbox_posts", "Outbox posts per platform and state", ["platform", "state"],
                                  registry=r)
        self.outbox_lag = Gauge("heyan_outbox_lag_seconds", "Age of the oldest due, unsent post", ["platform"],
                                registry=r)
        self.scrape_errors = Gauge("heyan_metrics_refresh_failed", "1 when the last Redis read for /metrics failed",
                                   registry=r)
        if provider is not None:
            r.register(_LLMUsage(provider))

    async def refresh(self) -> None:
        """Read the Redis-backed values (queue, dead letters, extraction and outbox lag)."""
        redis = self.redis
        q = await status(redis)  # type: ignore[arg-type]
        for state, value in (("ready", q.ready), ("deferred", q.deferred), ("running", q.in_progress)):
            self.queue_jobs.labels(state).set(value)
        self.dead_letters.set(await redis.llen(DEAD_LETTER))  # type: ignore[misc]
        now_ms = time.time() * 1000
        due = await redis.zrangebyscore(QUEUE, "-inf", now_ms, start=0, num=_LAG_SCAN, withscores=True)
        oldest = next((score for job, score in due if _text(job).startswith("extract:")), None)
        self.extraction_lag.set(max(0.0, (now_ms - oldest) / 1000) if oldest is not None else 0.0)
        for stats in await Outbox(redis).stats():
            for state in ("ready", "waiting", "leased", "dead"):
                self.outbox_posts.labels(stats.platform, state).set(getattr(stats, state))
            # The outbox's key layout (bot/delivery/outbox.py): ready posts scored by the ms they may go from.
            first = await redis.zrangebyscore(f"heyan:outbox:{stats.platform}:ready", "-inf", now_ms,
                                              start=0, num=1, withscores=True)
            self.outbox_lag.labels(stats.platform).set(max(0.0, (now_ms - first[0][1]) / 1000) if first else 0.0)

    async def healthy(self) -> tuple[bool, dict[str, str]]:
        try:
            await asyncio.wait_for(self.redis.ping(), _PING_TIMEOUT)
        except Exception as exc:
            return False, {"status": "unhealthy", "redis": f"{type(exc).__name__}: {exc}"}
        return True, {"status": "ok", "redis": "ok"}


def _timed(histogram: Histogram, call: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(call)
    async def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await call(*args, **kwargs)
        finally:
            histogram.observe(time.perf_counter() - started)

    return timed


def instrument_engine(engine: Any, metrics: Metrics) -> None:
    """Time ``engine.handle`` and ``engine.respond`` into the histograms, on this instance only.

    ``Engine.handle`` calls ``self.respond``, which finds the instance attribute first, so a reply
    reached through ``handle`` is timed in both. (An in-core hook would be cleaner: see DEPLOY.md.)
    """
    if getattr(engine, "_heyan_instrumented", False):
        return
    engine.respond = _timed(metrics.reply_seconds, engine.respond)
    engine.handle = _timed(metrics.message_seconds, engine.handle)
    engine._heyan_instrumented = True


class ObservabilityServer:
    """``/metrics`` and ``/healthz`` over aiohttp on the running event loop."""

    def __init__(self, metrics: Metrics, *, host: str = "0.0.0.0", port: int = 9108) -> None:
        self.metrics = metrics
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    def __repr__(self) -> str:
        return f"ObservabilityServer(host={self.host!r}, port={self.port})"

    async def _metrics(self, request: web.Request) -> web.Response:
        try:
            await self.metrics.refresh()
            self.metrics.scrape_errors.set(0)
        except Exception as exc:  # still serve what we have: a scrape must not fail with Redis
            log.warning("metrics: cannot read the queue from Redis: %s", exc)
            self.metrics.scrape_errors.set(1)
        body = generate_latest(self.metrics.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _health(self, request: web.Request) -> web.Response:
        ok, body = await self.metrics.healthy()
        return web.Response(status=200 if ok else 503, text=json.dumps(body), content_type="application/json")

    async def start(self) -> int:
        """Serve; returns the port (useful with port 0)."""
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._health)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        self._runner = runner
        sockets = getattr(site._server, "sockets", None) or []
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        log.info("metrics and health on http://%s:%d/metrics, /healthz", self.host, self.port)
        return self.port

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()


async def start_observability(
    port: int | None, redis: Redis, *, provider: Any = None, engine: Any = None, host: str = "0.0.0.0"
) -> ObservabilityServer | None:
    """Start the server when ``port`` (``HEYAN_METRICS_PORT``) is set; None when it is not."""
    if port is None:
        return None
    metrics = Metrics(redis, provider)
    if engine is not None:
        instrument_engine(engine, metrics)
    server = ObservabilityServer(metrics, host=host, port=port)
    await server.start()
    return server
