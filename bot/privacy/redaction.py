"""PII redaction: personal identifiers are replaced by typed placeholders before anything is stored
or sent to an LLM.

Emails, phone numbers (+86 mobiles, international), Chinese ID numbers (checksum), card numbers (Luhn)
and IPs become ``[PHONE_1]``, ``[EMAIL_1]``, … numbered per text. No pattern relies on word boundaries
(Chinese has none): each is guarded by what may not stand next to it. Originals are not kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Redaction", "redact"]

_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])")
_CN_ID = re.compile(r"(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9A-Za-z])")
_CARD = re.compile(r"(?<![\d+-])(?:\d[ -]?){12,18}\d(?![\d-])")
_IPV4 = re.compile(r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d.])")
_IPV6 = re.compile(r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![0-9A-Fa-f:])"
                   r"|(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4}(?![0-9A-Fa-f:])")
_CN_MOBILE = re.compile(r"(?<![\d+])(?:(?:\+|00)?86[ -]?)?1[3-9]\d[ -]?\d{4}[ -]?\d{4}(?!\d)")
_PHONE = re.compile(
    r"(?<![\d+])(?:\+|00)[1-9]\d{0,2}[ -]?(?:\(?\d{1,4}\)?[ -]?){1,4}\d{2,4}(?!\d)"  # international
    r"|(?<![\d+])\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?!\d)"  # North American
)

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def _valid_cn_id(value: str) -> bool:
    """The ISO 7064 MOD 11-2 check digit of a resident identity number."""
    total = sum(int(d) * w for d, w in zip(value[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == value[17].upper()


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _valid_card(value: str) -> bool:
    digits = re.sub(r"[ -]", "", value)
    return 13 <= len(digits) <= 19 and len(set(digits)) > 1 and _luhn(digits)


def _digits(value: str) -> int:
    return sum(ch.isdigit() for ch in value)


#: (placeholder type, pattern, extra check), in the order they are applied: the stricter identifiers
#: first (an identity number before the phone patterns; a Chinese mobile number, strictly formatted,
#: before the looser card pattern, which could otherwise take "+86 138-…" for a card).
_KINDS: tuple[tuple[str, re.Pattern[str], Callable[[str], bool]], ...] = (
    ("EMAIL", _EMAIL, lambda v: True),
    ("ID", _CN_ID, _valid_cn_id),
    ("PHONE", _CN_MOBILE, lambda v: True),
    ("CARD", _CARD, _valid_card),
    ("IP", _IPV4, lambda v: True),
    ("IP", _IPV6, lambda v: v.count(":") >= 2),
    ("PHONE", _PHONE, lambda v: 7 <= _digits(v) <= 15),
)


@dataclass(frozen=True, slots=True)
class Redaction:
    """A text with its identifiers replaced, and how many of each type were found."""

    text: str
    found: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.found)


def redact(text: str) -> Redaction:
    """``text`` with every recognised identifier replaced by a typed, numbered placeholder."""
    numbers: dict[tuple[str, str], int] = {}
    counts: dict[str, int] = {}

    for kind, pattern, valid in _KINDS:
        def replace(m: re.Match[str], kind: str = kind, valid: Callable[[str], bool] = valid) -> str:
            value = m.group(0)
            if not valid(value):
                return value
            key = (kind, re.sub(r"[ ().-]", "", value).lower())
            if key not in numbers:
                counts[kind] = counts.get(kind, 0) + 1
                numbers[key] = counts[kind]
            return f"[{kind}_{numbers[key]}]"

        text = pattern.sub(replace, text)
    return Redaction(text, counts)
