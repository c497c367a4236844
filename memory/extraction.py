"""What extraction needs and returns, independent of who extracts (rules or an LLM).

``FactExtractor`` is the port an extractor implements (``bot.offline`` and ``bot.llm``); the job
turns its ``CandidateFact``s into ``Fact``s through ``to_facts``, which enforces the rules that must
hold whatever the extractor said: a quote must come from the message it cites, and a statement about
someone else is only ever the speaker's claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from memory.models import Confidence, Kind, Lang

__all__ = ["CandidateFact", "ExtractionRequest", "FactExtractor", "Utterance"]


@dataclass(frozen=True, slots=True)
class Utterance:
    """One message as extraction and prompts see it."""

    message_id: str
    author_id: str
    author_name: str
    text: str
    ts: datetime


@dataclass(frozen=True, slots=True)
class ExtractionRequest:
    """Messages to extract from (``turns``), with earlier ones as context only, in one language."""

    tenant: str
    session: str
    turns: Sequence[Utterance]
    context: Sequence[Utterance] = ()
    lang: Lang = "en"
    timezone: str = "UTC"


@dataclass(frozen=True, slots=True)
class CandidateFact:
    """A fact an extractor proposes. ``subject`` is a user id when the subject is a participant.

    ``message_id`` names the source message and ``quote`` the words in it that carry the fact.
    ``asserted_by`` is the author of that message.
    """

    kind: Kind
    subject: str
    attribute: str
    value: str
    message_id: str
    quote: str
    asserted_by: str
    subject_name: str = ""
    confidence: Confidence = Confidence.HIGH
    due_at: datetime | None = None
    #: True when the speaker reports what someone else said or did ("he said he'd refund me").
    reported: bool = False
    extra: dict[str, str] = field(default_factory=dict)


class FactExtractor(Protocol):
    """Turns a batch of messages into candidate facts."""

    async def extract(self, request: ExtractionRequest) -> list[CandidateFact]: ...
