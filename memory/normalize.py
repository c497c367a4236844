"""Text safe to match and to show, whatever a member typed.

``normalize`` is what rules, prompts and values see: escapes, controls and invisible characters
removed, then NFKC (full-width CJK punctuation kept as typed). ``locate`` finds a quote by its
normalized words but returns the member's raw ones. ``escape_controls`` is for moderators' screens and
logs: nothing removed, every control made visible. Stdlib only: ``memory`` depends on no bot code.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from functools import lru_cache

__all__ = ["escape_controls", "is_hidden", "locate", "names_in", "normalize", "strip_controls"]

#: Terminal escape sequences: CSI (``ESC [ … final``, or the 8-bit ``\x9b``), string sequences (OSC
#: ``ESC ]``, DCS ``ESC P``, SOS/PM/APC) up to BEL, ST or the end of the line, and the other
#: two-character escapes (``ESC c`` reset, ``ESC ( B`` charset, ``ESC 7``).
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]P^_X]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
)

#: Invisible format characters: zero-width space, non-joiner and joiner, word joiner, BOM, soft
#: hyphen, and the bidi marks, embeddings, overrides and isolates.
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u2060\ufeff\u00ad"
    "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)

_ZWJ = "\u200d"

#: Full-width CJK punctuation kept as typed (NFKC maps it to ASCII): ！＂＃…／ ：；＜＝＞？＠ ［＼］＾＿｀
#: ｛｜｝～, the ideographic space and the ellipsis (Chinese writes "……").
_KEEP = frozenset(
    [chr(c) for c in range(0xFF01, 0xFF10)]
    + [chr(c) for c in range(0xFF1A, 0xFF21)]
    + [chr(c) for c in range(0xFF3B, 0xFF41)]
    + [chr(c) for c in range(0xFF5B, 0xFF5F)]
    + ["\u3000", "\u2026", "\u2025"]
)


#: Anything ``normalize`` would remove or rewrite, beyond NFKC: the fast path's test.
_SUSPECT = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]"
)


def _is_control(ch: str) -> bool:
    """C0, DEL and C1 — newlines and tabs included (callers decide whether to keep them)."""
    code = ord(ch)
    return code < 0x20 or 0x7F <= code <= 0x9F


def _emoji_joiner(text: str, i: int) -> bool:
    """A ZWJ inside an emoji sequence (👨‍👩‍👧): it belongs to the picture and is kept."""
    if i == 0 or i + 1 >= len(text):
        return False
    before, after = text[i - 1], text[i + 1]
    pictured = unicodedata.category(before) in ("So", "Sk") or before == "\ufe0f"
    return pictured and unicodedata.category(after) == "So"


def is_hidden(text: str, i: int) -> bool:
    """Whether ``text[i]`` is an invisible format character a member cannot see (emoji joiners aside)."""
    ch = text[i]
    return ch in _INVISIBLE and not (ch == _ZWJ and _emoji_joiner(text, i))


def _visible_spans(text: str) -> list[tuple[int, int]]:
    """The raw spans that survive: escape sequences, controls (bar ``\\n``/``\\t``) and invisible
    characters removed. ``\\r\\n`` and ``\\r`` are kept as one-character spans turned into ``\\n`` later."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        m = _ESCAPES.match(text, i) if text[i] in "\x1b\x9b\x90\x98\x9d\x9e\x9f" else None
        if m and m.end() > i:
            i = m.end()
            continue
        ch = text[i]
        if ch == "\r":
            spans.append((i, i + 2 if text.startswith("\r\n", i) else i + 1))
            i = spans[-1][1]
            continue
        if (_is_control(ch) and ch not in "\n\t") or is_hidden(text, i):
            i += 1
            continue
        spans.append((i, i + 1))
        i += 1
    return spans


def _starts_cluster(ch: str) -> bool:
    """A character NFKC never composes with what precedes it (not a combining mark, not a Hangul
    medial or final jamo) — the points where ``normalize`` cuts the text into pieces."""
    return unicodedata.combining(ch) == 0 and not 0x1160 <= ord(ch) <= 0x11FF


