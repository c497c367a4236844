"""Upkeep of the embedded store that is not a store operation: when to optimize, and write counts.

``Optimizer`` runs ``EdgeStore``'s optimization (Edge never does by itself) in the background after
``after`` points written, after a write once ``every`` seconds passed, and at open; one at a time.
``Generations`` counts writes per tenant for ``memory.recall.cache``. Measured: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

__all__ = ["OPTIMIZE_AFTER", "OPTIMIZE_EVERY", "Generations", "Optimizer"]

log = logging.getLogger(__name__)

#: Points written (upserted or deleted) after which an optimization starts in the background: a bulk
#: write. Below it, small writes go to an appendable segment that stays cheap to search.
OPTIMIZE_AFTER = 2_000
#: Seconds after which any write starts an optimization in the background (the schedule): an
#: unmerged trickle of extraction writes is folded in at most this long after it began.
OPTIMIZE_EVERY = 600.0


class Optimizer:
    """Runs ``run`` (the store's blocking-in-a-thread optimize, True if anything changed) when due.

    ``after`` <= 0 turns background runs off (the owner calls ``optimize()``: benches measuring an
    unoptimized store)."""

    def __init__(self, run: Callable[[], Awaitable[bool]], name: str, *, after: int = OPTIMIZE_AFTER,
                 every: float = OPTIMIZE_EVERY, clock: Callable[[], float] = time.monotonic) -> None:
        self._run = run
        self.name = name
        self.after = after
        self.every = every
        self._clock = clock
        self._written = 0  # points written since the last optimization began
        self._last = clock()
        self._task: asyncio.Task[bool] | None = None
        self._lock = asyncio.Lock()
        #: Optimizations that ran (background or called), and those that changed segments.
        self.runs = 0
        self.changed = 0

    async def optimize(self) -> bool:
        """Optimize now; a call during a background run waits for it, then runs."""
        async with self._lock:
            self._written = 0
            self._last = self._clock()
            changed = await self._run()
            self.runs += 1
            self.changed += changed
            return changed

    @property
    def task(self) -> asyncio.Task[bool] | None:
        return self._task

    async def wait(self) -> None:
        """Wait for the background optimization, if one is running."""
        if self._task is not None:
            await asyncio.shield(self._task)

    def wrote(self, n: int) -> None:
        """``n`` points were written: start a background run if one is due."""
        self._written += n
        if self.after <= 0:
            return
        if self._written >= self.after or self._clock() - self._last >= self.every:
            self.start()

    def start(self) -> None:
        """Start a background run unless one is running (or no loop runs: the next write does it)."""
        if self.after <= 0 or (self._task is not None and not self._task.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._task = loop.create_task(self._background(), name=f"optimize {self.name}")

    async def _background(self) -> bool:
        started = time.perf_counter()
        try:
            changed = await self.optimize()
        except Exception as exc:  # a failure while closing is the closer's to report
            log.warning("background optimization of the memory store failed: %s", exc)
            return False
        if changed:
            log.info("memory store optimized in %.2fs", time.perf_counter() - started)
        return changed


class Generations:
    """Writes per tenant since the store opened; a recall cached at one count is stale at the next."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def __call__(self, tenant: str) -> int:
        return self._counts.get(tenant, 0)

    def bump(self, tenant: str) -> None:
        self._counts[tenant] = self._counts.get(tenant, 0) + 1
