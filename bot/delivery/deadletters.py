"""The dead-letter list: background jobs that failed their last try, kept for an operator to read
and retry (``heyan jobs dead-letter``).

A job's arguments are ids, so they stay clear; its error message may quote members, so only the
exception type and length stay clear and the message is the sealed ``detail`` (bound to the job id),
which erasing a member drops (``scrub``). Redis: ``heyan:dead-letter``, a JSON list, oldest first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from redis.asyncio import Redis
from redis.exceptions import WatchError

from bot.privacy.sealing import Advance, needs_reseal, open_fields, seal_fields
from memory.errors import DecryptionError
from memory.models import utcnow
from memory.store.crypto import Cipher

__all__ = ["DEAD_LETTER", "DeadLetters", "describe_error"]

#: Redis list of jobs that failed their last try, newest last, as JSON.
DEAD_LETTER = "heyan:dead-letter"


def describe_error(exc: BaseException, timeout: float | None = None) -> tuple[str, str]:
    """What may be shown of a failure (its type, or our own timeout text) and what must be kept
    sealed (the exception's message, which may quote members)."""
    if isinstance(exc, TimeoutError) and timeout is not None:
        return f"timed out after {timeout:.0f}s", ""
    message = str(exc)
    shown = type(exc).__name__ + (f" (message of {len(message)} characters, sealed)" if message else "")
    return shown, message


def _context(job_id: str) -> str:
    return f"dead-letter/{job_id}"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class DeadLetters:
    """The dead-letter list, with each entry's error detail sealed."""

    #: The keys holding member text (``reseal`` rewrites them).
    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (DEAD_LETTER,)

    def __init__(self, redis: Redis, *, cipher: Cipher | None = None) -> None:
        self.redis = redis
        self.cipher = cipher

    def __repr__(self) -> str:
        return f"DeadLetters(sealed={self.cipher is not None})"

    def entry(self, *, job_id: str, function: str, args: Sequence[Any], error: str, detail: str, tries: int) -> str:
        """One list entry: ids and the error's type in the clear, its message sealed."""
        data = {"job_id": job_id, "function": function, "args": list(args), "error": error, "tries": tries,
                "at": utcnow().isoformat()}
        if not detail:  # our own words (a timeout): nothing to seal
            return json.dumps({**data, "detail": ""}, ensure_ascii=False)
        return json.dumps(seal_fields(data, {"detail": detail}, self.cipher, _context(job_id)), ensure_ascii=False)

    async def add(self, *, job_id: str, function: str, args: Sequence[Any], exc: BaseException, tries: int,
                  timeout: float | None = None) -> None:
        """Append a job that failed its last try."""
        error, detail = describe_error(exc, timeout)
        await self.redis.rpush(DEAD_LETTER, self.entry(  # type: ignore[misc]
            job_id=job_id, function=function, args=args, error=error, detail=detail, tries=tries))

    def detail(self, raw: str) -> str:
        """The sealed message of one entry ("" when it has none, was scrubbed, or cannot be opened)."""
        data: dict[str, Any] = json.loads(raw)
        try:
            opened = open_fields(data, self.cipher, _context(str(data.get("job_id") or "")))
        except DecryptionError:
            return ""
        return str(opened.get("detail") or "")

    async def scrub(self, tenant: str) -> int:
        """Drop the error details of every dead job of ``tenant`` (a member was erased: what a job
        quoted may be theirs); the jobs stay, to be read and retried. Returns how many were scrubbed."""
        def scrubbed(raw: str) -> str | None:
            data: dict[str, Any] = json.loads(raw)
            args = data.get("args") or []
            error = str(data.get("error") or "")
            # an entry written before details were sealed kept "<type>: <message>" in the clear
            legacy = "detail" not in data and "sealed" not in data and ": " in error
            if not args or args[0] != tenant or not (data.get("sealed") or data.get("detail") or legacy):
                return None
            data.pop("sealed", None)
            data["detail"] = ""
            data["error"] = f"{re.split(r'[ :(]', error, maxsplit=1)[0]} (details removed by an erasure)"
            return json.dumps(data, ensure_ascii=False)

        return await self._rewrite(scrubbed)

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: seal every entry's detail with the first key; returns how many were rewritten."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher

        def resealed(raw: str) -> str | None:
            if not needs_reseal(raw, cipher):
                return None
            data = json.loads(raw)
            context = _context(str(data.get("job_id") or ""))
            opened = open_fields(data, cipher, context)
            clear = {k: v for k, v in opened.items() if k != "detail"}
            return json.dumps(seal_fields(clear, {"detail": opened.get("detail") or ""}, cipher, context),
                              ensure_ascii=False)

        written = await self._rewrite(resealed)
        advance(1)
        return written

    async def _rewrite(self, change: Callable[[str], str | None]) -> int:
        """Apply ``change`` (raw entry → new raw, or None to keep it) to every entry, in one
        transaction; a retry or an append meanwhile makes it start over."""
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(DEAD_LETTER)
                    raws = [_text(r) for r in await pipe.lrange(DEAD_LETTER, 0, -1)]  # type: ignore[misc]
                    changes = [(i, new) for i, raw in enumerate(raws) if (new := change(raw)) is not None]
                    if not changes:
                        await pipe.reset()  # type: ignore[no-untyped-call]
                        return 0
                    pipe.multi()  # type: ignore[no-untyped-call]
                    for index, new in changes:
                        pipe.lset(DEAD_LETTER, index, new)
                    await pipe.execute()
                    return len(changes)
                except WatchError:
                    continue
