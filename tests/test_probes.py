"""Every Heyan process answers the probes: ``heyan web`` serves /healthz on HEYAN_METRICS_PORT too.

The Kubernetes manifests and compose.yaml probe the bot, the workers and the console alike on
``/healthz`` (deploy/k8s/, tests/test_k8s.py); the console served only its own port before.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a real `heyan web` process: runtime, store and embedder start


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode()


async def test_heyan_web_serves_healthz_on_the_metrics_port(tmp_path: Path) -> None:
    metrics = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEYAN_") or k == "HEYAN_ENCRYPTION_KEYS"}
    env.update(HEYAN_DATA_DIR=str(tmp_path / "data"), HEYAN_METRICS_PORT=str(metrics))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli.app", "web", "--local", "--port", "0", env=env, cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 180)  # printed once it listens
        assert b"Heyan console on" in line, line
        status, body = await asyncio.to_thread(_get, f"http://127.0.0.1:{metrics}/healthz")
        assert status == 200, body
        status, body = await asyncio.to_thread(_get, f"http://127.0.0.1:{metrics}/metrics")
        assert status == 200 and "heyan_" in body
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
