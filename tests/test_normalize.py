"""memory.normalize: what rules match, what quotes keep, what terminals and platforms show."""

from __future__ import annotations

import unicodedata

import pytest

from memory.normalize import escape_controls, locate, normalize, strip_controls

HOSTILE = "\x1b[2J\x1b[31mI pro\u200bmise\x1b[0m to send\x00 the draft\x07 by \u202eFriday"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[2Jhello", "hello"),  # clear screen
        ("\x1b[31mred\x1b[0m text", "red text"),  # colours
        ("\x1b[38;5;196mdeep\x1b[m", "deep"),
        ("\x1b]0;owned\x07title", "title"),  # OSC window title, BEL-terminated
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),  # OSC hyperlink, ST-terminated
        ("\x1bcreset", "reset"),
        ("\x9b2Jeight-bit", "eight-bit"),
        ("nul\x00 bel\x07 del\x7f", "nul bel del"),
        ("\u202eevil\u202c name", "evil name"),  # right-to-left override
        ("pro\u200bmise", "promise"),
        ("\ufeffword\u2060 join\u200c\u200d\u00adx", "word joinx"),
        ("a\r\nb\rc", "a\nb\nc"),
        ("tab\tand\nline", "tab\tand\nline"),
        ("ＡＢＣ１２３", "ABC123"),
        ("ﬁne", "fine"),
        ("e\u0301", "é"),
    ],
)
def test_normalize_removes_what_cannot_be_seen(raw: str, clean: str) -> None:
    assert normalize(raw) == clean


def test_chinese_text_and_punctuation_survive() -> None:
    text = "好的，我明天发！你确定吗？时间：周五；（草稿）～……「引号」《书》、。"
    assert normalize(text) == text
    assert unicodedata.normalize("NFKC", "，") == ","  # why the full-width punctuation is kept on purpose


def test_emoji_sequences_survive() -> None:
    family = "👨\u200d👩\u200d👧 ok 👍🏽"
    assert normalize(family) == family
    assert escape_controls(family) == family


def test_normalize_is_idempotent() -> None:
    once = normalize(HOSTILE)
    assert normalize(once) == once
    assert once == "I promise to send the draft by Friday"


def test_locate_returns_the_raw_slice() -> None:
    raw = locate("I promise to send the draft", HOSTILE)
    assert raw == "I pro\u200bmise\x1b[0m to send\x00 the draft"
    assert locate("send  the\ndraft", HOSTILE) == "send\x00 the draft"  # whitespace squashed
    assert locate("by Friday", HOSTILE) == "by \u202eFriday"


def test_locate_plain_text_is_the_quote_itself() -> None:
    assert locate(" draft ", "I will send the draft tomorrow") == "draft"
    assert locate("我明天发", "好的，我明天发！") == "我明天发"
    assert locate("ABC", "code ＡＢＣ here") == "ＡＢＣ"


@pytest.mark.parametrize("quote", ["the report", "", "   ", "\u200b"])
def test_locate_missing_quote_is_none(quote: str) -> None:
    assert locate(quote, HOSTILE) is None


def test_escape_controls_makes_everything_visible() -> None:
    shown = escape_controls(HOSTILE)
    for bad in ("\x1b", "\x00", "\x07", "\u202e", "\u200b"):
        assert bad not in shown
    for seen in ("\\x1b[2J", "\\x1b[31m", "\\x00", "\\x07", "\\u202e", "\\u200b"):
        assert seen in shown
    assert shown.endswith("by \\u202eFriday")


def test_escape_controls_newlines() -> None:
    assert escape_controls("a\nb\tc") == "a\nb\tc"
    assert escape_controls("a\nb\tc\r", keep_newlines=False) == "a\\nb\\tc\\r"
    assert escape_controls("好的，我明天发 👍") == "好的，我明天发 👍"
    assert escape_controls("c1\x85\x9b") == "c1\\x85\\x9b"


def test_strip_controls_removes_without_normalizing() -> None:
    assert strip_controls(HOSTILE) == "I promise to send the draft by Friday"
    assert strip_controls("ＡＢＣ line\nnext") == "ＡＢＣ line\nnext"
