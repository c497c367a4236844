"""One display name per user id: the one they used most recently.

Records keep each message's name as evidence; everything that *shows* a person uses the latest name
seen for their id, so one person never appears as two. ``NameBook`` also keeps every name a user went
by, and ``find`` reads who a text names by any form the community uses (``bot.text.name_forms``); a form
that fits two members is asked back, never guessed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.extraction.candidates import Utterance
from bot.text.clock import aware
from bot.text.name_forms import Rank, deaccent, forms_of, prefix_of
from memory.models import Fact

__all__ = ["NameBook", "NameHit", "TenantNames"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_WORD = re.compile(r"(?<![A-Za-z\u00c0-\u024f])[A-Z\u00c0-\u00de\u0100-\u024f][a-z\u00df-\u00ff\u0100-\u024f]{2,}(?![A-Za-z\u00c0-\u024f])")
#: Capitalised words that are never read as the start of a first name ("Can" is no Candice).
_NOT_NAMES = frozenset(
    ["what", "who", "whom", "whose", "when", "where", "which", "why", "how", "did", "does", "do", "is", "are", "was", "were", "has", "have", "had", "can", "could", "will", "would", "should", "shall", "may", "might", "must", "the", "and", "but", "for", "not", "any", "all", "each", "every", "our", "your", "their", "his", "her", "its", "this", "that", "these", "those", "there", "then", "than", "thanks", "thank", "please", "hey", "hello", "heyan", "also", "just", "still", "yes", "yeah", "sure", "okay", "fine", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december", "today", "tomorrow", "tonight", "yesterday", "note", "system", "admin", "moderator", "bot"])


@dataclass(frozen=True, slots=True)
class NameHit:
    """A name found in a text: where, as written, and every member its best form fits (``rank``)."""

    start: int
    end: int
    said: str
    users: tuple[str, ...]
    rank: Rank

    @property
    def ambiguous(self) -> bool:
        return len(self.users) > 1


class NameBook:
    """User id → the latest display name, and every name each user id went by."""

    def __init__(self) -> None:
        self._latest: dict[str, tuple[datetime, str]] = {}
        self._aliases: dict[str, dict[str, None]] = {}
        self._form_index: dict[str, dict[str, Rank]] | None = None

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
        self._form_index = None

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

    def _forms(self) -> dict[str, dict[str, Rank]]:
        """Form (casefolded, Latin syllables unspaced) → user id → its best rank for them."""
        if self._form_index is not None:
            return self._form_index
        out: dict[str, dict[str, Rank]] = {}
        for uid, seen in self._aliases.items():
            for name in seen:
                for form, rank in forms_of(name):
                    key = _key(form)
                    if len(key) < 2 or key in ("heyan", "和言"):
                        continue
                    held = out.setdefault(key, {})
                    held[uid] = min(rank, held.get(uid, rank))
        self._form_index = out
        return out

    def find(self, text: str) -> list[NameHit]:
        """Who ``text`` names, in order: each name once, by its longest form (a full name before its
        first name); each hit lists the members the best-ranked matching form fits."""
        forms = self._forms()
        taken: list[tuple[int, int]] = []
        hits: list[NameHit] = []
        for key in sorted(forms, key=len, reverse=True):
            for m in _pattern(key).finditer(text):
                if any(m.start() < e and s < m.end() for s, e in taken):
                    continue
                held = forms[key]
                best = min(held.values())
                taken.append((m.start(), m.end()))
                hits.append(NameHit(m.start(), m.end(), m.group(), tuple(u for u, r in held.items() if r == best), best))
        for m in _LATIN_WORD.finditer(text):  # "Tom" for Tomás: the start of one first name
            if m.group().casefold() in _NOT_NAMES or any(m.start() < e and s < m.end() for s, e in taken):
                continue
            users = tuple(uid for uid, seen in self._aliases.items() if any(prefix_of(m.group(), n) for n in seen))
            if users:
                taken.append((m.start(), m.end()))
                hits.append(NameHit(m.start(), m.end(), m.group(), users, Rank.PREFIX))
        return sorted(hits, key=lambda h: h.start)

    def who(self, name: str) -> tuple[str, ...]:
        """The members ``name`` (as said) may mean: those its best-ranked form fits."""
        found = [h for h in self.find(name) if h.start == 0 and h.end == len(name)]
        return found[0].users if found else ()

    def aliases(self) -> dict[str, tuple[str, ...]]:
        """Every name each user id went by, the latest first."""
        out: dict[str, tuple[str, ...]] = {}
        for uid, seen in self._aliases.items():
            latest = self.name(uid)
            out[uid] = (latest, *(n for n in seen if n != latest))
        return out


def _key(form: str) -> str:
    """A form as ``find`` compares it: casefolded; a Latin one without accents and spaces."""
    if _CJK.search(form):
        return form.casefold()
    return re.sub(r"[\s\-_.']+", "", deaccent(form).casefold())


@functools.lru_cache(maxsize=4096)
def _pattern(key: str) -> re.Pattern[str]:
    """A form's pattern: a CJK form anywhere; a Latin one as whole words, its letters possibly
    spaced or hyphenated ("Xiao Lu", "xiao-lu", "Xiaolu"), accents optional."""
    if _CJK.search(key):
        return re.compile(re.escape(key))
    letters = r"[\s\-_.']?".join(_LETTER.get(c, re.escape(c)) for c in key)
    return re.compile(rf"(?<![A-Za-z\u00c0-\u024f]){letters}(?![A-Za-z\u00c0-\u024f])", re.IGNORECASE)


def _accented() -> dict[str, str]:
    """Each Latin letter and the accented letters (Latin-1, Extended-A and -B) that are it without their
    marks: "s" → "śŝşšș…", "u" → "ùúûüũūŭůűų…"."""
    out: dict[str, str] = {}
    for code in range(0x00C0, 0x0250):
        ch = chr(code).lower()
        base = deaccent(ch).casefold()
        if len(base) == 1 and base.isascii() and base.isalpha() and ch != base and ch not in out.get(base, ""):
            out[base] = out.get(base, "") + ch
    return out


#: A letter and its accented forms, so "Tomas" finds "Tomáš" and "Ruta" "Rūta", and the other way round.
_LETTER = {c: f"[{c}{v}]" for c, v in _accented().items()}


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
