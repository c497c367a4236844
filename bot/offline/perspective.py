"""Whose "you" is it: a remembered promise retold to whoever asks.

A promise's "you" is its ``Fact.recipient``: to them it stays "you", to anyone else it becomes their
name ("your" → "Wei's", "你" → "魏"); with no known recipient it is retold as a quote. ``for_everyone``
retells for no one in particular (cards, digests, lists): "you" is the recipient's name, "my" the
owner's own.
"""

from __future__ import annotations

import re

from bot.text.names import NameBook
from memory.models import Fact

__all__ = ["for_everyone", "has_second_person", "owners_words", "retold"]

_EN = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)
_ZH = re.compile(r"你们|您|你")
_EN_OWN = (
    (re.compile(r"\bmyself\b"), "themselves"),
    (re.compile(r"\bmy\b"), "their"),
    (re.compile(r"\bmine\b"), "theirs"),
    (re.compile(r"\bme\b"), "them"),
    (re.compile(r"\bI'm\b"), "they're"),
    (re.compile(r"\bI\b"), "they"),
)
_EN_FORMS = (
    (re.compile(r"\byourself\b", re.IGNORECASE), "{name}"),
    (re.compile(r"\byours\b", re.IGNORECASE), "{name}'s"),
    (re.compile(r"\byour\b", re.IGNORECASE), "{name}'s"),
    (re.compile(r"\byou\b", re.IGNORECASE), "{name}"),
)


#: The owner as the object of a Chinese deed ("转给我", "还我") and as its subject inside it ("钱我直接转给老周").
_ZH_ME_OBJECT = re.compile(r"(?<=[给还转发帮找问跟和让叫诉])我(?![们的自])")
_ZH_ME_SUBJECT = re.compile(r"(?<=[，,、\u4e00-\u9fff])我(?![们的自])")


def owners_words(text: str, owner: str) -> str:
    """A promise's words (or its condition) as told of its owner ``owner`` by Heyan: "on my account" → "on
    their account", "把我的车挪走" → "把自己的车挪走", "退回来的钱我直接转给老周" → "退回来的钱直接转给老周"."""
    for pattern, form in _EN_OWN:
        text = pattern.sub(form, text)
    text = text.replace("我自己", "自己").replace("我的", "自己的")
    return _ZH_ME_SUBJECT.sub("", _ZH_ME_OBJECT.sub(owner, text))


def has_second_person(text: str) -> bool:
    """Does ``text`` say "you" / "你" to someone?"""
    return bool(_EN.search(text) or _ZH.search(text))


def retold(text: str, fact: Fact, reader: str | None, names: NameBook) -> str | None:
    """``text`` (a promise's words) as told to ``reader`` (a user id; None: to nobody in particular).

    Unchanged when it says no "you" or ``reader`` is the one it was said to; the recipient's name in
    place of "you" for anyone else; None when "you" is in it and nobody knows whom it meant (the
    caller quotes what was said instead) — or it says "你们"/"you all", which no name replaces."""
    if not has_second_person(text):
        return text
    if fact.recipient and reader == fact.recipient:
        return text
    who = names.name(fact.recipient, fact.recipient_name) if fact.recipient else fact.recipient_name
    if not who or "你们" in text:
        return None
    for pattern, form in _EN_FORMS:
        text = pattern.sub(form.format(name=who), text)
    return text.replace("你的", f"{who}的").replace("您", who).replace("你", who)


def for_everyone(text: str, fact: Fact, names: NameBook | None = None) -> str:
    """``text`` (a promise's words) as a card, digest or list shows it to anyone: "send you the draft"
    → "send Bea the draft", "move my bike" → "move their bike", "把我的车挪走" → "把自己的车挪走"; a "you"
    nobody knows is quoted as said (“send you the draft”)."""
    book = names or NameBook.of([fact])
    told = retold(text, fact, None, book)
    if told is None:
        return f"“{text}”"
    return owners_words(told, book.name(fact.subject, fact.subject_name))
