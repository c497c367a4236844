"""Abuse limits where anyone can call, and none where a moderator clicks: sign-in starts and bad API
tokens are limited per address (each start writes a state key to Redis), page views and API reads are
counted apart from the chat commands and generously, and every refusal is a 429 with ``Retry-After``
in the one error shape."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from adapters.runtime.composition import Runtime
from adapters.web.access.tokens import ApiTokens
from bot.config.settings import LimitSettings
from tests.jobs_helpers import Start
from tests.web.world import MOD, T, World, make_world, seed, web_settings

pytestmark = pytest.mark.usefixtures("hash_embedder")


async def _runtime(tmp_path: Path, redis_url: str, start: Start, **web: int) -> Runtime:
    s = web_settings(tmp_path, redis_url)
    return await start(s.model_copy(update={
        # the chat commands' own limit is tiny: page views must not count against it
        "limits": LimitSettings(enabled=True, commands_per_user="3/minute", commands_per_tenant="3/minute"),
        "web": s.web.model_copy(update=web)}), provider=None, worker=False)


@pytest.fixture
async def world(tmp_path: Path, redis_url: str, start: Start) -> AsyncIterator[World]:
    rt = await _runtime(tmp_path, redis_url, start)
    yield make_world(rt, await seed(rt))


async def _states(world: World) -> int:
    return len([k async for k in world.rt.redis.scan_iter(match="heyan:web:oauth-state:*")])


async def test_sign_in_starts_are_limited_per_address(world: World) -> None:
    async with world.client() as client:
        starts = [await client.get("/auth/discord") for _ in range(10)]
        assert all(a.status_code == 303 for a in starts)
        refused = await client.get("/auth/slack")
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert "too many sign-in attempts" in refused.text and 'role="alert"' in refused.text
        assert "content-security-policy" in refused.headers
        assert await _states(world) == 10  # the refused start wrote nothing
        other = httpx.AsyncClient(transport=httpx.ASGITransport(app=world.app, client=("203.0.113.9", 4000)),
                                  base_url=str(client.base_url))
        async with other:
            assert (await other.get("/auth/discord")).status_code == 303  # another address is not held back
        world.now[0] += timedelta(seconds=61)
        assert (await client.get("/auth/discord")).status_code == 303  # the next minute
        # bad callbacks (a guessed state) count against the same address
        for _ in range(10):
            assert (await client.get("/auth/discord/callback", params={"code": "x", "state": "guess"})).status_code == 403
        assert (await client.get("/auth/discord/callback", params={"code": "x", "state": "guess"})).status_code == 429


async def test_bad_tokens_are_limited_per_address_before_a_token_is_even_read(world: World) -> None:
    _, good = await ApiTokens(world.rt.redis, cipher=world.rt.cipher).create(T, label="script")
    async with world.client() as client:
        for i in range(10):
            bad = await client.get("/api/v1/tenants", headers={"Authorization": f"Bearer heyan_0000000{i}_" + "x" * 43})
            assert bad.status_code == 401 and bad.json()["error"] == "bad_token"
        held = await client.get("/api/v1/tenants", headers={"Authorization": f"Bearer {good}"})
        assert held.status_code == 429 and held.json()["error"] == "too_many_requests"
        assert set(held.json()) == {"error", "detail"} and "retry-after" in held.headers
        world.now[0] += timedelta(seconds=61)
        ok = await client.get("/api/v1/tenants", headers={"Authorization": f"Bearer {good}"})
        assert ok.status_code == 200 and ok.json()[0]["id"] == T


async def test_quick_clicks_never_meet_the_chat_commands_limit(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        for path in ("memories", "review", "commitments", "disputes", "members", "audit", "settings", "memories",
                     "review", "members"):
            page = await client.get(f"/t/{T}/{path}")
            assert page.status_code == 200, (path, page.status_code, page.text[:300])
        api = [await client.get(f"/api/v1/tenants/{T}/memories") for _ in range(5)]
        assert all(a.status_code == 200 for a in api)


async def test_page_views_have_a_limit_of_their_own(tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await _runtime(tmp_path, redis_url, start, views_per_minute=6)
    world = make_world(rt, await seed(rt))
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)  # the sign-in's own page view is the first
        for _ in range(5):
            assert (await client.get(f"/t/{T}/memories")).status_code == 200
        refused = await client.get(f"/t/{T}/memories")
        assert refused.status_code == 429 and "slow down" in refused.text and "retry-after" in refused.headers
        api = await client.get(f"/api/v1/tenants/{T}/memories")
        assert api.status_code == 429 and api.json()["error"] == "too_many_requests"
        world.now[0] += timedelta(seconds=61)
        assert (await client.get(f"/t/{T}/memories")).status_code == 200
