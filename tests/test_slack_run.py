"""Issue 12's "done when", end to end: the real ``heyan run`` process (embedded shape: Qdrant Edge,
the embedded Valkey and the worker in the process) with Slack settings pointing at the stand-in
starts the app in Socket Mode or HTTP mode, answers a mention in its thread, opens a dispute whose
opening message its outbox delivers, and stops cleanly on SIGTERM; a missing scope stops it at
start with one line naming the scope.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Literal

import pytest

from tests.slack_standin import ALICE, BOB, GENERAL, SlackStandIn
from tests.slack_world import SECRET, free_port, no_slack_env_fixture  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[1]
WAIT = 60.0  # the first start loads the local embedder


def _heyan() -> list[str]:
    script = Path(sys.executable).with_name("heyan")
    return [str(script)] if script.exists() else [sys.executable, "-m", "adapters.cli.app"]


def _env(tmp_path: Path, slack: SlackStandIn, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEYAN_", "SLACK_"))}
    env.update(HEYAN_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1",
               HEYAN_LOG_LEVEL="INFO", HEYAN_SLACK_BOT_TOKEN=slack.workspace.bot_token,
               HEYAN_SLACK_API_URL=slack.api_url, **extra)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        env.pop(name, None)
    return env


async def _listening(port: int) -> None:
    """Wait until the port accepts connections (the platform binds it after its start-up checks)."""
    async with asyncio.timeout(WAIT):
        while True:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            writer.close()
            await writer.wait_closed()
            return


async def _reply_to(slack: SlackStandIn, count: int) -> str:
    call = await slack.wait_for_call("chat.postMessage", count=count, timeout=WAIT)
    return str(call.params.get("text"))


@pytest.mark.parametrize("mode", ["socket", "http"])
async def test_heyan_run_serves_slack_and_stops_on_sigterm(tmp_path: Path, mode: Literal["socket", "http"]) -> None:
    async with SlackStandIn() as slack:
        port = free_port()
        extra = ({"HEYAN_SLACK_APP_TOKEN": slack.workspace.app_token} if mode == "socket"
                 else {"HEYAN_SLACK_SIGNING_SECRET": SECRET, "HEYAN_SLACK_HTTP_PORT": str(port)})
        proc = await asyncio.create_subprocess_exec(
            *_heyan(), "run", cwd=tmp_path, env=_env(tmp_path, slack, **extra),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            mention = slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="are you there?")
            command = slack.payloads.slash_command(user=ALICE, channel=GENERAL,
                                                   text=f"dispute open <@{BOB}|bob> The parking spots")
            if mode == "socket":
                await slack.wait_for_socket(timeout=WAIT)
                await slack.wait_for_ack(await slack.socket_event(mention), timeout=WAIT)
                await slack.wait_for_ack(await slack.socket_command(command), timeout=WAIT)
            else:
                sender = slack.sender(f"http://127.0.0.1:{port}/slack/events", SECRET)
                await _listening(port)
                assert (await sender.event(mention)).status == 200
                assert (await sender.command(command)).status == 200
            replies = [await _reply_to(slack, 1), await _reply_to(slack, 2)]
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(proc.communicate(), WAIT)

    assert proc.returncode == 0, err.decode()[-3000:]
    posts = slack.calls_to("chat.postMessage")
    threaded = [p for p in posts if p.params.get("thread_ts") == mention["ts"]]
    opening = [p for p in posts if "The parking spots" in str(p.params.get("text"))]
    assert len(threaded) == 1 and "alice" in str(threaded[0].params["text"]), replies
    assert len(opening) == 1 and f"<@{BOB}>" in str(opening[0].params["text"])


async def test_heyan_run_stops_at_start_naming_a_missing_scope(tmp_path: Path) -> None:
    async with SlackStandIn() as slack:
        slack.remove_scope("chat:write")
        proc = await asyncio.create_subprocess_exec(
            *_heyan(), "run", cwd=tmp_path, env=_env(tmp_path, slack, HEYAN_SLACK_APP_TOKEN=slack.workspace.app_token),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(proc.communicate(), WAIT)

    lines = [ln for ln in err.decode().splitlines() if ln.startswith("error:")]
    assert proc.returncode == 2
    assert len(lines) == 1 and "lacks the scope chat:write" in lines[0], err.decode()[-2000:]
    assert "apps.connections.open" not in slack.methods_called()
