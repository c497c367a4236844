"""Many workspaces per deployment (issue 19): Heyan installed through Slack's OAuth v2 flow (bolt's
``AsyncOAuthFlow`` at /slack/install and /slack/oauth_redirect, installations sealed in Redis),
each workspace answered with its own token, uninstalling or revoking ends it cleanly, and a Redis
database serves one Slack app."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from adapters.runtime.composition import StartupError
from bot.delivery.outbox import Post, PostKind
from bot.text.richtext import RichText
from memory.models import Scope
from tests.slack_standin import ALICE, CAROL, GENERAL, SlackStandIn, SlackWorkspace
from tests.slack_world import (  # noqa: F401  (fixtures)
    World,
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
)

SECOND = SlackWorkspace(team_id="T0SECOND01", team_domain="second", team_name="Second", bot_user_id="U0HEYAN002",
                        bot_id="B0HEYAN002", bot_token="xoxb-2-second-standin")


def oauth(slack: SlackStandIn) -> dict[str, Any]:
    return {"bot_token": None, "client_id": slack.client_id, "client_secret": slack.client_secret}


async def install(w: World, ws: SlackWorkspace, user: str) -> tuple[int, str]:
    """An admin of ``ws`` installs Heyan: /slack/install → Slack's "Allow" → /slack/oauth_redirect."""
    base = w.url.removesuffix("/slack/events")
    w.slack.redirect_uri = f"{base}/slack/oauth_redirect"
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/slack/install") as page:
            assert page.status == 200, await page.text()
            cookie = page.headers["Set-Cookie"].split(";")[0]
            url = html.unescape(re.search(r'href="(https://slack\.com/oauth/v2/authorize[^"]+)"', await page.text())[1])
        back = w.slack.approve(url, ws, user)
        async with http.get(back, headers={"Cookie": cookie}) as done:
            return done.status, await done.text()


def mention_from(w: World, ws: SlackWorkspace, user: str, text: str) -> dict[str, Any]:
    event = w.slack.payloads.app_mention(user=user, channel=GENERAL, text=text)
    event["text"] = event["text"].replace(w.slack.workspace.bot_user_id, ws.bot_user_id)
    event["team"] = ws.team_id
    return w.slack.payloads.event_callback(event, workspace=ws)


async def test_workspaces_install_heyan_and_each_is_answered_with_its_own_token(tmp_path: Path, redis_url: str) -> None:
    async with SlackStandIn() as slack, slack_world(tmp_path, redis_url, slack=slack,
                                                    slack_overrides=oauth(slack)) as w:
        first = await install(w, slack.workspace, CAROL)
        second = await install(w, SECOND, ALICE)
        raw = await w.rt.redis.get("heyan:slack-install:slack:T0SECOND01")
        for ws in (slack.workspace, SECOND):
            reply = await w.sender.event(mention_from(w, ws, ALICE, f"hello from {ws.team_name}"))
            assert await w.settle(reply) == ["replied"]
        posts = {c.token: c.params["text"] for c in slack.calls_to("chat.postMessage")}
        tenants = sorted({m.scope.tenant for t in ("slack:T0HEYAN001", "slack:T0SECOND01")
                          for s in await w.rt.sessions.tenant_sessions(t)
                          for m in await w.rt.window.recent(Scope(tenant=t, session=s.session))})
        replayed = await install_again(w)

    assert first[0] == 200 and second[0] == 200
    assert raw is not None and b"xoxb-" not in raw  # the token is sealed at rest
    assert set(posts) == {slack.workspace.bot_token, SECOND.bot_token}
    assert tenants == ["slack:T0HEYAN001", "slack:T0SECOND01"]  # each workspace is its own tenant
    assert replayed == 401  # a redirect whose state was consumed is refused


async def install_again(w: World) -> int:
    """Replay a redirect whose ``state`` was already used: bolt refuses it (the state store said no)."""
    base = w.url.removesuffix("/slack/events")
    async with aiohttp.ClientSession() as http, http.get(
            f"{base}/slack/oauth_redirect?code=x&state=used", headers={"Cookie": "slack-app-oauth-state=used"}) as r:
        return r.status


