"""Speaker time: wall-clock words mean the speaker's clock. A script line's ``ts`` offset (or its
``tz``, as Slack gives a user's zone) is the speaker's zone; with no tenant zone set (HEYAN_TIMEZONE is
UTC) "明天下午三点前" said at +08:00 is due at 15:00 +08:00, and "by tonight" said at -05:00 at
21:00 -05:00. Replies show times in the asker's zone (else the tenant's) and name it; `heyan
commitments list` names the zone it shows, the same one a reply shows when the asker's is unknown."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.cli.app import app

pytestmark = pytest.mark.dated  # fixed dates: `make any-day` runs them years ahead too

LINES = [
    ("u-li", "李娜", "我明天下午三点前把合同发给你。", "2026-11-04T10:00:00+08:00", None),
    ("u-amy", "Amy", "I'll fix the bike lock by tonight.", "2026-11-04T10:00:00-05:00", None),
    ("u-wang", "王芳", "我周五前把押金退给你。", "2026-11-04T22:30:00+08:00", None),
    ("u-bob", "Bob", "I will call the landlord tomorrow at 9am.", "2026-11-04T23:30:00-05:00", None),
    ("u-ken", "Ken", "我明天中午前把钥匙还你。", "2026-11-04T14:00:00Z", "Asia/Tokyo"),
]

DUE = {
    "u-li": "2026-11-05T15:00:00+08:00",
    "u-amy": "2026-11-04T21:00:00-05:00",
    "u-wang": "2026-11-06T23:59:00+08:00",  # said on Wednesday (+08:00): this Friday, end of day
    "u-bob": "2026-11-05T09:00:00-05:00",  # 23:30 at -05:00 is already the 5th in UTC: still "tomorrow" = the 5th
    "u-ken": "2026-11-05T12:00:00+09:00",  # said at 23:00 Tokyo time: tomorrow noon in Tokyo
}


def _script(path: Path) -> Path:
    rows = []
    for i, (user, name, text, ts, zone) in enumerate(LINES):
        row = {"tenant": "console:zones", "session": "thread", "user_id": user, "user_name": name, "text": text,
               "ts": ts}
        if zone:
            row["tz"] = zone
        rows.append(row)
        del i
    rows.append({"tenant": "console:zones", "session": "thread", "user_id": "u-amy", "user_name": "Amy",
                 "text": "what has everyone promised?", "ts": "2026-11-04T23:40:00-05:00", "mention": True})
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def test_due_times_resolve_in_the_speakers_zone(tmp_path: Path, clock_at: Callable[[datetime], None]) -> None:
    clock_at(datetime(2026, 11, 5, 5, 0, tzinfo=UTC))  # just after the script, whatever today is
    env = {"HEYAN_DATA_DIR": str(tmp_path / "data"), "HEYAN_TIMEZONE": "", "HEYAN_REDIS_URL": "",
           "HEYAN_QDRANT_URL": ""}
    runner = CliRunner()
    out = runner.invoke(app, ["chat", "--script", str(_script(tmp_path / "s.jsonl")), "--json"], env=env)
    assert out.exit_code == 0, out.output
    [reply] = [json.loads(line) for line in out.stdout.splitlines() if '"memory_ids"' in line]
    listed = runner.invoke(app, ["commitments", "list", "--json"], env=env)
    assert listed.exit_code == 0, listed.output
    due = {c["owner"]: c["due_at"] for c in json.loads(listed.stdout)}
    assert set(due) == set(DUE)
    for owner, expected in DUE.items():
        assert datetime.fromisoformat(due[owner]) == datetime.fromisoformat(expected), owner
    # the reply shows clock times in the asker's zone (Amy wrote at -05:00), and every time names it; a
    # deadline of a whole day ("我周五前", said at +08:00) is that day on its owner's clock, not 10:59 there
    text = reply["text"]
    assert "21:00 (UTC-05:00)" in text and "02:00 (UTC-05:00)" in text, text  # 21:00 -05:00 and 15:00 +08:00
    assert text.count("(UTC-05:00)") == len(DUE) - 1 and "Fri 6 Nov (UTC+08:00)" in text, text
