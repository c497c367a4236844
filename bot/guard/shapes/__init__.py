"""Attacks on memory recognised by their shape, in both languages: one shape per module, asked in turn by
``find`` about a line already folded (``bot.guard.poisoning``). The modules and why: docs/ARCHITECTURE.md."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.guard.shapes.attributed import attributed
from bot.guard.shapes.authority import authority
from bot.guard.shapes.members import members
from bot.guard.shapes.notes import note_to_bot
from bot.guard.shapes.pasted import pasted
from bot.guard.shapes.proxies import speaks_for
from bot.guard.shapes.relays import relayed
from bot.guard.shapes.rulings import unquoted
from bot.guard.shapes.signed import signed

__all__ = ["Shape", "find"]


@dataclass(frozen=True, slots=True)
class Shape:
    """What was found: the family (a ``bot.guard.poisoning.Flag`` value), why, and the words."""

    family: str
    detail: str
    evidence: str


def find(text: str, *, speaker: str, names: Iterable[str], addressed: bool) -> Shape | None:
    """The attack shape in ``text`` (folded for detection), or None."""
    plain = unquoted(text)
    people = members(speaker, names)
    if who := speaks_for(plain, people):
        return Shape("impersonation", f"writes as {who}", who)
    if words := note_to_bot(plain, people, addressed=addressed, said=text):
        return Shape("instruction", "asks Heyan to record what others agreed", words)
    if words := authority(plain, people):
        return Shape("fake marker", "rules on people in the name of an authority", words)
    if words := relayed(text, plain, people):
        return Shape("fake marker", "passes off an app's or the platform's notice about members", words)
    if words := pasted(text, people):
        return Shape("fake marker", "plants a member's consent in pasted material", words)
    if words := signed(text, people):
        return Shape("impersonation", "pastes words signed as another member", words)
    if words := attributed(text, people):
        return Shape("impersonation", "puts a concession in another member's mouth", words)
    return None
