"""``heyan run`` serves the web console beside the platforms when ``HEYAN_WEB_PORT`` is set."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from pathlib import Path

import httpx

from adapters.runtime.platforms import run_platforms
from bot.config.settings import WebSettings
from tests.discord_harness import WAIT, discord_settings, hash_embedder, redis_url
from tests.discord_standin import DiscordStandIn

__all__ = ["hash_embedder", "redis_url"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_heyan_run_serves_the_console_beside_discord(tmp_path: Path, redis_url: str) -> None:
    async with DiscordStandIn() as standin:
        port = _free_port()
        s = discord_settings(tmp_path / "data", redis_url, standin)
        s = s.model_copy(update={"web": WebSettings(port=port, host="127.0.0.1")})
        running = asyncio.create_task(run_platforms(s, worker=False))
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
                deadline = asyncio.get_running_loop().time() + WAIT
                while True:  # until the console answers (or the bot stopped with an error)
                    if running.done():
                        running.result()
                    try:
                        schema = await client.get("/api/v1/openapi.json")
                        break
                    except httpx.ConnectError:
                        assert asyncio.get_running_loop().time() < deadline, "the console never answered"
                        await asyncio.sleep(0.1)
                assert schema.status_code == 200
                assert (await client.get("/api/v1/tenants")).status_code == 401
            assert not running.done()
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
