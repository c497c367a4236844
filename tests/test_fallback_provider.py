"""FallbackProvider: the LLM first, the offline provider when it fails — except extraction, whose
failure must reach the job (retried, then dead-lettered) and never write memory."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance
from bot.llm.base import Classification, ProviderError, ReplyRequest
from bot.llm.fallback import FallbackProvider
from bot.models import Stage
from bot.offline.provider import OfflineProvider
from memory.models import Lang, Summary

TURN = Utterance("m1", "u-ann", "Ann", "I will send the draft by Friday.", datetime(2026, 11, 2, tzinfo=UTC))


class Down:
    name = "down"

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def _fail(self, task: str) -> None:
        self.calls.append(task)
        raise ProviderError(f"{task}: 503", request_id="req-1")

    async def extract(self, request: ExtractionRequest) -> list[CandidateFact]:
        await self._fail("extract")
        return []

    async def rewrite(self, turn: Utterance, window: Sequence[Utterance], lang: Lang) -> list[str]:
        await self._fail("rewrite")
        return []

    async def classify(self, turn: Utterance, window: Sequence[Utterance], lang: Lang) -> Classification:
        await self._fail("classify")
        return Classification()

    async def reply(self, request: ReplyRequest) -> str:
        await self._fail("reply")
        return ""

    async def summarize(self, turns: Sequence[Utterance], previous: Summary | None, lang: Lang) -> str:
        await self._fail("summarize")
        return ""


async def test_everything_but_extraction_falls_back(caplog: pytest.LogCaptureFixture) -> None:
    down = Down()
    provider = FallbackProvider(down, OfflineProvider())
    assert TURN.text in await provider.rewrite(TURN, [], "en")
    assert isinstance(await provider.classify(TURN, [], "en"), Classification)
    assert await provider.reply(ReplyRequest(lang="en", stage=Stage.GATHERING, turn=TURN))
    assert await provider.summarize([TURN], None, "en")
    assert down.calls == ["rewrite", "classify", "reply", "summarize"]
    assert provider.fallbacks == {"rewrite": 1, "classify": 1, "reply": 1, "summarize": 1}  # for the metrics
    assert "req-1" in caplog.text  # the upstream request id is logged with the fallback
    with pytest.raises(ProviderError):
        await provider.extract(ExtractionRequest(tenant="t", session="s", turns=[TURN]))


async def test_the_offline_provider_alone_raises_its_own_errors() -> None:
    offline = OfflineProvider()
    provider = FallbackProvider(offline, offline)
    assert provider.name == offline.name
    assert await provider.reply(ReplyRequest(lang="en", stage=Stage.GATHERING, turn=TURN))