def _normalized(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``normalize(text)`` with, for each of its characters, the raw span it came from."""
    out: list[str] = []
    origin: list[tuple[int, int]] = []
    clusters: list[list[tuple[int, int]]] = []
    for start, end in _visible_spans(text):
        if clusters and not _starts_cluster(text[start]):
            clusters[-1].append((start, end))
        else:
            clusters.append([(start, end)])
    for cluster in clusters:
        raw = "".join("\n" if text[s] == "\r" else text[s:e] for s, e in cluster)
        piece = raw if raw in _KEEP else unicodedata.normalize("NFKC", raw)
        out.append(piece)
        origin.extend([(cluster[0][0], cluster[-1][1])] * len(piece))
    return "".join(out), origin


def normalize(text: str) -> str:
    """The text rules and prompts should see: escape sequences, controls (but ``\\n`` and ``\\t``) and
    invisible or bidi format characters removed, line ends made ``\\n``, then NFKC (CJK full-width
    punctuation kept). Idempotent."""
    if unicodedata.is_normalized("NFKC", text) and not _SUSPECT.search(text):
        return text  # the common case, and the cost of a 40,000-character message stays small
    return _remembered(text) if len(text) <= _REMEMBER_UP_TO else _normalized(text)[0]


#: Texts up to this long are normalized once a process: rules, acts and checks read one line many times
#: (every Chinese line takes the slow path: NFKC turns its full-width commas into ASCII ones).
_REMEMBER_UP_TO = 2_000


@lru_cache(maxsize=2_048)
def _remembered(text: str) -> str:
    return _normalized(text)[0]


def locate(quote: str, text: str) -> str | None:
    """The raw words of ``text`` that ``quote`` stands for, or None when it does not occur.

    Both are compared normalized and with whitespace squashed, so a quote written without the
    zero-width space a member typed inside "pro\u200bmise" still matches; what is returned is the
    member's own slice of ``text``, invisible characters inside it included.
    """
    wanted = " ".join(normalize(quote).split())
    if not wanted:
        return None
    norm, origin = _normalized(text)
    squashed: list[str] = []
    spans: list[tuple[int, int]] = []
    for i, ch in enumerate(norm):
        if ch.isspace():
            if squashed and squashed[-1] != " ":
                squashed.append(" ")
                spans.append(origin[i])
            continue
        squashed.append(ch)
        spans.append(origin[i])
    at = "".join(squashed).find(wanted)
    if at < 0:
        return None
    return text[spans[at][0] : spans[at + len(wanted) - 1][1]]


def _escape(ch: str) -> str:
    short = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(ch)
    if short:
        return short
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` for a terminal or a log line: every control character (C0, DEL, C1, ESC) and every
    invisible or bidi format character written as a visible escape (``\\x1b``, ``\\x00``, ``\\u202e``)
    so it neither drives the terminal nor hides; ``\\n`` and ``\\t`` kept when ``keep_newlines``.
    Everything else — Chinese, emoji — is unchanged."""
    if text.isprintable():  # the common case: nothing to do
        return text
    keep = "\n\t" if keep_newlines else ""
    out = []
    for i, ch in enumerate(text):
        if (_is_control(ch) and ch not in keep) or is_hidden(text, i):
            out.append(_escape(ch))
        else:
            out.append(ch)
    return "".join(out)


def strip_controls(text: str) -> str:
    """``text`` for members to read on a platform: escape sequences, controls (but ``\\n`` and
    ``\\t``) and invisible or bidi format characters removed, nothing else changed (no NFKC: what a
    member wrote is shown as written)."""
    if text.isprintable():
        return text
    return "".join(text[s:e] for s, e in _visible_spans(text))


def names_in(text: str, names: Collection[str]) -> bool:
    """Does ``text`` name any of ``names`` (case and width folded; a Latin name as a whole word)?"""
    folded = normalize(text).casefold()
    for name in names:
        wanted = normalize(name).casefold().strip()
        if len(wanted) < 2:
            continue
        start = folded.find(wanted)
        while start >= 0:
            end = start + len(wanted)
            before = folded[start - 1] if start else " "
            after = folded[end] if end < len(folded) else " "
            if not (wanted[0].isascii() and (before.isascii() and before.isalnum())) and \
                    not (wanted[-1].isascii() and (after.isascii() and after.isalnum())):
                return True
            start = folded.find(wanted, start + 1)
    return False