async def test_uninstalling_ends_the_workspace_cleanly(tmp_path: Path, redis_url: str) -> None:
    """After app_uninstalled the installation is gone, the purge is scheduled, and a post still
    waiting for that workspace fails once, permanently — nothing is posted, nothing retried."""
    async with SlackStandIn() as slack, slack_world(tmp_path, redis_url, slack=slack,
                                                    slack_overrides=oauth(slack)) as w:
        await install(w, SECOND, ALICE)
        tenant = "slack:T0SECOND01"
        left = await w.sender.event(slack.uninstall(SECOND.team_id))
        outcome = await w.settle(left)
        gone = await w.rt.redis.get(f"heyan:slack-install:{tenant}")
        marker = await w.rt.redis.get(f"heyan:tenant-left:{tenant}")
        await w.rt.outbox.append(Post(id=f"late:{tenant}", tenant=tenant, session=GENERAL,
                                      body=RichText.of("a follow-up due after they left"), kind=PostKind.REMINDER))
        await w.rt.deliver_now()
        record = await w.rt.outbox.get(f"late:{tenant}")
        posted = [c for c in slack.calls_to("chat.postMessage") if c.token == SECOND.bot_token]

    assert outcome == ["left"] and gone is None and marker is not None
    assert record is not None and record.state.value == "dead" and "no longer installed" in (record.error or "")
    assert posted == []


async def test_one_redis_database_serves_one_slack_app(tmp_path: Path, redis_url: str) -> None:
    async with SlackStandIn() as slack:
        async with slack_world(tmp_path, redis_url, slack=slack):
            pass
        with pytest.raises(StartupError, match="already serves another Slack app"):
            async with slack_world(tmp_path, redis_url, slack=slack, slack_overrides=oauth(slack)):
                pass


async def test_installations_are_sealed_and_follow_a_key_rotation(redis_url: str) -> None:
    from redis.asyncio import Redis

    from adapters.slack.connection.workspaces import RedisInstallationStore, Workspace
    from memory.store.crypto import Cipher, generate_key, parse_keys

    old, new = parse_keys(generate_key())[0], parse_keys(generate_key())[0]
    redis = Redis.from_url(redis_url)
    try:
        ws = Workspace(tenant="slack:T1", team_id="T1", bot_token="xoxb-secret", bot_user_id="U1", bot_id="B1")
        await RedisInstallationStore(redis, Cipher([old])).put(ws)
        rotated = RedisInstallationStore(redis, Cipher([new, old]))
        assert await rotated.reseal(lambda _n: None) == 1
        after_rotation = await RedisInstallationStore(redis, Cipher([new])).find("slack:T1")  # the old key retired
        raw = await redis.get("heyan:slack-install:slack:T1")
    finally:
        await redis.aclose()

    assert after_rotation == ws and raw is not None and b"xoxb-secret" not in raw
    assert "bot_token" not in repr(ws) and "xoxb" not in repr(ws)


async def test_a_revoked_token_fails_a_post_once_with_the_reason(tmp_path: Path, redis_url: str) -> None:
    """The token stops working before Slack's tokens_revoked event arrives: the post is dead-lettered
    at its first refusal, with Slack's reason — not retried for hours, not posted twice."""
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.revoked_tokens.add(w.slack.workspace.bot_token)
        await w.rt.outbox.append(Post(id="revoked:1", tenant=w.tenant, session=GENERAL,
                                      body=RichText.of("a follow-up"), kind=PostKind.REMINDER))

        async def dead() -> Any:
            record = await w.rt.outbox.get("revoked:1")
            return record if record is not None and record.state.value == "dead" else None

        record = await w.until(dead, "the post was never dead-lettered")
        await w.rt.deliver_now()
        attempts = list(w.slack.calls_to("chat.postMessage"))

    assert record is not None and record.state.value == "dead"
    assert "token_revoked" in (record.error or "") and "revoked its token" in (record.error or "")
    assert len(attempts) == 1 and attempts[0].response["error"] == "token_revoked"
