"""``FallbackProvider``: a ``MediatorProvider`` that falls back to a second provider when the first fails.

Replies, rewrites, classifications and summaries the LLM cannot give come from the offline provider,
logged with the upstream request id. Extraction never falls back: unusable output must not write
memory, so its ``ProviderError`` reaches the job (retried, then dead-lettered).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance
from bot.llm.base import Classification, MediatorProvider, ProviderError, ReplyRequest
from memory.models import Lang, Summary

__all__ = ["FallbackProvider"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class FallbackProvider:
    """``primary`` first; on ``ProviderError`` the same call on ``fallback`` (except ``extract``)."""

    def __init__(self, primary: MediatorProvider, fallback: MediatorProvider) -> None:
        self.primary = primary
        self.fallback = fallback
        #: Calls answered by the fallback because the primary failed, per task (for metrics).
        self.fallbacks: dict[str, int] = {}
        self.name = primary.name if primary is fallback else f"{primary.name}+{fallback.name}"

    def __repr__(self) -> str:
        return f"FallbackProvider(primary={self.primary.name!r}, fallback={self.fallback.name!r})"

    async def _call(self, task: str, first: Callable[[], Awaitable[T]], second: Callable[[], Awaitable[T]]) -> T:
        try:
            return await first()
        except ProviderError as exc:
            if self.primary is self.fallback:
                raise
            log.warning("%s failed on %s (request %s): %s; using the %s provider",
                        task, self.primary.name, exc.request_id, exc, self.fallback.name)
            self.fallbacks[task] = self.fallbacks.get(task, 0) + 1
            return await second()

    async def extract(self, request: ExtractionRequest) -> list[CandidateFact]:
        """The primary's extraction only: a failure propagates to the job (retry, then dead-letter)."""
        return await self.primary.extract(request)

    async def rewrite(self, turn: Utterance, window: Sequence[Utterance], lang: Lang) -> list[str]:
        return await self._call("rewrite", lambda: self.primary.rewrite(turn, window, lang),
                                lambda: self.fallback.rewrite(turn, window, lang))

    async def classify(self, turn: Utterance, window: Sequence[Utterance], lang: Lang) -> Classification:
        return await self._call("classify", lambda: self.primary.classify(turn, window, lang),
                                lambda: self.fallback.classify(turn, window, lang))

    async def reply(self, request: ReplyRequest) -> str:
        return await self._call("reply", lambda: self.primary.reply(request), lambda: self.fallback.reply(request))

    async def summarize(self, turns: Sequence[Utterance], previous: Summary | None, lang: Lang) -> str:
        return await self._call("summarize", lambda: self.primary.summarize(turns, previous, lang),
                                lambda: self.fallback.summarize(turns, previous, lang))
