"""Structured outputs the OpenAI-compatible provider asks for, as pydantic models.

Each model is both the strict JSON schema sent (``strict_schema``: every property required, so no
defaults; optional is ``X | None``) and the validator. ``ExtractionOut.candidates`` drops facts whose
source or quote does not check out and junk relations, and gives each the slot
``bot.offline.slots.slot_of`` computes from its quote, so the model's wording never picks the record.
"""

from __future__ import annotations

import copy
import logging
from datetime import datetime
from datetime import time as dtime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bot.extraction.candidates import CandidateFact, ExtractionRequest
from bot.offline.slots import slot_of
from bot.text.zones import speaker_zone, zone_or_utc
from memory.models import Confidence, Kind, Lang
from memory.normalize import locate, normalize
from memory.recall.relations import check as check_relation

__all__ = [
    "MAX_QUERIES",
    "ClassificationOut",
    "CommonGroundOut",
    "ContradictionOut",
    "Emotion",
    "ExtractionOut",
    "FactOut",
    "Intent",
    "RewriteOut",
    "SummaryOut",
    "strict_schema",
]

Emotion = Literal["calm", "upset", "angry", "hurt", "anxious"]
Intent = Literal[
    "statement", "complaint", "demand", "proposal", "agreement", "refusal", "question", "closing"
]
KindOut = Literal["person", "event", "demand", "emotion", "commitment", "consensus", "relation"]

log = logging.getLogger(__name__)

#: Retrieval expansions beyond the turn itself; more rarely helps and costs embedding calls.
MAX_QUERIES = 3


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FactOut(_Out):
    """One extracted fact, as the model writes it."""

    kind: KindOut
    subject: str = Field(description="user id from the participant list, or a name for anyone else")
    attribute: str = Field(description="the slot, e.g. 'wants', 'deliver draft', 'feels'")
    value: str
    message_id: str = Field(description="id of the message the fact comes from")
    quote: str = Field(description="the words carrying the fact, copied verbatim from that message")
    confidence: Literal["high", "low"]
    due_at: str | None = Field(description="ISO 8601 date-time with offset for commitments, else null")
    reported: bool = Field(description="true when the speaker reports what someone else said or did")


class ExtractionOut(_Out):
    facts: list[FactOut]

    def candidates(self, request: ExtractionRequest) -> list[CandidateFact]:
        """The facts as ``CandidateFact``s, checked against the request.

        Dropped (and logged): items citing a message that is not one of ``request.turns``, items
        whose quote does not occur in that message (whitespace-insensitive, as ``to_facts``
        checks), items with an empty subject, attribute or value. A subject written as a
        participant's name becomes their user id; ``due_at`` becomes an aware datetime.
        """
        return _candidates(self, request)


class RewriteOut(_Out):
    queries: list[str] = Field(max_length=MAX_QUERIES)

    @field_validator("queries", mode="before")
    @classmethod
    def _at_most_three(cls, value: Any) -> Any:
        # A model that writes four useful queries is not worth a repair round trip: keep three.
        if isinstance(value, list):
            return value[:MAX_QUERIES]
        return value


class ClassificationOut(_Out):
    emotion: Emotion
    intent: Intent
    intensity: float = Field(ge=0.0, le=1.0)


class SummaryOut(_Out):
    issues: list[str]
    agreements: list[str]
    open_differences: list[str]
    next_steps: list[str]

    def to_text(self, lang: Lang) -> str:
        """The summary as the plain text stored in ``Summary.text``."""
        titles = _SUMMARY_TITLES[lang]
        parts = []
        for title, items in zip(
            titles, (self.issues, self.agreements, self.open_differences, self.next_steps), strict=True
        ):
            body = (
                "\n".join(f"- {item}" for item in items)
                if items
                else ("- （无）" if lang == "zh" else "- (none)")
            )
            parts.append(f"{title}\n{body}")
        return "\n".join(parts)


_SUMMARY_TITLES: dict[Lang, tuple[str, str, str, str]] = {
    "zh": ("争议焦点：", "已达成共识：", "尚存分歧：", "下一步："),
    "en": ("Issues:", "Agreements:", "Open differences:", "Next steps:"),
}


