"""Held-out crash check on the embedded shape: `heyan chat --script` SIGKILLed five times at different
points, then the same replay run again, must finish without a traceback, at once (the new process
takes over the dead one's locks, claims, leases and running jobs: it holds the data dir's lock), with
every promise stored exactly once — the same commitments as one uninterrupted run.

The kill points are moments the run's own log announces (a job started, a summary being written, ...);
whatever point a kill lands on, the outcome must be the same as one clean run's (in its own data
dir). Marked ``fault`` (a minute or two)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).parent / "data" / "crash_replay.jsonl"
#: Where each kill lands: when the run's log shows this for the n-th time — a job just started (its
#: in-progress marker set), a summary being written (its lock held), records just written (other jobs
#: mid-way), the embedded Valkey just started (before any message).
KILL_POINTS = (("arq.worker:", 6), ("→ summary:", 1), ("memory.service: remember", 2), ("embedded Valkey on", 1),
               ("→ extract:", 3))

pytestmark = pytest.mark.fault


def _env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEYAN_")}
    return {**env, "HEYAN_DATA_DIR": str(data), "HEYAN_REDIS_URL": "", "HEYAN_QDRANT_URL": "",
            "HEYAN_TIMEZONE": "America/New_York", "HEYAN_LOG_LEVEL": "INFO", "PYTHONPATH": str(ROOT)}


def _heyan(*args: str) -> list[str]:
    return [sys.executable, "-m", "adapters.cli.app", *args]


def _replay(data: Path, *, kill_at: tuple[str, int] | None = None) -> tuple[int, str]:
    """Run the replay; with ``kill_at=(marker, n)``, SIGKILL it as its log shows ``marker`` for the
    ``n``-th time (the process only: its Valkey child is orphaned, as in a crash). Returns the exit
    status and stderr."""
    proc = subprocess.Popen(_heyan("chat", "--script", str(SCRIPT), "--json"), env=_env(data), cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    lines: list[str] = []
    seen = 0
    for line in proc.stderr:
        lines.append(line)
        if kill_at is not None and kill_at[0] in line:
            seen += 1
            if seen == kill_at[1]:
                proc.send_signal(signal.SIGKILL)
                break
    lines += proc.stderr.read().splitlines(keepends=True)
    return proc.wait(timeout=600), "".join(lines)


#: The script's eight promises (speaker, session, words). The clean replay may store more (the dialogue
#: acts read Bob's "Sorry about that, it slipped my mind." after Ann's complaint as taking it on: a known
#: false commitment, measured in docs/BENCHMARKS.md); what matters here is that the crashed replay
#: stores exactly what the clean one does.
_PROMISES = (("bob", "bill", "pay my half of the bill by Friday"), ("ann", "bill", "send the invoice tomorrow at 3pm"),
             ("cat", "bill", "send the receipts tomorrow at 3pm"), ("dan", "fence", "fix the fence by Saturday"),
             ("eve", "fence", "return your ladder tomorrow"), ("gus", "kitchen", "clean the kitchen tonight"),
             ("fay", "kitchen", "call the landlord about the sink on Monday"), ("hal", "kitchen", "bring the tools by Sunday"))


def _in_process(data: Path, *args: str) -> tuple[int, str, str]:
    """``heyan ARGS`` in this process (``CliRunner``), with ``_env``'s HEYAN_ variables only."""
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("HEYAN_")}
    env |= {k: v for k, v in _env(data).items() if k.startswith("HEYAN_")}
    done = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    return done.exit_code, done.stdout, done.stderr


def _commitments(data: Path) -> Counter[tuple[str, str, str]]:
    status, out, err = _in_process(data, "memory", "list", "--kind", "commitment", "--json")
    assert status == 0, err
    return Counter((f["subject"], f["session"], f["value"]) for f in json.loads(out))


def test_five_kills_then_the_same_replay_stores_every_promise_once(tmp_path: Path) -> None:
    # the uninterrupted run, the reference, and the listings run in this process; the runs that are
    # killed, and the one after them, are `heyan` children
    status, _, err = _in_process(tmp_path / "clean", "chat", "--script", str(SCRIPT), "--json")
    assert status == 0, err
    expected = _commitments(tmp_path / "clean")
    promised = {(f"u-{w}", s, t) for w, s, t in _PROMISES}
    assert promised <= set(expected) and set(expected.values()) == {1}, expected  # the eight "I'll …", once each

    data = tmp_path / "crashed"
    for point in KILL_POINTS:
        _replay(data, kill_at=point)
    status, err = _replay(data)
    assert status == 0, err
    assert "Traceback" not in err and "TimeoutError" not in err, err
    assert _commitments(data) == expected  # every promise, each exactly once
