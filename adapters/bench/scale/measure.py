"""Small measuring tools shared by the benches: latency summaries, memory and disk readings, and an
embedder wrapper that keeps the time spent embedding apart from the time spent in the store.

These machines are shared and noisy, so every latency is summarised by its median and tail
percentiles over many samples, never by one run or a mean alone.
"""

from __future__ import annotations

import os
import resource
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from memory.ports import Embedder

__all__ = ["TimedEmbedder", "dir_mb", "peak_rss_mb", "percentile", "rss_mb", "rss_split_mb", "summary"]


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0..1) of ``values``; 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(ms: Sequence[float]) -> dict[str, float]:
    """p50/p95/p99 and mean of latencies in milliseconds, rounded for reports."""
    if not ms:
        return {"n": 0, "p50_ms": 0.0, "p95_ms": 0.0, "p99_ms": 0.0, "mean_ms": 0.0}
    return {
        "n": len(ms),
        "p50_ms": round(statistics.median(ms), 3),
        "p95_ms": round(percentile(ms, 0.95), 3),
        "p99_ms": round(percentile(ms, 0.99), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
    }


def rss_mb() -> float:
    """This process's resident memory now, in MiB (Linux ``/proc``; 0.0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def rss_split_mb() -> tuple[float, float]:
    """(anonymous, file-backed) resident memory now, in MiB: what the process allocated (Python
    objects, the model, the store's in-RAM structures) apart from mapped files the kernel can drop
    and read again (the store's segments, libraries). From ``/proc/self/status``; (0, 0) elsewhere."""
    found: dict[str, float] = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("RssAnon", "RssFile"):
                found[key] = int(value.split()[0]) / 1024
    except (OSError, ValueError, IndexError):
        return 0.0, 0.0
    return found.get("RssAnon", 0.0), found.get("RssFile", 0.0)


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MiB (``ru_maxrss`` is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dir_mb(path: Path) -> float:
    """Bytes actually allocated on disk under ``path`` (sparse files count what they use), in MiB."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue  # a file removed while we walk (a WAL segment rotated away) uses no disk
    return total / 2**20


class TimedEmbedder:
    """An ``Embedder`` that forwards to another and adds up the seconds spent embedding.

    The ingest figure includes the batched embedding (what a user waits for); keeping its share
    apart shows how much of it is the store.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.seconds = 0.0
        self.texts = 0
        #: The vectors of the latest call (the bench hands a written batch's vectors to other stores).
        self.last: list[list[float]] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        started = time.perf_counter()
        try:
            self.last = await self.inner.embed(texts)
            return self.last
        finally:
            self.seconds += time.perf_counter() - started
            self.texts += len(texts)

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Queries as the inner embedder embeds them (not counted as ingest)."""
        ask = getattr(self.inner, "embed_queries", None) or self.inner.embed
        vectors: list[list[float]] = await ask(texts)
        return vectors

    def calibrate(self, cosine: float) -> float:
        fn = getattr(self.inner, "calibrate", None)
        return float(fn(cosine)) if fn is not None else cosine
