"""Which members a line names, by the names a community uses for them ("Tom" of "Tomás", 阿杰 of 李杰).

Forms from ``bot.text.name_forms`` without the Latin spellings of Chinese names (detection reads what
people type; Latin parts match capitalised). A form shared with the speaker is the speaker's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.text.name_forms import Rank, deaccent, forms_of, is_cjk_name

__all__ = ["Members", "members"]


#: Capitalised words that begin a sentence or a date, never a name's short form ("Hey" of "Heyan").
_WORDS = frozenset({"Hey", "The", "And", "But", "For", "Not", "You", "Can", "Did", "Was", "Are", "Its", "All", "Any",
                    "How", "Why", "Who", "Per", "Our", "Let", "May", "New", "Now", "One", "See", "Sun", "Sat", "Mon",
                    "Tue", "Wed", "Thu", "Fri", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                    "Dec", "Has", "Had", "Her", "His", "Off", "Yes", "Thi", "Tha", "Whe", "Wha", "Wil", "Sha"})
#: Heyan's own names: the bot is no member a line can be written as.
_BOT_NAMES = frozenset({"heyan", "和言"})


def _forms(name: str) -> tuple[set[str], set[str]]:
    """(forms matched in any case, capitalised forms matched as written) of one display name."""
    name = " ".join(name.split())
    loose, exact = {name, deaccent(name)}, set[str]()
    if is_cjk_name(name):
        loose |= {form for form, rank in forms_of(name) if rank is Rank.NICK}
        return loose, exact
    tokens = [w for w in re.split(r"[\s_.]+", deaccent(name)) if w]
    words = [w for w in tokens if len(w) >= 3 and w.replace("'", "").replace("-", "").isalpha()]
    if len(tokens) > 1:
        exact |= {w[0].upper() + w[1:] for w in words}
        exact |= {w[0].upper() + w[1:] for w in name.split() if len(w) >= 3 and w.isalpha()}  # "Tomás" as typed
    if words and len(words[0]) >= 4:  # "Tom" of "Tomás", "Bea" of "Beatriz": a capitalised start
        first = words[0][0].upper() + words[0][1:]
        exact |= {first[:n] for n in range(3, len(first))} - _WORDS
    return loose, exact


@dataclass(frozen=True)
class Members:
    """The other members' name forms as one pattern (``others``), and the speaker's (``own``)."""

    others: re.Pattern[str] | None
    own: re.Pattern[str] | None
    everyone: re.Pattern[str] | None
    #: Every form of the others and of the speaker, casefolded: "nina" typed for "Nina Park".
    others_folded: frozenset[str] = frozenset()
    own_folded: frozenset[str] = frozenset()

    def other_at(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """Another member's name starting at ``pos``."""
        return self.others.match(text, pos) if self.others is not None else None

    def names_other(self, text: str) -> bool:
        return self.others is not None and self.others.search(text) is not None

    def names_anyone(self, text: str) -> bool:
        return self.everyone is not None and self.everyone.search(text) is not None


def _pattern(loose: set[str], exact: set[str]) -> re.Pattern[str] | None:
    parts = []
    for form in sorted(loose | exact, key=len, reverse=True):
        body = re.escape(form) if form in loose else "(?-i:" + re.escape(form) + ")"
        parts.append(body + r"(?![a-z])" if form[-1:].isascii() else body)
    if not parts:
        return None
    return re.compile(r"(?<![A-Za-z])(?:" + "|".join(parts) + ")", re.IGNORECASE)


@functools.lru_cache(maxsize=512)
def _members(speaker: str, names: tuple[str, ...]) -> Members:
    mine_loose, mine_exact = _forms(speaker) if speaker.strip() else (set(), set())
    mine = {f.casefold() for f in mine_loose | mine_exact}
    loose: set[str] = set()
    exact: set[str] = set()
    for name in names:
        if not name.strip() or " ".join(name.split()).casefold() in {" ".join(speaker.split()).casefold(), *_BOT_NAMES}:
            continue
        a, b = _forms(name)
        loose |= {f for f in a if f.casefold() not in mine}
        exact |= {f for f in b if f.casefold() not in mine}
    everyone_loose = loose | mine_loose
    return Members(_pattern(loose, exact), _pattern(mine_loose, mine_exact), _pattern(everyone_loose, exact | mine_exact),
                   frozenset(f.casefold() for f in loose | exact), frozenset(mine))


def members(speaker: str, names: Iterable[str]) -> Members:
    """The name forms of ``names`` other than ``speaker``'s, and the speaker's own."""
    return _members(speaker, tuple(sorted({n for n in names if n.strip()})))
