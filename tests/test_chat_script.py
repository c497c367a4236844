"""End to end through the CLI on the embedded shape (Qdrant Edge, embedded Valkey, in-process worker):
scripted Chinese and English disputes yield commitments with the right owners and due times."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.cli.app import app

pytestmark = pytest.mark.dated  # fixed dates: `make any-day` runs them years ahead too

EXAMPLES = Path(__file__).parent.parent / "examples"  # the scripts README names
#: Every command runs as of this time, after each script's due times (so each follow-up has fired once).
NOW = "2026-11-10T00:00:00+00:00"


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], list[dict[str, object]]]:
    env = {"HEYAN_DATA_DIR": str(tmp_path_factory.mktemp("heyan")), "HEYAN_TIMEZONE": "Asia/Shanghai",
           "HEYAN_REDIS_URL": "", "HEYAN_QDRANT_URL": ""}
    runner = CliRunner()
    replies: list[dict[str, object]] = []
    for name, zone in (("dispute_zh.jsonl", "Asia/Shanghai"), ("dispute_en.jsonl", "America/New_York")):
        result = runner.invoke(app, ["--now", NOW, "chat", "--script", str(EXAMPLES / name), "--json"],
                               env={**env, "HEYAN_TIMEZONE": zone})
        assert result.exit_code == 0, result.output
        lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
        replies += [r for r in lines if "memory_ids" in r]  # the rest are follow-ups ("type": "notice")
    return env, replies


def _commitments(env: dict[str, str]) -> list[dict[str, object]]:
    result = CliRunner().invoke(app, ["--now", NOW, "commitments", "list", "--json"], env=env)
    assert result.exit_code == 0, result.output
    data: list[dict[str, object]] = json.loads(result.stdout)
    return data


def test_replies_name_the_memories_they_used(replayed: tuple[dict[str, str], list[dict[str, object]]]) -> None:
    _, replies = replayed
    assert [r["session"] for r in replies] == ["zh-thread", "en-thread"]
    zh = next(r for r in replies if r.get("session") == "zh-thread")
    assert zh["memory_ids"], zh
    assert "王芳" in str(zh["text"])  # the open commitment of 王芳 is recalled with its owner


def test_commitments_have_owners_and_due_times(replayed: tuple[dict[str, str], list[dict[str, object]]]) -> None:
    env, _ = replayed
    by_owner = {(c["owner"], c["session"]): c for c in _commitments(env)}
    wang = by_owner[("u-wang", "zh-thread")]
    assert datetime.fromisoformat(str(wang["due_at"])) == datetime.fromisoformat("2026-11-05T15:00:00+08:00")
    zhang = by_owner[("u-zhang", "zh-thread")]  # 周五前 said on Wednesday: this Friday, end of day
    assert datetime.fromisoformat(str(zhang["due_at"])) == datetime.fromisoformat("2026-11-06T23:59:00+08:00")
    bob = by_owner[("u-bob", "en-thread")]
    # shown in the tenant's zone (UTC): Friday 23:59 at -05:00, Bob's clock, is Saturday 04:59 there
    assert datetime.fromisoformat(str(bob["due_at"])) == datetime.fromisoformat("2026-11-06T23:59:00-05:00")
    ann = by_owner[("u-ann", "en-thread")]  # tomorrow at 3pm, New York time
    assert datetime.fromisoformat(str(ann["due_at"])) == datetime.fromisoformat("2026-11-07T15:00:00-05:00")
    # "he said he'd refund me" and the injected instruction never become someone else's commitment
    assert {c["owner"] for c in _commitments(env)} == {"u-wang", "u-zhang", "u-bob", "u-ann"}
    assert sum(1 for c in _commitments(env) if c["owner"] == "u-bob") == 1
    # every reminder due in the past has fired exactly once
    assert all(len(c["reminders_sent"]) == 1 for c in _commitments(env))  # type: ignore[arg-type]


def test_memory_list_json_has_sources(replayed: tuple[dict[str, str], list[dict[str, object]]]) -> None:
    env, _ = replayed
    result = CliRunner().invoke(app, ["--now", NOW, "memory", "list", "--json"], env=env)
    assert result.exit_code == 0, result.output
    facts = json.loads(result.stdout)
    assert facts and all(f["sources"] and f["sources"][0]["quote"] for f in facts)
    keys = {"id", "tenant", "session", "kind", "subject", "attribute", "value", "status", "confidence",
            "asserted_by", "sources", "due_at", "expires_at", "created_at", "updated_at", "version"}
    assert keys <= set(facts[0])
    claims = [f for f in facts if f["attribute"] == "claims"]
    assert claims and all(f["asserted_by"] == f["subject"] for f in claims)


def test_malformed_script_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text((EXAMPLES / "dispute_en.jsonl").read_text().splitlines()[0] + "\n{oops\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["chat", "--script", str(bad)], env={"HEYAN_DATA_DIR": str(tmp_path / "d")})
    assert result.exit_code == 2
    assert f"{bad}:2" in result.output
    assert not (tmp_path / "d").exists()  # nothing started, nothing written


def test_show_and_done_by_id_prefix(replayed: tuple[dict[str, str], list[dict[str, object]]]) -> None:
    env, _ = replayed
    runner = CliRunner()
    bob = next(c for c in _commitments(env) if c["owner"] == "u-bob")
    full = str(bob["id"])
    shown = runner.invoke(app, ["--now", NOW, "memory", "show", full, "--json"], env=env)
    assert shown.exit_code == 0 and json.loads(shown.stdout)["id"] == full
    assert runner.invoke(app, ["--now", NOW, "memory", "show", "not-an-id"], env=env).exit_code == 2
    done = runner.invoke(app, ["--now", NOW, "commitments", "done", full[:8]], env=env)
    assert done.exit_code == 0, done.output
    assert next(c for c in _commitments(env) if c["id"] == full)["status"] == "done"
