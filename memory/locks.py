"""Locks around a record's read-modify-write, so two writers never interleave on one record.

``MemoryService`` changes a record only under its lock, applied to the version stored *now*: no
rollback of a moderator's edit, no write over a deleted record. ``LocalLocks`` serves one process,
``bot.locking.locks.RedisLocks`` all of them. A ``Held`` lock's ``ensure()`` right before the write raises
``LockLost`` when it is no longer its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Protocol, runtime_checkable

from memory.errors import HeyanError

__all__ = ["HELD", "Held", "LocalLocks", "LockLost", "LockTimeout", "Locks"]


class LockTimeout(HeyanError, TimeoutError):
    """A record stayed locked longer than a writer may wait; the job retries later."""


class LockLost(HeyanError, RuntimeError):
    """A writer found, just before writing, that its lock was no longer its own: nothing was
    written (the job retries and reads the record again)."""


@runtime_checkable
class Held(Protocol):
    """A lock being held."""

    async def ensure(self) -> None:
        """Raise ``LockLost`` unless the lock is still the holder's (and keep it a while longer)."""
        ...


class _AlwaysHeld:
    """An in-process lock cannot be taken from its holder."""

    async def ensure(self) -> None:
        return None

    def __repr__(self) -> str:
        return "HELD"


#: The ``Held`` of a lock nobody can take away (``LocalLocks``).
HELD: Held = _AlwaysHeld()


@runtime_checkable
class Locks(Protocol):
    """Mutual exclusion by key, acquired in a fixed order when several keys are held."""

    def hold(self, keys: Sequence[str]) -> contextlib.AbstractAsyncContextManager[Held]: ...


class LocalLocks:
    """In-process locks: one ``asyncio.Lock`` per key (dropped when no one holds or waits for it)."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}

    @contextlib.asynccontextmanager
    async def hold(self, keys: Sequence[str]) -> AsyncIterator[Held]:
        ordered = sorted(set(keys))
        for key in ordered:
            self._users[key] = self._users.get(key, 0) + 1
        taken: list[asyncio.Lock] = []
        try:
            for key in ordered:
                lock = self._locks.setdefault(key, asyncio.Lock())
                await lock.acquire()
                taken.append(lock)
            yield HELD
        finally:
            for lock in reversed(taken):
                lock.release()
            for key in ordered:
                self._users[key] -= 1
                if not self._users[key]:
                    del self._users[key]
                    self._locks.pop(key, None)
