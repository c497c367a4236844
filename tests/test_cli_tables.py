"""Issue 10's CLI fixes, through typer's CliRunner on the embedded shape: tenant columns and
``--tenant``, enum values named in errors, no stray ``<bool>``/``<str>`` and help for every option,
tables that do not cut words at 80 columns, reply memory ids that ``heyan memory show`` shows (the
summary listed apart), a repeated script ``id`` reported, Ctrl-C ending ``heyan chat`` at once."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click
import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from adapters.cli.app import app
from adapters.cli.views import memory_table
from memory.models import Fact, Kind, Source

ROOT = Path(__file__).resolve().parents[1]

LINES: list[dict[str, Any]] = [
    {"tenant": "console:flat", "session": "kitchen", "user_id": "u-li", "user_name": "Lina", "id": "a1",
     "text": "I'll send Mike the logo files by next Monday.", "ts": "2026-11-04T10:00:00+08:00"},
    {"tenant": "console:flat", "session": "kitchen", "user_id": "u-mike", "user_name": "Mike", "id": "a2",
     "text": "I want the final logo files before the launch.", "ts": "2026-11-04T10:01:00+08:00"},
    {"tenant": "console:flat", "session": "kitchen", "user_id": "u-li", "user_name": "李娜", "id": "a3",
     "text": "我保证明天下午三点前把草稿发给你。", "ts": "2026-11-04T10:02:00+08:00"},
    {"tenant": "console:flat", "session": "kitchen", "user_id": "u-li", "user_name": "李娜", "id": "a1",
     "text": "I'll also buy the printer paper.", "ts": "2026-11-04T10:03:00+08:00"},
    {"tenant": "console:flat", "session": "kitchen", "user_id": "u-mike", "user_name": "Mike", "id": "a5",
     "text": "@heyan what did Lina promise me?", "ts": "2026-11-04T10:04:00+08:00", "mention": True},
    {"tenant": "console:guild", "session": "raid", "user_id": "u-rook", "user_name": "Rook", "id": "b1",
     "text": "I'll post the raid schedule by Friday.", "ts": "2026-11-04T10:00:00-05:00"},
    {"tenant": "console:guild", "session": "raid", "user_id": "u-vex", "user_name": "Vex", "id": "b2",
     "text": "@heyan who promised to post the schedule?", "ts": "2026-11-04T10:05:00-05:00", "mention": True},
]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Any, Path]:
    data = tmp_path_factory.mktemp("heyan")
    env = {"HEYAN_DATA_DIR": str(data / "d"), "HEYAN_TIMEZONE": "Asia/Shanghai", "HEYAN_REDIS_URL": "",
           "HEYAN_QDRANT_URL": ""}
    script = data / "two-tenants.jsonl"
    script.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in LINES) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["chat", "--script", str(script), "--json"], env=env)
    assert result.exit_code == 0, result.output
    return env, result, script


def _run(env: dict[str, str], *args: str) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


def test_a_repeated_script_id_is_reported(replayed: tuple[dict[str, str], Any, Path]) -> None:
    _, result, script = replayed
    assert f"{script}:4: id 'a1' repeats line 1" in result.stderr
    replies = [json.loads(line) for line in result.stdout.splitlines() if '"memory_ids"' in line]
    assert "printer paper" not in " ".join(r["text"] for r in replies)


def test_reply_ids_are_memories_memory_show_shows(replayed: tuple[dict[str, str], Any, Path]) -> None:
    env, result, _ = replayed
    replies = [json.loads(line) for line in result.stdout.splitlines() if '"memory_ids"' in line]
    assert len(replies) == 2
    for reply in replies:
        assert reply["memory_ids"]
        for memory_id in reply["memory_ids"]:
            shown = _run(env, "memory", "show", memory_id, "--json")
            assert shown.exit_code == 0, shown.output
            assert json.loads(shown.stdout)["id"] == memory_id
        assert reply["summary_id"] not in reply["memory_ids"]
    flat = next(r for r in replies if r["session"] == "kitchen")
    # every promise made to Mike (the draft's "你" was said to him), none of the others (the paper)
    assert flat["text"].startswith("On 4 Nov, 李娜 promised ") and "send Mike the logo files" in flat["text"]
    assert "printer paper" not in flat["text"]


def test_commitments_list_shows_tenants_and_takes_tenant(replayed: tuple[dict[str, str], Any, Path]) -> None:
    env, _, _ = replayed
    table = _run(env, "commitments", "list")
    assert table.exit_code == 0, table.output
    assert "tenant" in table.stdout and "console:flat" in table.stdout and "console:guild" in table.stdout
    one = _run(env, "commitments", "list", "--tenant", "console:guild")
    assert one.exit_code == 0 and "console:flat" not in one.stdout and "raid schedule" in one.stdout
    assert " tenant " not in one.stdout  # one tenant: no column for it
    listed = json.loads(_run(env, "commitments", "list", "--json").stdout)
    assert {c["owner_name"] for c in listed if c["owner"] == "u-li"} == {"李娜"}  # one name per person


def test_memory_list_shows_tenants_and_takes_tenant(replayed: tuple[dict[str, str], Any, Path]) -> None:
    env, _, _ = replayed
    table = _run(env, "memory", "list")
    assert table.exit_code == 0 and "console:flat" in table.stdout and "console:guild" in table.stdout
    assert "Lina" not in table.stdout
    one = _run(env, "memory", "list", "--tenant", "console:flat", "--json")
    assert {f["tenant"] for f in json.loads(one.stdout)} == {"console:flat"}


@pytest.mark.parametrize(
    ("args", "accepted"),
    [
        (["commitments", "list", "--status", "bogus"], "open, overdue, done, cancelled"),
        (["memory", "list", "--status", "bogus"], "active, superseded, disputed"),
        (["memory", "list", "--kind", "bogus"], "commitment, agreement, refusal, demand, emotion, claim, event, person"),
    ],
)
def test_unknown_values_are_errors_naming_the_accepted_ones(tmp_path: Path, args: list[str], accepted: str) -> None:
    result = CliRunner().invoke(app, args, env={"HEYAN_DATA_DIR": str(tmp_path / "never")})
    assert result.exit_code == 2
    assert "unknown" in result.output and "bogus" in result.output and accepted in result.output
    assert not (tmp_path / "never").exists()  # refused before anything started


def _commands(group: click.Command, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    found = [(path, group)]
    if isinstance(group, click.Group):
        for name, sub in group.commands.items():
            found += _commands(sub, (*path, name))
    return found


def test_every_option_has_help_and_no_stray_metavar() -> None:
    root = typer.main.get_command(app)
    runner = CliRunner()
    for path, command in _commands(root):
        for param in command.params:
            if isinstance(param, click.Option):
                assert (param.help or "").strip(), f"heyan {' '.join(path)} {param.opts[0]} has no help"
        shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100"})
        assert shown.exit_code == 0, shown.output
        assert not re.search(r"<(?:bool|str|int|float|path)>", shown.stdout), (path, shown.stdout)
        for option in ("--tenant", "--session"):
            if option in shown.stdout:
                line = next(ln for ln in shown.stdout.splitlines() if option in ln)
                assert re.search(rf"{option}\s+[A-Z]+\s+\S", line), (path, line)  # a metavar, then its help


def test_tables_do_not_cut_words_at_80_columns() -> None:
    from datetime import UTC, datetime

    ts = datetime(2026, 11, 4, 10, 0, tzinfo=UTC)
    values = ["move my bike out of the hallway by Monday", "transfer the 850 euro deposit to you by Friday",
              "an apology in the group chat for the confusion about the cleaning schedule"]
    facts = [Fact(tenant=t, session="s", kind=Kind.COMMITMENT, subject="u-sam", subject_name="Samantha", attribute="a",
                  value=v, asserted_by="u-sam", sources=(Source(message_id=f"m{i}", author_id="u-sam",
                  author_name="Samantha", ts=ts, quote=v),), due_at=ts).with_id()
             for i, (t, v) in enumerate(zip(("console:flat", "console:guild", "console:flat"), values, strict=True))]
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(memory_table(facts, "3 memories", now=ts))
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80
    words = set(re.findall(r"[A-Za-z]+", text))
    for value in (*values, "commitment", "console", "Samantha", "active"):
        for word in re.findall(r"[A-Za-z]+", value):
            assert word in words, (word, text)


def test_readme_documents_the_script_format() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("A script line is"):]
    section = section[: section.index("\n\n")]
    for field in ('"id"', '"private"', '"tz"', '"mention"'):
        assert field in section, field
    assert "line numbers" in section  # a repeated id is reported


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("started_ignoring", [False, True], ids=["plain", "parent-ignored-sigint"])
def test_ctrl_c_ends_chat_at_once(tmp_path: Path, started_ignoring: bool) -> None:
    """Ctrl-C while ``heyan chat`` waits for a line ends it without another Enter (it used to hang
    until one came), also when whatever started it ignored SIGINT (inherited across exec: the chat then
    ran on until stdin closed and exited 0; a full suite's worker had left it so). Generous bounds: they
    only keep a broken build from hanging the suite."""
    env = {**os.environ, "HEYAN_DATA_DIR": str(tmp_path / "d"), "HEYAN_REDIS_URL": "", "HEYAN_QDRANT_URL": "",
           "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "adapters.cli.app", "chat", "--as", "Ann"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                            preexec_fn=_ignore_sigint if started_ignoring else None)
    try:
        assert proc.stdout is not None
        seen = b""
        deadline = time.monotonic() + 120
        while b"Ann> " not in seen and time.monotonic() < deadline:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
        assert b"Ann> " in seen, seen.decode(errors="replace")
        proc.send_signal(signal.SIGINT)  # stdin stays open: no Enter, no EOF
        # communicate() keeps reading while it waits: a child whose output filled the pipe would
        # block writing and look hung (the bound only catches the old hang-until-Enter)
        try:
            rest, _ = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER prints every thread's stack: say where it hung
            rest, _ = proc.communicate(timeout=60)
            raise AssertionError("heyan chat still ran 300 s after Ctrl-C:\n"
                                 + (seen + rest).decode(errors="replace")[-6000:]) from None
        assert proc.returncode == 130, (seen + rest).decode(errors="replace")[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
