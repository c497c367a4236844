"""Structured outputs the OpenAI-compatible provider asks for, as pydantic models.

Each model doubles as the JSON schema sent in ``response_format`` (``strict_schema``) and as the
validator of what comes back. Strict structured outputs need every property listed in ``required``
and ``additionalProperties: false`` everywhere, so no field here has a default: optional values are
``X | None`` and the model must write ``null``.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memory.models import Lang

__all__ = [
    "ClassificationOut",
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
KindOut = Literal["person", "event", "demand", "emotion", "commitment", "consensus"]

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
