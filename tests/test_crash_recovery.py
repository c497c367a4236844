"""Held-out crash check on the embedded shape: `heyan chat --script` SIGKILLed five times at different
points, then the same replay run again, must finish without a traceback, at once (the new process
takes over the dead one's locks, claims, leases and running jobs: it holds the data dir's lock), with
every promise stored exactly once — the same commitments as one uninterrupted run.

The kill points are spread over the length of one clean run (measured first, in its own data dir);
whatever point a kill lands on, the outcome must be the same. Marked ``fault`` (about two minutes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).parent / "data" / "crash_replay.jsonl"
#: Where in one clean run's length each kill lands (fractions of it).
KILL_POINTS = (0.15, 0.3, 0.45, 0.6, 0.8)

pytestmark = pytest.mark.fault


def _env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEYAN_")}
    return {**env, "HEYAN_DATA_DIR": str(data), "HEYAN_REDIS_URL": "", "HEYAN_QDRANT_URL": "",
            "HEYAN_TIMEZONE": "America/New_York", "PYTHONPATH": str(ROOT)}


def _heyan(*args: str) -> list[str]:
    return [sys.executable, "-m", "adapters.cli", *args]


def _replay(data: Path, *, kill_after: float | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    proc = subprocess.Popen(_heyan("chat", "--script", str(SCRIPT), "--json"), env=_env(data), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if kill_after is not None:
        try:
            out, err = proc.communicate(timeout=kill_after)  # finished before the kill point
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)  # the process only: its Valkey child is orphaned, as in a crash
            out, err = proc.communicate()
    else:
        out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _commitments(data: Path) -> Counter[tuple[str, str, str]]:
    listed = subprocess.run(_heyan("memory", "list", "--kind", "commitment", "--json"), env=_env(data), cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr
    return Counter((f["subject"], f["session"], f["value"]) for f in json.loads(listed.stdout))


def test_five_kills_then_the_same_replay_stores_every_promise_once(tmp_path: Path) -> None:
    started = time.monotonic()
    clean = _replay(tmp_path / "clean")
    length = time.monotonic() - started
    assert clean.returncode == 0, clean.stderr
    expected = _commitments(tmp_path / "clean")
    assert len(expected) == 8 and set(expected.values()) == {1}, expected

    data = tmp_path / "crashed"
    for point in KILL_POINTS:
        _replay(data, kill_after=point * length)
    final = _replay(data)
    assert final.returncode == 0, final.stderr
    assert "Traceback" not in final.stderr and "TimeoutError" not in final.stderr, final.stderr
    assert _commitments(data) == expected  # every promise, each exactly once
