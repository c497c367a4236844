"""Text with structured mentions: what Heyan says, and exactly whom it means to ping.

Spans of plain text (anything a member, quote or LLM wrote; escaped by each adapter so nothing in it
pings) and ``Mention``s of user ids (rendered as the platform's own, the only thing that notifies).
There is no span for everyone, here, a role or a channel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["Mention", "RichText", "Span"]


@dataclass(frozen=True, slots=True)
class Mention:
    """A mention of one user by platform user id; ``name`` is how to write it where pings don't exist."""

    user_id: str
    name: str = ""


Span = str | Mention


def _identity(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class RichText:
    """Plain text and user mentions, in order. ``RichText.of("…")`` for text with no mention."""

    spans: tuple[Span, ...] = ()

    @classmethod
    def of(cls, *spans: Span) -> RichText:
        return cls(tuple(s for s in spans if s != ""))

    def __add__(self, other: RichText | Span) -> RichText:
        extra = other.spans if isinstance(other, RichText) else (other,)
        return RichText(self.spans + extra)

    @property
    def mentions(self) -> tuple[str, ...]:
        """The user ids this text means to ping, each once, in order."""
        return tuple(dict.fromkeys(s.user_id for s in self.spans if isinstance(s, Mention)))

    def render(self, mention: Callable[[Mention], str], text: Callable[[str], str] = _identity) -> str:
        """The platform's string: ``mention`` writes each mention, ``text`` escapes each plain span."""
        return "".join(mention(s) if isinstance(s, Mention) else text(s) for s in self.spans)

    def plain(self) -> str:
        """Readable text with ``@name`` for mentions (console, logs, LLM prompts)."""
        return self.render(lambda m: f"@{m.name or m.user_id}")

    def __str__(self) -> str:
        return self.plain()

    # --- storage (the outbox keeps posts as JSON) ------------------------------------------------

    def to_json(self) -> list[Any]:
        return [s if isinstance(s, str) else {"mention": s.user_id, "name": s.name} for s in self.spans]

    @classmethod
    def from_json(cls, data: Iterable[Any]) -> RichText:
        spans: list[Span] = []
        for item in data:
            if isinstance(item, str):
                spans.append(item)
            elif isinstance(item, dict) and isinstance(item.get("mention"), str):
                spans.append(Mention(item["mention"], str(item.get("name") or "")))
            else:
                raise ValueError(f"not a RichText span: {item!r}")
        return cls(tuple(spans))
