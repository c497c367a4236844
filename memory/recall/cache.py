"""A recall cache: the same question in the same place, asked again before anything changed, is
answered from memory instead of the store.

Keyed by scope, queries, ``k`` and the day; an entry lives ``ttl`` seconds and is dropped once its
tenant's write generation moves. Only the embedded store sees every write, so with a Qdrant server
the cache is off (``RecallCache.for_store`` returns None). LRU within ``size``.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from memory.models import Scope

__all__ = ["CACHE_SIZE", "CACHE_TTL", "Generations", "RecallCache"]

#: Seconds an answer is reused at most (the seed's 5 minutes).
CACHE_TTL = 300.0
#: Entries kept (a recall holds a summary and k facts: a few KB each).
CACHE_SIZE = 512


@runtime_checkable
class Generations(Protocol):
    """A store that counts its writes per tenant (every write of the process goes through it)."""

    def generation(self, tenant: str) -> int: ...


@dataclass(slots=True)
class _Entry:
    value: Any
    generation: int
    expires: float


class RecallCache:
    """Recall results by (scope, queries, k, day), valid while their tenant is unwritten and young."""

    def __init__(self, store: Generations, *, ttl: float = CACHE_TTL, size: int = CACHE_SIZE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.ttl = ttl
        self.size = size
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self.stale = 0  # misses because the tenant was written since, or the entry aged out
        self._entries: OrderedDict[tuple[Any, ...], _Entry] = OrderedDict()

    @classmethod
    def for_store(cls, store: object, **options: Any) -> RecallCache | None:
        """A cache for ``store`` if it counts its writes (the embedded store), else None."""
        return cls(store, **options) if isinstance(store, Generations) else None

    def __repr__(self) -> str:
        return f"RecallCache(ttl={self.ttl}, size={self.size}, hits={self.hits}, misses={self.misses})"

    @staticmethod
    def key(scope: Scope, queries: Sequence[str], k: int | None, now: datetime) -> tuple[Any, ...]:
        return (scope.tenant, scope.session, scope.user, tuple(q.strip() for q in queries), k, now.date())

    def get(self, key: tuple[Any, ...]) -> Any | None:
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        if entry.generation != self.store.generation(key[0]) or entry.expires <= self.clock():
            del self._entries[key]
            self.misses += 1
            self.stale += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return entry.value

    def put(self, key: tuple[Any, ...], value: Any, generation: int) -> None:
        """Keep ``value``, filled when the tenant was at ``generation`` (read before the recall ran, so
        a write during it makes the entry stale at once)."""
        self._entries[key] = _Entry(value, generation, self.clock() + self.ttl)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    @property
    def hit_rate(self) -> float:
        asked = self.hits + self.misses
        return self.hits / asked if asked else 0.0
