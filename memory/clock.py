"""The current time: one clock for the whole process.

It is the system clock unless something moves it: a script replay runs on its script's time, and
``heyan --now`` shows the memory as of another time. Moving it sets an offset from the system clock,
so it keeps running. Schedulers outside the process (arq scores jobs by wall-clock milliseconds)
are given wall-clock times through ``wall``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

__all__ = ["now", "offset", "run_from", "set_now", "set_offset", "wall"]

_offset = timedelta(0)


def now() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC) + _offset


def offset() -> timedelta:
    """How far the process clock is from the system clock."""
    return _offset


def set_offset(value: timedelta) -> None:
    global _offset
    _offset = value


def set_now(when: datetime | None) -> None:
    """Run the process clock on from ``when`` (a naive time is UTC); ``None``: the system clock."""
    if when is None:
        set_offset(timedelta(0))
        return
    set_offset((when if when.tzinfo else when.replace(tzinfo=UTC)) - datetime.now(UTC))


def wall(when: datetime) -> datetime:
    """``when`` on the system clock, for a scheduler outside this process."""
    return when - _offset


@contextmanager
def run_from(when: datetime | None) -> Iterator[None]:
    """The process clock runs on from ``when`` inside the block, then goes back to where it was."""
    before = _offset
    set_now(when)
    try:
        yield
    finally:
        set_offset(before)
