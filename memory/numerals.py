"""Numbers written in Chinese numerals (十二, 二十三, 两百, 〇), read by cn2an: one reader for the due
times of promises (``bot.text.duetime``) and the times in questions (``memory.recall.timeq``).

cn2an is imported on the first numeral read (~0.3 s of CPU): a command or process that reads none
(``heyan --help``, ``heyan config``, an English community) never pays for it.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["chinese_number"]


@functools.cache
def _cn2an() -> Any:  # cn2an ships no type hints
    import cn2an

    return cn2an


def chinese_number(text: str) -> int | None:
    """The integer ``text`` writes in Chinese numerals ("十二" → 12, "两百" → 200); None when cn2an reads
    no number in it ("十十")."""
    try:
        return int(_cn2an().cn2an(text, "smart"))
    except ValueError:
        return None
