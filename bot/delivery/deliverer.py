"""Delivering the outbox: the loop a process runs for each platform connection it holds.

A platform implements ``PostSender`` (send each piece with ``Post.piece_key(i)``, return the message
id or raise ``DeliveryError``). ``Deliverer`` claims due posts as leases, renews them
(``bot.locking.heartbeat``), sends only while the lease is its own, and acknowledges with the token before the
``on_delivered`` hook; a refused acknowledgement runs no hook. ``stop`` finishes the batch in flight;
a cancelled loop gives back unstarted posts. Protocol: docs/RELIABILITY.md, "The protocols in detail".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from bot.delivery.backoff import backoff
from bot.delivery.outbox import Ack, Lease, Outbox, Post
from bot.locking.heartbeat import Sleep, keep_alive
from memory.errors import HeyanError

__all__ = ["Deliverer", "DeliveryError", "OnDelivered", "PostSender"]

log = logging.getLogger(__name__)

OnDelivered = Callable[[Post, str], Awaitable[None]]


class DeliveryError(HeyanError):
    """A post could not be sent. ``permanent``: retrying cannot help (the thread is gone, the bot
    lacks a permission); ``retry_after``: the platform asked to wait this many seconds."""

    def __init__(self, reason: str, *, permanent: bool = False, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.permanent = permanent
        self.retry_after = retry_after


@runtime_checkable
class PostSender(Protocol):
    """One platform connection's way of posting: returns the platform's message id."""

    platform: str

    async def send(self, post: Post) -> str: ...


class Deliverer:
    """Sends one platform's outbox through ``sender``. ``run()`` until cancelled; ``deliver_once()``
    for tests and drains. ``owner`` names this process in its lease tokens."""

    def __init__(
        self,
        outbox: Outbox,
        sender: PostSender,
        *,
        on_delivered: OnDelivered | None = None,
        poll_seconds: float = 0.5,
        lease_seconds: float = 60.0,
        batch: int = 10,
        owner: str = "",
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.outbox = outbox
        self.sender = sender
        self.on_delivered = on_delivered
        self.poll_seconds = poll_seconds
        self.lease_seconds = lease_seconds
        self.batch = batch
        self.owner = owner or secrets.token_hex(4)
        self.sleep = sleep
        # one batch at a time: the loop's and an explicit deliver_once (a drain) take turns, so a drain
        # returns only once what the loop was sending is acknowledged and its hook has run
        self._busy = asyncio.Lock()
        self._stopping = False

    def __repr__(self) -> str:
        return f"Deliverer(platform={self.sender.platform!r}, poll_seconds={self.poll_seconds})"

    async def deliver_once(self) -> int:
        """Send every post that is due now; returns how many the platform accepted. Waits for a batch
        the delivery loop is sending to be finished first."""
        sent = 0
        async with self._busy:
            while not self._stopping:
                leases = await self.outbox.claim(self.sender.platform, limit=self.batch,
                                                 lease_seconds=self.lease_seconds, claimer=self.owner)
                if not leases:
                    break
                sent += await self._deliver_batch(leases)
        return sent

    async def stop(self, task: asyncio.Task[None], *, timeout: float = 10.0) -> None:
        """Stop the delivery loop ``task`` between posts: the batch being sent is finished (its
        acknowledgements and hooks run) for up to ``timeout`` seconds, then the loop is cancelled."""
        self._stopping = True
        if self._busy.locked():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout), self._busy:
                    pass
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _deliver_batch(self, leases: list[Lease]) -> int:
        waiting = list(leases)  # claimed, not finished: the heartbeat renews these
        lost: set[str] = set()

        async def renew() -> bool:
            for lease in list(waiting):
                if not await self.outbox.renew(lease, self.lease_seconds):
                    lost.add(lease.token)
                    waiting.remove(lease)
            return True  # one lost lease does not stop the others' renewal

        sent = 0
        started: Lease | None = None
        try:
            async with keep_alive(renew, self.lease_seconds / 3, what=f"{self.sender.platform} leases",
                                  sleep=self.sleep):
                for lease in leases:
                    if lease.token in lost:
                        log.warning("post %s: lease lost before sending (another process holds it); skipped",
                                    lease.post.id)
                        continue
                    started = lease
                    sent += await self._deliver(lease)
                    started = None
                    if lease in waiting:
                        waiting.remove(lease)
        except asyncio.CancelledError:
            for lease in waiting:
                if lease is not started:  # the one in flight may have reached the platform: its lease decides
                    await asyncio.shield(self.outbox.release(lease))
            raise
        return sent

    async def _deliver(self, lease: Lease) -> int:
        post = lease.post
        try:
            message_id = await self.sender.send(post)
        except DeliveryError as exc:
            wait = exc.retry_after if exc.retry_after is not None else backoff(lease.epoch)
            ack = await self.outbox.failed(lease, exc.reason, permanent=exc.permanent, retry_in=wait)
            if ack is Ack.DEAD:
                log.error("post %s to %s failed and was dead-lettered: %s", post.id, post.platform, exc.reason)
            elif ack is Ack.OK:
                log.warning("post %s to %s failed (attempt %d, retry in %.0f s): %s", post.id, post.platform,
                            lease.epoch, wait, exc.reason)
            else:
                log.warning("post %s to %s failed, and it is no longer this process's (%s)", post.id,
                            post.platform, ack.value)
            return 0
        except Exception as exc:  # a bug or an unexpected SDK error: retried like any failure, never lost
            await self.outbox.failed(lease, f"{type(exc).__name__}: {exc}", retry_in=backoff(lease.epoch))
            log.exception("post %s to %s raised; it will be retried", post.id, post.platform)
            return 0
        ack = await self.outbox.delivered(lease, message_id)
        if ack is not Ack.OK:
            # Sent, but the post is no longer this lease's: another process re-claimed it after the
            # lease ran out (the platform's idempotency key absorbs its repeat where there is one),
            # or it was cancelled or sent meanwhile. Its bookkeeping is the current holder's.
            log.warning("post %s was sent as %s but its acknowledgement was refused (%s)", post.id, message_id,
                        ack.value)
            return 1
        if self.on_delivered is not None:
            try:
                await self.on_delivered(post, message_id)
            except Exception:
                # The post is out and recorded as sent in the outbox; the hook's bookkeeping (a
                # reminder's record on its commitment) is repaired by the next reminder run.
                log.exception("post %s was sent as %s but its follow-up bookkeeping failed", post.id, message_id)
        return 1

    async def run(self) -> None:
        """Deliver forever, polling every ``poll_seconds``; a Redis error is logged and retried."""
        log.info("delivering the %s outbox", self.sender.platform)
        while True:
            try:
                await self.deliver_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the %s outbox could not be read; retrying", self.sender.platform)
                await self.sleep(max(self.poll_seconds, 2.0))
            await self.sleep(self.poll_seconds)
