"""How an in-process embedding model does its work: documents in a worker thread, in chunks, and short
query batches inline when the model is idle; every text checked and bounded first."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Protocol

from memory.errors import InvalidTextError
from memory.models import EMBED_TEXT_LIMIT

__all__ = ["DOCUMENT_CHUNK", "INLINE_BATCH", "bounded", "check_texts", "run_documents", "run_queries"]

#: Query batches at most this long run inline on the event loop when the model is idle; longer ones,
#: and every document batch, go to a worker thread. Measured with threads=1 on the 2-core dev machine
#: (other jobs running): one query 3-4 ms, a batch of 64 memories 100-130 ms. A few ms inline is cheaper
#: than a thread hop; 100 ms would stall the loop.
INLINE_BATCH = 4
#: Documents are embedded this many at a time in the worker thread, the model's lock released between
#: chunks, so a query that arrives during a large write waits for one chunk (~15-30 ms with USE),
#: not for the whole batch. Batching gains little beyond this size with one BLAS thread.
DOCUMENT_CHUNK = 16

class _Model(Protocol):
    """What the in-process embedders share: a lock around a blocking encode."""

    _lock: threading.Lock

    def _loaded(self) -> bool: ...

    def _encode(self, texts: list[str], query: bool) -> list[list[float]]: ...


async def run_documents(model: _Model, batch: list[str]) -> list[list[float]]:
    """Embed documents in a worker thread, ``DOCUMENT_CHUNK`` at a time (the loop never waits)."""
    out: list[list[float]] = []
    for start in range(0, len(batch), DOCUMENT_CHUNK):
        out.extend(await asyncio.to_thread(model._encode, batch[start : start + DOCUMENT_CHUNK], False))
    return out


async def run_queries(model: _Model, batch: list[str]) -> list[list[float]]:
    """Embed queries inline when the batch is short and the model idle, else in a worker thread."""
    if len(batch) <= INLINE_BATCH and model._loaded() and not model._lock.locked():
        return model._encode(batch, True)
    return await asyncio.to_thread(model._encode, batch, True)


def bounded(text: str, limit: int = EMBED_TEXT_LIMIT) -> tuple[str, bool]:
    """The text to embed and whether it was cut: at most ``limit`` characters, cut at a space if one is near."""
    if len(text) <= limit:
        return text, False
    cut = text[:limit]
    # Prefer a word boundary in the last 10% so English words are not split; CJK text has no spaces
    # and is cut at the limit.
    space = cut.rfind(" ", int(limit * 0.9))
    return (cut[:space] if space > 0 else cut), True


def check_texts(texts: Sequence[str]) -> list[str]:
    """The texts, bounded; raises InvalidTextError naming the first empty or whitespace one."""
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of texts, not one string")
    out = []
    for i, text in enumerate(texts):
        if not isinstance(text, str) or not text.strip():
            raise InvalidTextError(f"text {i} of {len(texts)} is empty or whitespace; nothing to embed")
        out.append(bounded(text)[0])
    return out
