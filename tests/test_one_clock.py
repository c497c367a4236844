"""Issue 20, item 4: one promise, one clock. With the default zone (UTC), "明天下午三点前" written at
+08:00 is due at 15:00 +08:00. The reply to someone writing at +08:00 says 15:00 and names the zone;
the reply to someone whose zone is unknown says 07:00 (UTC); `heyan commitments list` shows the same
instant in the tenant's zone and names it, in the table and the JSON; every time carries its zone."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.cli.app import app
from bot.delivery.reminders import format_when
from bot.text.clock import show_due, show_time

pytestmark = pytest.mark.dated  # fixed dates: `make any-day` runs them years ahead too

SAID = "2026-11-04T10:00:00+08:00"
DUE = datetime(2026, 11, 5, 7, 0, tzinfo=UTC)  # 15:00 at +08:00


def _script(path: Path) -> Path:
    rows = [
        {"tenant": "console:clock", "session": "t", "user_id": "u-li", "user_name": "李娜",
         "text": "我明天下午三点前把合同发给王芳。", "ts": SAID},
        # 李娜 asks at +08:00; Sam's client gives no zone (a Z timestamp is machine time)
        {"tenant": "console:clock", "session": "t", "user_id": "u-li", "user_name": "李娜",
         "text": "@heyan 我答应了什么？", "ts": "2026-11-04T10:05:00+08:00", "mention": True},
        {"tenant": "console:clock", "session": "t", "user_id": "u-sam", "user_name": "Sam",
         "text": "@heyan what did 李娜 promise?", "ts": "2026-11-04T02:06:00Z", "mention": True},
    ]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def test_reply_and_commitments_list_show_one_instant_with_its_zone(tmp_path: Path,
                                                                    clock_at: Callable[[datetime], None]) -> None:
    clock_at(datetime(2026, 11, 4, 3, 0, tzinfo=UTC))  # just after the script, whatever today is
    env = {"HEYAN_DATA_DIR": str(tmp_path / "data"), "HEYAN_TIMEZONE": "", "HEYAN_REDIS_URL": "",
           "HEYAN_QDRANT_URL": ""}
    runner = CliRunner()
    out = runner.invoke(app, ["chat", "--script", str(_script(tmp_path / "s.jsonl")), "--json"], env=env)
    assert out.exit_code == 0, out.output
    to_li, to_sam = [json.loads(line)["text"] for line in out.stdout.splitlines() if '"memory_ids"' in line]
    assert "15:00（UTC+08:00）" in to_li, to_li  # her own clock, named
    assert "07:00 (UTC)" in to_sam, to_sam  # no zone known for Sam: the tenant's (the default, UTC)

    listed = runner.invoke(app, ["commitments", "list", "--json"], env=env)
    assert listed.exit_code == 0, listed.output
    [view] = json.loads(listed.stdout)
    assert datetime.fromisoformat(view["due_at"]) == DUE
    assert view["timezone"] == "UTC" and view["due"] == "Thu 5 Nov 07:00 (UTC)"  # what the reply to Sam says
    table = runner.invoke(app, ["commitments", "list"], env=env)
    assert "due (UTC)" in table.stdout and "Thu 11-05 07:00" in table.stdout, table.stdout
    local = runner.invoke(app, ["commitments", "list", "--zone", "+08:00"], env=env)
    assert "due (UTC+08:00)" in local.stdout and "Thu 11-05 15:00" in local.stdout, local.stdout
    bad = runner.invoke(app, ["commitments", "list", "--zone", "Mars/Olympus"], env=env)
    assert bad.exit_code != 0 and "IANA" in bad.output
    memories = runner.invoke(app, ["memory", "list"], env=env)
    assert "said (UTC)" in memories.stdout and "(UTC)" in memories.stdout.split("due", 1)[1], memories.stdout


def test_every_surface_formats_a_time_with_its_zone() -> None:
    assert show_time(DUE, "Asia/Shanghai", "zh") == "11月5日周四 15:00（Asia/Shanghai）"
    assert show_time(DUE, "+08:00", "en") == "Thu 5 Nov 15:00 (UTC+08:00)"
    assert format_when(DUE, "UTC", "en") == show_time(DUE, "UTC", "en")  # follow-ups: the same function
    assert show_due(datetime(2026, 11, 6, 15, 59, tzinfo=UTC), "Asia/Shanghai", "en") == "Fri 6 Nov (Asia/Shanghai)"
    assert show_time(DUE, "Not/AZone", "en") == "Thu 5 Nov 07:00 (UTC)"  # shown in UTC, and says so


def test_a_whole_day_deadline_is_its_owners_day_wherever_it_is_read() -> None:
    # "by the 22nd" said in the Marquesas (-09:30) ends there at 23:59: in Dubai that instant is the 23rd
    by_22nd = datetime.fromisoformat("2028-06-22T23:59:00-09:30")
    assert show_due(by_22nd, "Asia/Dubai", "en") == "Thu 22 Jun (UTC-09:30)"
    assert show_due(by_22nd, "Asia/Dubai", "zh") == "6月22日周四（UTC-09:30）"
    # a deadline with its clock time is shown on the reader's clock, and on the owner's when that is another day
    noon = datetime.fromisoformat("2028-06-22T12:00:00-09:30")
    assert show_due(noon, "Asia/Dubai", "en") == "Fri 23 Jun 01:30 (Asia/Dubai) = Thu 22 Jun 12:00 (UTC-09:30)"
    assert show_due(noon, "Asia/Dubai", "zh") == "6月23日周五 01:30（Asia/Dubai），即6月22日周四 12:00（UTC-09:30）"
    assert show_due(noon, "Pacific/Honolulu", "en") == "Thu 22 Jun 11:30 (Pacific/Honolulu)"  # the same day
