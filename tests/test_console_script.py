"""Script lines: good ones become Messages; bad ones name FILE:LINE and the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.chat.console import ScriptError, parse_script

GOOD = {"tenant": "t", "session": "s", "user_id": "u1", "user_name": "Ann", "text": "hi",
        "ts": "2026-11-03T10:00:00+08:00"}


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "script.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_parses_messages(tmp_path: Path) -> None:
    path = write(tmp_path, [json.dumps(GOOD), json.dumps({**GOOD, "mention": True, "text": "@bot?"})])
    msgs = parse_script(path)
    assert [m.text for m in msgs] == ["hi", "@bot?"]
    assert msgs[1].mention and not msgs[0].mention
    assert msgs[0].scope.user == "u1" and msgs[0].session == "s"
    assert msgs[0].ts.utcoffset() is not None


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "text"}), "missing field(s) text"),
        (json.dumps({**GOOD, "ts": "yesterday"}), "not ISO-8601"),
        (json.dumps({**GOOD, "ts": "2026-11-03T10:00:00"}), "no UTC offset"),
        (json.dumps({**GOOD, "mention": "yes"}), "mention must be true or false"),
        (json.dumps({**GOOD, "tenant": " "}), "'tenant' must be a non-empty string"),
    ],
)
def test_bad_line_names_file_and_line(tmp_path: Path, line: str, reason: str) -> None:
    path = write(tmp_path, [json.dumps(GOOD), line])
    with pytest.raises(ScriptError) as exc:
        parse_script(path)
    assert str(exc.value).startswith(f"{path}:2: ")
    assert reason in str(exc.value)


def test_a_line_starting_with_at_heyan_addresses_the_bot_unless_it_says_otherwise(tmp_path: Path) -> None:
    lines = [{**GOOD, "text": "@heyan what did we agree?"}, {**GOOD, "text": "@和言，我们说好了什么？"},
             {**GOOD, "text": "tell @heyan later"}, {**GOOD, "text": "@heyan not this one", "mention": False},
             {**GOOD, "text": "@heyanfan is my name"}]
    path = write(tmp_path, [json.dumps({**line, "id": str(i)}, ensure_ascii=False) for i, line in enumerate(lines)])
    assert [m.mention for m in parse_script(path)] == [True, True, False, False, False]
