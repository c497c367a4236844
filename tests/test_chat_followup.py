"""A promise heard by the real `heyan chat` (embedded shape) is followed up once at its due time, across
a restart; `heyan commitments list` shows it and its reminder.

No wall-clock wait: the test checks the reminder is deferred to exactly the due time, then moves arq's
schedule there (``tests.clock.JobSchedule`` on the child's Valkey socket) and waits for the line.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from redis.asyncio import Redis
from typer.testing import CliRunner

from adapters.cli.app import app
from adapters.runtime.valkey import EmbeddedValkey
from tests.clock import JobSchedule

ROOT = Path(__file__).resolve().parents[1]
DUE_SECONDS = 600
PROMISE = "我会在十分钟内把材料发到这个帖子里"
ZONE = "Asia/Shanghai"


def _heyan() -> list[str]:
    script = Path(sys.executable).with_name("heyan")
    return [str(script)] if script.exists() else [sys.executable, "-m", "adapters.cli.app"]


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEYAN_")}  # no Redis/Qdrant URL, no LLM
    env.update(HEYAN_DATA_DIR=str(data_dir), PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1", COLUMNS="500")
    return env


async def _run(env: dict[str, str], *args: str) -> str:
    """``heyan ARGS`` in this process (``CliRunner``, in a thread: the command runs its own loop), with
    ``env``'s HEYAN_ variables only; the chats are the `heyan` children."""
    heyan: dict[str, str | None] = {k: None for k in os.environ if k.startswith("HEYAN_")}
    heyan |= {k: v for k, v in env.items() if k.startswith("HEYAN_")}
    done = await asyncio.to_thread(CliRunner().invoke, app, list(args), env=heyan, catch_exceptions=False)
    assert done.exit_code == 0, f"heyan {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


class Chat:
    """A `heyan chat` process: lines in through stdin, output lines collected with their arrival time."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[tuple[float, str]] = []
        self._reader = asyncio.create_task(self._read())
        assert proc.stderr is not None
        self._stderr = asyncio.create_task(proc.stderr.read())

    @classmethod
    async def start(cls, cwd: Path, env: dict[str, str]) -> Chat:
        proc = await asyncio.create_subprocess_exec(
            *_heyan(), "chat", cwd=cwd, env=env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        return cls(proc)

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        async for raw in self.proc.stdout:
            self.lines.append((time.time(), raw.decode()))

    async def say(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        await self.proc.stdin.drain()

    async def wait_for(self, text: str, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for at, line in self.lines:
                if text in line:
                    return at
            assert self.proc.returncode is None, f"heyan chat exited:\n{self.output}"
            await asyncio.sleep(0.1)
        raise AssertionError(f"no {text!r} within {timeout}s:\n{self.output}")

    async def quit(self, timeout: float = 60) -> str:
        await self.say("/quit")
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        await asyncio.wait_for(self.proc.wait(), timeout)
        await self._reader
        err = await self._stderr
        assert self.proc.returncode == 0, f"heyan chat failed:\n{self.output}\n{err.decode()}"
        return self.output

    @property
    def output(self) -> str:
        return "".join(line for _, line in self.lines)


async def test_follow_up_printed_on_time_after_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = _env(data)
    await _run(env, "tenant", "set-timezone", "console:local", ZONE)

    first = await Chat.start(tmp_path, env)
    await first.wait_for("/help for commands", 60)
    said_at = time.time()
    await first.say(PROMISE)
    out1 = await first.quit()  # flushes, drains the extraction job, stops Valkey and the store
    stopped_at = time.time()
    assert "follow-up" not in out1
    # the deferred reminder is in the embedded Valkey's append-only file, not only in memory
    aof = b"".join(p.read_bytes() for p in (data / "valkey").rglob("*.aof"))
    assert b"remind:console:local:" in aof

    second = await Chat.start(tmp_path, env)
    await second.wait_for("/help for commands", 60)
    redis = Redis.from_url(f"unix://{EmbeddedValkey(data / 'valkey').socket_path}")
    try:
        schedule = JobSchedule(redis)
        # the restarted process kept the job, deferred to the due time: ten minutes after the promise
        [(job, due_ms)] = [(j, w.timestamp()) for j, w in (await schedule.deferred("remind:console:local:")).items()]
        assert said_at + DUE_SECONDS - 0.01 <= due_ms <= stopped_at + DUE_SECONDS + 0.01, due_ms - said_at
        assert "follow-up" not in second.output  # not before its time
        assert await schedule.run_due(datetime.fromtimestamp(due_ms, UTC), "remind:") == [job]  # its time comes
    finally:
        await redis.aclose()
    await second.wait_for("follow-up", 60)
    out2 = await second.quit()  # drains the jobs and the outbox: a duplicate would be printed by now
    assert out2.count("follow-up") == 1, out2

    [c] = json.loads(await _run(env, "commitments", "list", "--json"))
    assert c["owner"] == "console:you" and c["status"] == "open" and "材料" in c["description"]
    assert len(c["reminders_sent"]) == 1
    due = datetime.fromisoformat(c["due_at"])
    assert abs(due.timestamp() - due_ms) < 0.01
    # the follow-up names the due time in the tenant's zone, and quotes the promise
    local = due.astimezone(ZoneInfo(ZONE))
    [line] = [line for _, line in second.lines if "follow-up" in line]
    weekday = "一二三四五六日"[local.weekday()]
    assert f"{local.month}月{local.day}日周{weekday} {local:%H:%M}（{ZONE}）" in line and PROMISE in line, line
