"""Delivering the outbox: the loop a process runs for each platform connection it holds.

A platform adapter implements ``PostSender`` (render the ``RichText`` its way, send, return the
platform's message id, or raise ``DeliveryError``). ``Deliverer`` claims due posts of that platform
with a lease, sends each, and only after the platform accepted it records it as sent and runs the
``on_delivered`` hook (a reminder is recorded on its commitment there). Failures are retried with
backoff (or the platform's ``Retry-After``) and finally dead-lettered; permanent failures (a deleted
thread, a channel the bot was removed from) are dead-lettered at once with the reason.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from bot.outbox import Outbox, Post, PostState

__all__ = ["Deliverer", "DeliveryError", "OnDelivered", "PostSender"]

log = logging.getLogger(__name__)

OnDelivered = Callable[[Post, str], Awaitable[None]]


class DeliveryError(Exception):
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


def backoff(attempt: int) -> float:
    """Seconds before the next attempt: 2, 4, 8, … capped at 5 minutes."""
    return float(min(300, 2 ** max(1, attempt)))


class Deliverer:
    """Sends one platform's outbox through ``sender``. ``run()`` until cancelled; ``deliver_once()``
    for tests and drains."""

    def __init__(
        self,
        outbox: Outbox,
        sender: PostSender,
        *,
        on_delivered: OnDelivered | None = None,
        poll_seconds: float = 0.5,
        lease_seconds: float = 60.0,
        batch: int = 10,
    ) -> None:
        self.outbox = outbox
        self.sender = sender
        self.on_delivered = on_delivered
        self.poll_seconds = poll_seconds
        self.lease_seconds = lease_seconds
        self.batch = batch

    def __repr__(self) -> str:
        return f"Deliverer(platform={self.sender.platform!r}, poll_seconds={self.poll_seconds})"

    async def deliver_once(self) -> int:
        """Send every post that is due now; returns how many the platform accepted."""
        sent = 0
        while True:
            posts = await self.outbox.claim(self.sender.platform, limit=self.batch, lease_seconds=self.lease_seconds)
            if not posts:
                return sent
            for i, post in enumerate(posts):
                try:
                    sent += await self._deliver(post)
                except asyncio.CancelledError:
                    for unsent in posts[i:]:
                        await asyncio.shield(self.outbox.release(unsent))
                    raise

    async def _deliver(self, post: Post) -> int:
        try:
            message_id = await self.sender.send(post)
        except DeliveryError as exc:
            record = await self.outbox.get(post.id)
            attempt = record.attempts if record else 1
            wait = exc.retry_after if exc.retry_after is not None else backoff(attempt)
            state = await self.outbox.failed(post, exc.reason, permanent=exc.permanent, retry_in=wait)
            level = logging.ERROR if state is PostState.DEAD else logging.WARNING
            log.log(level, "post %s to %s failed (%s): %s", post.id, post.platform,
                    "dead-lettered" if state is PostState.DEAD else f"attempt {attempt}, will retry", exc.reason)
            return 0
        except Exception as exc:  # a bug or an unexpected SDK error: retried like any failure, never lost
            record = await self.outbox.get(post.id)
            attempt = record.attempts if record else 1
            await self.outbox.failed(post, f"{type(exc).__name__}: {exc}", retry_in=backoff(attempt))
            log.exception("post %s to %s raised; it will be retried", post.id, post.platform)
            return 0
        if not await self.outbox.delivered(post, message_id):
            log.info("post %s was already recorded as sent", post.id)
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
                await asyncio.sleep(max(self.poll_seconds, 2.0))
            await asyncio.sleep(self.poll_seconds)
