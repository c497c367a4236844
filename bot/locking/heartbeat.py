"""Keeping a lease alive while its holder works.

Locks, answer claims and outbox leases lapse after a TTL so a dead holder frees them; ``keep_alive``
renews one every ``every`` seconds so a live holder never loses it, however slow its work. A renewal
finding it gone or someone else's marks the pulse ``lost`` (the holder must not write); an error is
logged and retried, the holder's final compare-and-set decides. ``sleep`` is the seam for fake clocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

__all__ = ["Pulse", "Sleep", "beat", "keep_alive"]

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


class Pulse:
    """What the heartbeat learnt: ``lost`` once a renewal found the lease was no longer the holder's."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.lost = False
        self.beats = 0

    def __repr__(self) -> str:
        return f"Pulse({self.what!r}, beats={self.beats}, lost={self.lost})"

    @property
    def held(self) -> bool:
        return not self.lost


async def beat(pulse: Pulse, renew: Callable[[], Awaitable[bool]], every: float, *, sleep: Sleep = asyncio.sleep,
               for_at_most: float | None = None) -> None:
    """Call ``renew()`` every ``every`` seconds until it returns False (``pulse.lost``) or, with
    ``for_at_most``, until that many seconds of beats have passed (the lease is then left to lapse:
    a holder that never finished must not hold forever)."""
    beats_left = None if for_at_most is None else max(1, int(for_at_most // every))
    while beats_left is None or beats_left > 0:
        await sleep(every)
        if beats_left is not None:
            beats_left -= 1
        try:
            held = await renew()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis unreachable for a moment: the next beat tries again
            log.warning("could not renew %s (%s: %s); trying again", pulse.what, type(exc).__name__, exc)
            continue
        pulse.beats += 1
        if not held:
            pulse.lost = True
            log.warning("%s was lost while its holder was still working", pulse.what)
            return
    log.warning("%s was held for %.0f s without finishing; it is left to lapse", pulse.what, for_at_most)


@contextlib.asynccontextmanager
async def keep_alive(renew: Callable[[], Awaitable[bool]], every: float, *, what: str = "lease",
                     sleep: Sleep = asyncio.sleep) -> AsyncIterator[Pulse]:
    """Run ``renew()`` every ``every`` seconds while the body runs; ``renew`` returns False when the
    lease is no longer the holder's (the pulse is then ``lost`` and renewing stops)."""
    pulse = Pulse(what)
    task = asyncio.create_task(beat(pulse, renew, every, sleep=sleep), name=f"heartbeat {what}")
    try:
        yield pulse
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
