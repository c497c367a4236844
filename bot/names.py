"""One display name per user id: the one they used most recently.

People change their display name, or write under a nickname on one platform and their own name on
another (李娜 / Lina). Records keep the name each message was sent under, as evidence; everything that
*shows* a person — replies, tables, exports' readable fields — names them by the latest name seen
for their user id, so one person never appears as two. ``NameBook`` collects (user id, name, time)
from facts' sources and from conversation turns; it also keeps every name a user went by, so a
question that names someone by an older name ("what did Lina promise?") still finds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from bot.clock import aware
from memory.extraction import Utterance
from memory.models import Fact

__all__ = ["NameBook", "TenantNames"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class NameBook:
    """User id → the latest display name, and every name each user id went by."""

    def __init__(self) -> None:
        self._latest: dict[str, tuple[datetime, str]] = {}
        self._aliases: dict[str, dict[str, None]] = {}

    def add(self, user_id: str, name: str, when: datetime | None = None) -> None:
        """Record that ``user_id`` went by ``name`` at ``when`` (None: older than anything dated)."""
        name = name.strip()
        if not user_id or not name:
            return
        at = aware(when) if when is not None else _EPOCH
        held = self._latest.get(user_id)
        if held is None or at >= held[0]:
            self._latest[user_id] = (at, name)
        self._aliases.setdefault(user_id, {})[name] = None

    def add_fact(self, fact: Fact) -> None:
        """Every author name a fact's sources (current, history and contested) were sent under."""
        for source in (*fact.sources, *(s for e in (*fact.history, *fact.contested) for s in e.sources)):
            self.add(source.author_id, source.author_name, source.ts)
        if fact.subject_name and fact.subject in fact.users:
            self.add(fact.subject, fact.subject_name, None)  # undated: any dated name wins over it

    def add_utterance(self, utterance: Utterance) -> None:
        self.add(utterance.author_id, utterance.author_name, utterance.ts)

    @classmethod
    def of(cls, facts: Iterable[Fact] = (), utterances: Iterable[Utterance] = (),
           names: Mapping[str, str] | None = None) -> NameBook:
        """A book from facts and turns; ``names`` (id → name, undated) fill in users seen nowhere else."""
        book = cls()
        for user_id, name in (names or {}).items():
            book.add(user_id, name, None)
        for fact in facts:
            book.add_fact(fact)
        for utterance in utterances:
            book.add_utterance(utterance)
        return book

    def name(self, user_id: str, fallback: str = "") -> str:
        """The latest name of ``user_id``; ``fallback`` (else the id itself) when none is known."""
        held = self._latest.get(user_id)
        return held[1] if held else (fallback or user_id)

    def names(self) -> dict[str, str]:
        """Every known user id with its latest name."""
        return {uid: name for uid, (_, name) in self._latest.items()}

    def aliases(self) -> dict[str, tuple[str, ...]]:
        """Every name each user id went by, the latest first."""
        out: dict[str, tuple[str, ...]] = {}
        for uid, seen in self._aliases.items():
            latest = self.name(uid)
            out[uid] = (latest, *(n for n in seen if n != latest))
        return out


class TenantNames:
    """``NameBook``s per tenant: a user id is only the same person within one tenant."""

    def __init__(self, facts: Iterable[Fact] = ()) -> None:
        self._books: dict[str, NameBook] = {}
        for fact in facts:
            self.book(fact.tenant).add_fact(fact)

    def book(self, tenant: str) -> NameBook:
        return self._books.setdefault(tenant, NameBook())

    def name(self, tenant: str, user_id: str, fallback: str = "") -> str:
        return self.book(tenant).name(user_id, fallback)
