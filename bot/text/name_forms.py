"""The names a community uses for one member, derived from the names they went by.

"Tomás" is also "Tomas" and "Tom"; 陈刚 is 老陈, 刚哥, "Chen", "Chen Gang"; 李杰 is 阿杰. Each form has a
``Rank`` (how surely it means this member): a weaker form still finds them, and two members sharing
the best form matched are asked about, never guessed. Pinyin from pypinyin (tables in its wheel).
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from collections.abc import Callable, Iterator
from enum import IntEnum

__all__ = ["Rank", "deaccent", "forms_of", "is_cjk_name", "prefix_of"]


class Rank(IntEnum):
    """How surely a form names its member: lower is surer."""

    #: A display name they went by, as written.
    EXACT = 0
    #: A part of a Latin name ("Kwame" of "Kwame Mensah"), or the name without accents.
    PART = 1
    #: A Chinese name's usual short forms: given name, 阿杰, 涛哥, 老王, 王教练.
    NICK = 2
    #: A Latin spelling of a Chinese name or of its short forms: "Chen", "Xiaoyu", "Lao Wang".
    PINYIN = 3
    #: A capitalised word that begins a first name ("Tom" for "Tomás", "Bea" for "Beatriz").
    PREFIX = 4


_CJK = re.compile(r"^[\u3400-\u9fff]{2,4}$")
#: Two-character surnames; any other Chinese name's surname is its first character.
_COMPOUND_SURNAMES = frozenset(
    ["欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "令狐", "慕容", "司徒", "夏侯", "公孙", "长孙", "宇文", "尉迟", "澹台", "端木", "独孤", "南宫", "呼延", "轩辕", "西门", "单于"])
#: Surnames read differently from their everyday reading (pypinyin reads characters one by one here).
_SURNAME_READING = {"曾": "zeng", "单": "shan", "解": "xie", "仇": "qiu", "区": "ou", "查": "zha", "朴": "piao",
                    "缪": "miao", "乐": "yue", "盖": "ge", "尉": "yu", "覃": "qin", "柏": "bai", "翟": "zhai",
                    "召": "shao", "种": "chong", "秘": "bi", "沈": "shen", "万": "wan", "任": "ren"}
#: A two-character name opening with one of these is a nickname (小鹿, 阿飞, 老K), not surname + given name.
_NICK_HEADS = ("小", "阿", "老")
#: Titles after a surname ("王教练", "陈老师") and kin words after a given name ("涛哥", "婷姐").
_TITLES = ("老师", "教练", "总", "工", "哥", "姐", "叔", "姨", "阿姨")
_KIN = ("哥", "姐", "子")


def is_cjk_name(name: str) -> bool:
    """Is ``name`` a Chinese personal name (2–4 CJK characters)?"""
    return bool(_CJK.match(name))


def deaccent(text: str) -> str:
    """``text`` without diacritics: "Tomás" → "Tomas", "Zoë" → "Zoe"."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@functools.cache
def _pinyin() -> Callable[[str], list[str]]:
    """pypinyin's reader, imported on first use: its tables cost ~0.3 s, which a process that never
    meets a Chinese name (or a CLI command) should not pay. Names are read a character at a time
    (surnames by ``_SURNAME_READING``), so its phrase table (~45 MB of RAM) is never loaded."""
    os.environ.setdefault("PYPINYIN_NO_PHRASES", "1")
    from pypinyin import Style, lazy_pinyin

    return lambda text: [str(s) for s in lazy_pinyin(text, style=Style.NORMAL, errors="ignore")]


def _syllables(text: str, *, surname: bool = False) -> list[str]:
    if surname and len(text) == 1 and text in _SURNAME_READING:
        return [_SURNAME_READING[text]]
    return [s for s in _pinyin()(text) if s.isalpha()]


def _split(name: str) -> tuple[str, str]:
    """(surname, given name) of a Chinese name; ("", name) for a nickname such as 小鹿."""
    if len(name) == 2 and name.startswith(_NICK_HEADS):
        return "", name
    if name[:2] in _COMPOUND_SURNAMES and len(name) > 2:
        return name[:2], name[2:]
    return name[0], name[1:]


def _chinese(name: str) -> Iterator[tuple[str, Rank]]:
    surname, given = _split(name)
    if not surname:  # a nickname: its Latin spelling
        if given.startswith("老") and "\u4e00" <= given[1] <= "\u9fff":
            # 老孟 is a surname said with respect: the same member is 孟哥, 孟老师, and 孟某 in a written record
            yield from ((given[1] + title, Rank.NICK) for title in (*_TITLES, "某"))
        yield " ".join(_syllables(given)), Rank.PINYIN
        return
    if len(given) >= 2:
        yield given, Rank.NICK
    if len(given) == 1 or given[0] == given[-1]:  # 李杰 → 阿杰, 林涛 → 涛哥 (and 婷婷 → 婷姐)
        yield "阿" + given[-1], Rank.NICK
        yield from ((given[-1] + kin, Rank.NICK) for kin in _KIN)
    else:
        yield from ((given[-1] + kin, Rank.NICK) for kin in ("哥", "姐"))
    yield from ((head + surname, Rank.NICK) for head in ("老", "小"))
    yield from ((surname + title, Rank.NICK) for title in _TITLES)
    family, first = _syllables(surname, surname=True), _syllables(given)
    if not family or not first:
        return
    yield " ".join((*family, *first)), Rank.PINYIN
    yield " ".join((*first, *family)), Rank.PINYIN
    if len(first) >= 2:
        yield " ".join(first), Rank.PINYIN
    yield " ".join(family), Rank.PINYIN
    yield from ((f"{head} {' '.join(family)}", Rank.PINYIN) for head in ("lao", "xiao"))


def forms_of(name: str) -> Iterator[tuple[str, Rank]]:
    """Every form of ``name`` with its rank, the name itself first. A Latin spelling is given as its
    syllables separated by single spaces ("xiao lu"): ``bot.text.names`` matches it with or without them."""
    name = " ".join(name.split())
    if not name:
        return
    yield name, Rank.EXACT
    bare = deaccent(name)
    if bare != name:
        yield bare, Rank.PART
    if is_cjk_name(name):
        yield from _chinese(name)
        return
    words = [w for w in re.split(r"[\s_.]+", bare) if len(w) >= 2 and not w.startswith("@")]
    if len(words) > 1:
        for word in words:
            yield word, Rank.PART
        if name != bare:
            yield from ((w, Rank.PART) for w in name.split() if len(w) >= 2)


def prefix_of(word: str, name: str) -> bool:
    """Does ``word`` (3+ letters) begin the first name of ``name``: "Tom" of "Tomás Ferreira"?"""
    first = deaccent(name).split()[0].casefold() if name.split() else ""
    low = deaccent(word).casefold()
    return len(low) >= 3 and first != low and first.startswith(low) and first.isalpha()
