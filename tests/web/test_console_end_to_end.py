"""Issue 21's "done when", on the embedded shape through the real commands: after a replayed dispute
(``heyan chat --script examples/dispute_en.jsonl``), ``heyan web --local --port P`` lists the
community at GET /api/v1/tenants and its memories with source quotes, a POST .../confirm appears in
GET .../audit, and Chromium renders the first page with the community's memories; without
``--local`` an unauthenticated /api/v1 call gets 401."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.web.browser import chromium, screenshots

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
HEYAN = [sys.executable, "-c", "from adapters.cli.app import main; main()"]
TENANT = "console:t"


def _env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEYAN_")}
    return {**env, "HEYAN_DATA_DIR": str(data), "HEYAN_TIMEZONE": "America/New_York",
            "HEYAN_ENCRYPTION_KEYS": os.environ["HEYAN_ENCRYPTION_KEYS"], "HEYAN_LIMITS_ENABLED": "false"}


@contextmanager
def serving(env: dict[str, str], log: Path, *args: str, now: str | None = None) -> Iterator[str]:
    """``heyan [--now NOW] web ARGS --port 0`` until the block ends; yields its base URL, read from the
    line it prints once it listens (no sleeping, no polling). Its stderr goes to ``log``."""
    clock = ["--now", now] if now else []
    with log.open("w") as err:
        proc = subprocess.Popen([*HEYAN, *clock, "web", *args, "--port", "0"], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, f"no address in {line!r}; stderr: {log.read_text()}"
        yield f"http://127.0.0.1:{found.group(1)}"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, log.read_text()


async def test_replayed_dispute_is_served_by_heyan_web(tmp_path: Path) -> None:
    env = _env(tmp_path / "data")
    replay = await asyncio.to_thread(
        subprocess.run, [*HEYAN, "chat", "--script", str(ROOT / "examples/dispute_en.jsonl")], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=300)
    assert replay.returncode == 0, replay.stderr

    with serving(env, tmp_path / "local.log", "--local") as base:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            tenants = (await client.get("/api/v1/tenants")).json()
            assert {"id": TENANT, "name": "Console t", "platform": "console"} in tenants
            listed = await client.get(f"/api/v1/tenants/{TENANT}/memories")
            assert listed.status_code == 200, listed.text
            items = listed.json()["items"]
            assert items and all(m["sources"] and m["sources"][0]["quote"] for m in items)
            assert any("pay my half of the bill" in m["sources"][0]["quote"] for m in items)
            target = next(m for m in items if m["kind"] == "commitment")
            confirmed = await client.post(f"/api/v1/tenants/{TENANT}/memories/{target['id']}/confirm",
                                          json={"reason": "checked with both"})
            assert confirmed.status_code == 200, confirmed.text
            audit = (await client.get(f"/api/v1/tenants/{TENANT}/audit")).json()
            assert audit[0]["action"] == "memory.confirm" and audit[0]["target"] == target["id"]
            assert audit[0]["reason"] == "checked with both"
            # a page of another site cannot make the operator's console change anything
            forged = await client.post(f"/api/v1/tenants/{TENANT}/memories/{target['id']}/reject",
                                       headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
            assert forged.status_code == 403

        async with chromium() as browser:
            page = await browser.new_page()
            await page.goto(base + "/")
            await page.get_by_role("link", name=re.compile("Console t")).click()
            await page.wait_for_url(re.compile(r"/t/console:t/memories"))
            table = page.locator("#results table")
            await table.wait_for()
            assert "pay my half of the bill" in await table.inner_text()
            await page.screenshot(path=str(screenshots(tmp_path) / "web-local-memories.png"), full_page=True)

    with serving(env, tmp_path / "web.log") as base:
        async with httpx.AsyncClient(base_url=base, timeout=30) as plain:
            for path in ("/api/v1/tenants", f"/api/v1/tenants/{TENANT}/memories", f"/api/v1/tenants/{TENANT}/audit"):
                answer = await plain.get(path)
                assert answer.status_code == 401 and answer.json()["error"] == "sign_in_required", answer.text
