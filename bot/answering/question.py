"""What a question to Heyan asks: the intent, whom it names, whom it asks about as promised to, its topic.

``bot.offline.questions.read_question`` reads one from a turn; the engine looks up the records that
match it (``bot.answering.records``) and both providers answer from those records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

__all__ = ["Ask", "Question"]


class Ask(StrEnum):
    """What a question asks about."""

    SAID = "said"
    #: "who else had a similar problem (with X)?" / "还有谁也遇到过类似问题" (``bot.offline.relation_answers``)
    SIMILAR = "similar"
    #: "what do we know about X?" / "关于X我们知道什么"
    ABOUT = "about"
    OVERDUE = "overdue"
    OPEN = "open"
    PROMISES = "promises"
    AGREED = "agreed"
    WANTS = "wants"
    FEELINGS = "feelings"
    OVERVIEW = "overview"
    #: A question in words no intent knows ("remind me what time we landed on?", "定金付了没有？"):
    #: answered from the records of any kind its words find, ranked by hybrid search.
    RECORDS = "records"


@dataclass(frozen=True, slots=True)
class Question:
    """What a turn asks: the intent, the people it names (user ids), its topic words."""

    ask: Ask
    people: tuple[str, ...] = ()
    topic: tuple[str, ...] = ()
    about_asker: bool = False
    zh_topic: tuple[str, ...] = field(default=())
    #: Someone the question asks about as the one promised to ("… promise me?", "答应我什么"): only
    #: records made to them answer it.
    recipient: str | None = None
    #: The thing a SIMILAR or ABOUT question names ("the wiki search", "产品B"), as written; "" if none.
    entity: str = ""
    #: Names that fit more than one member, as written, with the members they fit: asked about, not guessed.
    unclear: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: The question's words without the address ("@heyan"): what the hybrid search is asked.
    text: str = ""
    #: A compound question's own questions, each answered in turn ("what's riding on the claim, and
    #: when is my gallery due now?"); empty for a single question.
    parts: tuple[Question, ...] = ()

    @property
    def narrowed(self) -> bool:
        """Does it name people, a recipient or a topic (else it asks about everything of its kind)?"""
        return bool(self.people or self.recipient or self.topic or self.zh_topic)
