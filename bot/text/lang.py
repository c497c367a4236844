"""Which of Heyan's two languages a text (or a whole session) is in.

The rule is a count, not a model: CJK ideographs against Latin letters. One Chinese character
carries about as much as a short English word, so each ideograph counts twice; mixed messages such
as "我觉得这个 deadline 不合理" are then Chinese, while "张伟 said he'd refund me" stays English.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memory.models import Lang

__all__ = ["cjk_count", "detect_lang", "session_lang", "turn_lang"]

#: Fewer Latin letters than this (and no ideograph) is too little to tell a language by: "ok", "??".
_WEAK_LATIN = 4
# The bot's own names and @-mentions say nothing about the asker's language ("@heyan 他答应了什么？").
_ADDRESS = re.compile(r"@\S+|\bheyan\b|和言", re.IGNORECASE)

# CJK Unified Ideographs, Extension A and Compatibility Ideographs: the characters Chinese text uses.
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")

#: An ideograph weighs this many Latin letters when deciding which script dominates.
_CJK_WEIGHT = 2


def cjk_count(text: str) -> int:
    """How many CJK ideographs ``text`` contains."""
    return len(_CJK.findall(text))


def _weights(text: str) -> tuple[int, int]:
    return cjk_count(text) * _CJK_WEIGHT, len(_LATIN.findall(text))


def detect_lang(text: str, default: Lang = "en") -> Lang:
    """``"zh"`` when CJK characters dominate the letters of ``text``, else ``"en"``.

    Text with neither (emoji, numbers, empty) gets ``default``.
    """
    cjk, latin = _weights(text)
    if cjk == 0 and latin == 0:
        return default
    return "zh" if cjk >= latin else "en"


def session_lang(texts: Iterable[str], default: Lang = "en") -> Lang:
    """The language of a conversation: the same count over all of its messages together.

    Summing rather than voting per message keeps a session Chinese when most of it is, even if
    several short English messages ("ok", "thx") were sent.
    """
    cjk = latin = 0
    for text in texts:
        c, lt = _weights(text)
        cjk += c
        latin += lt
    if cjk == 0 and latin == 0:
        return default
    return "zh" if cjk >= latin else "en"


def turn_lang(text: str, default: Lang = "en") -> Lang:
    """The language to answer one turn in: the asker's own, not the thread's.

    Mentions and the bot's names are left out of the count; a turn with too little text to tell
    ("ok", "👍", "??") gets ``default`` (the session's language).
    """
    body = _ADDRESS.sub(" ", text)
    cjk, latin = _weights(body)
    if cjk == 0 and latin < _WEAK_LATIN:
        return default
    return detect_lang(body, default=default)
