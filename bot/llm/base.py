"""The port every mediator provider implements: the five LLM jobs of the seed design.

The offline provider (rules and templates, ``bot.offline``) and the OpenAI-compatible provider
(``bot.llm.openai_provider``) both implement ``MediatorProvider``. Providers raise ``ProviderError``
when they cannot produce a usable answer; the engine then falls back to the offline provider.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.answering.question import Question
from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance
from bot.models import Stage
from memory.errors import HeyanError
from memory.models import Fact, Lang, Summary

__all__ = ["Classification", "MediatorProvider", "ProviderError", "ReplyRequest"]


class ProviderError(HeyanError):
    """A provider could not produce a usable answer (network, timeout, malformed output).

    ``request_id`` is the upstream request id when there was one, for the logs.
    """

    def __init__(self, message: str, *, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


@dataclass(frozen=True, slots=True)
class Classification:
    """Emotion and intent of a turn; drives stage transitions.

    emotion: calm | upset | angry | hurt | anxious; intent: statement | complaint | demand | proposal |
    agreement | refusal | question | closing.
    """

    emotion: str = "calm"
    intent: str = "statement"
    intensity: float = 0.0


@dataclass(frozen=True, slots=True)
class ReplyRequest:
    """Everything a reply is built from, already within the token budget."""

    lang: Lang
    stage: Stage
    turn: Utterance
    window: Sequence[Utterance] = ()
    summary: Summary | None = None
    facts: Sequence[Fact] = ()
    open_commitments: Sequence[Fact] = ()
    participants: dict[str, str] = field(default_factory=dict)  # user id -> display name
    timezone: str = "UTC"
    #: How many open commitments there are in all, when the budget left some out of
    #: ``open_commitments`` (None: all are there), so a reply can say "and 5 more".
    open_commitments_total: int | None = None
    #: The question the turn asks about the record (``bot.answering``), when it asks one: ``facts`` and
    #: ``open_commitments`` are then the records that match it, which both providers answer from.
    question: Question | None = None
    #: Source message id → the whole line it was (the records' quotes are the clause they came from).
    lines: Mapping[str, str] = field(default_factory=dict)
    #: Ids of the records the hybrid search ranked on the question's words, best first.
    topical: Sequence[str] = ()
    #: Every record the question matched (open promises first), before the budget cut ``facts`` and
    #: ``open_commitments`` to what fits a prompt: an answer composed from records reads these.
    records: Sequence[Fact] = ()


class MediatorProvider(Protocol):
    """The five jobs: extract facts, rewrite a turn into queries, classify, reply, summarize."""

    name: str

    async def extract(self, request: ExtractionRequest) -> list[CandidateFact]: ...

    async def rewrite(self, turn: Utterance, window: Sequence[Utterance], lang: Lang) -> list[str]:
        """The turn itself plus up to three retrieval queries."""
        ...

    async def classify(self, turn: Utterance, window: Sequence[Utterance], lang: Lang) -> Classification: ...

    async def reply(self, request: ReplyRequest) -> str: ...

    async def summarize(
        self, turns: Sequence[Utterance], previous: Summary | None, lang: Lang
    ) -> str: ...