class CommonGroundOut(_Out):
    """Candidate statements of common ground (``bot.agreements.common_ground`` checks them against the facts)."""

    statements: list[str] = Field(max_length=5)


class ContradictionOut(_Out):
    """How a new statement relates to a stored fact about the same slot."""

    verdict: Literal["same", "update", "contradiction"]
    reason: str


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema made acceptable to strict structured outputs.

    Every object gets ``additionalProperties: false`` and lists all its properties as required;
    ``default`` keys are removed (strict mode rejects them).
    """
    schema = copy.deepcopy(model.model_json_schema())
    _strictify(schema)
    return schema


def _strictify(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("default", None)
        if node.get("type") == "object" and "properties" in node:
            node["additionalProperties"] = False
            node["required"] = list(node["properties"])
        for value in node.values():
            _strictify(value)
    elif isinstance(node, list):
        for item in node:
            _strictify(item)


def _candidates(out: ExtractionOut, request: ExtractionRequest) -> list[CandidateFact]:
    people = {u.author_id: u.author_name for u in (*request.context, *request.turns)}
    by_id = {u.message_id: u for u in request.turns}
    by_name = {normalize(name).casefold(): uid for uid, name in people.items() if name}
    facts: list[CandidateFact] = []
    for item in out.facts:
        turn = by_id.get(item.message_id)
        if turn is None:
            log.warning(  # ids and lengths only: the model's words quote members
                "extract: dropped a %s item: the message it cites (%d characters of id) is not in the batch",
                item.kind,
                len(item.message_id),
            )
            continue
        quote = item.quote.strip()
        # the model read the normalized text (``rendering.utterance_line``); the quote is found by it
        if locate(quote, turn.text) is None:
            log.warning(
                "extract: dropped a %s item: its quote (%d characters) is not in message %s",
                item.kind,
                len(quote),
                turn.message_id,
            )
            continue
        subject, attribute, value = item.subject.strip(), item.attribute.strip(), item.value.strip()
        if not (subject and attribute and value):
            log.warning(
                "extract: dropped an item with an empty subject/attribute/value from %s", turn.message_id
            )
            continue
        subject_name = people.get(subject, "")
        if not subject_name and subject.casefold() in by_name:  # the model wrote a name, not the id
            subject_name, subject = subject, by_name[subject.casefold()]
        kind = Kind(item.kind)
        if kind is Kind.RELATION:
            target = value if value in people else by_name.get(normalize(value).casefold(), value)
            reason = check_relation(subject, attribute, target, turn.text, members=people)
            if reason is not None:  # the rule that failed, never the words (a member's)
                log.warning("extract: dropped a relation item from %s: %s", turn.message_id, reason)
                continue
            facts.append(CandidateFact(kind=kind, subject=subject, attribute=attribute, value=value,
                                       message_id=turn.message_id, quote=quote, asserted_by=turn.author_id,
                                       subject_name=subject_name or subject, confidence=Confidence(item.confidence),
                                       target=target))
            continue
        if item.reported and kind is Kind.EVENT:
            attribute = "claims"  # a report is its speaker's claim, whatever the model called it
        facts.append(
            CandidateFact(
                kind=kind,
                subject=subject,
                attribute=attribute,
                value=value,
                message_id=turn.message_id,
                quote=quote,
                asserted_by=turn.author_id,
                subject_name=subject_name,
                confidence=Confidence(item.confidence),
                due_at=_due(item.due_at, speaker_zone(turn.zone, request.timezone)),
                reported=item.reported,
                # the record it updates comes from the quote, as for the offline rules: running
                # extraction again, or a model wording the same statement differently, writes nothing new
                slot=slot_of(kind, attribute, value, quote, turn.message_id),
            )
        )
    return facts


def _due(raw: str | None, tz: str) -> datetime | None:
    """An aware due time. A bare date means the end of that day in ``tz``; naive times are in ``tz``."""
    if not raw or not raw.strip():
        return None
    text = raw.strip()
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        log.warning("extract: ignored an unparseable due_at (%d characters)", len(raw))
        return None
    if len(text) <= 10:  # YYYY-MM-DD
        when = datetime.combine(when.date(), dtime(23, 59))
    if when.tzinfo is None:
        when = when.replace(tzinfo=zone_or_utc(tz))
    return when
