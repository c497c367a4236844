"""Moderator-only data stays with moderators: a plain member sees their own record (and what they did
to it), never a moderator's audit entry or its reason, nor forms only moderators may use; and a Slack
workspace admin reaches a workspace only once Heyan is installed there (not even its settings)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.actors import Actor
from tests.jobs_helpers import Start
from tests.web.oauth_standin import SlackUser
from tests.web.world import (
    MEMBER,
    MOD,
    MOD_NOTE,
    SLACK_ADMIN,
    SLACK_T,
    T,
    World,
    make_world,
    seed,
    seed_console,
    web_settings,
)

pytestmark = pytest.mark.usefixtures("hash_embedder")

ELSEWHERE = "U0ELSE"


@pytest.fixture
async def world(tmp_path: Path, redis_url: str, start: Start) -> AsyncIterator[World]:
    rt = await start(web_settings(tmp_path, redis_url), provider=None, worker=False)
    ids = await seed(rt)
    yield make_world(rt, ids | await seed_console(rt))


async def test_a_member_sees_their_record_without_moderators_notes_or_forms(world: World) -> None:
    mine = world.ids["ann"]
    async with world.client() as client:
        await world.sign_in(client, "discord", MEMBER)
        page = await client.get(f"/t/{T}/memories/{mine}")
        assert page.status_code == 200, page.text[:300]
        assert "the music off after eleven" in page.text
        assert MOD_NOTE not in page.text and "memory.confirm" not in page.text
        for form in ("/confirm", "/reject", "/delete", "/correct"):
            assert f'action="/t/{T}/memories/{mine}{form}"' not in page.text, form
        assert "Only moderators confirm, reject or delete" in page.text
        assert f'href="/t/{T}/audit"' not in page.text and f'href="/t/{T}/review"' not in page.text  # no dead tabs
        api = (await client.get(f"/api/v1/tenants/{T}/memories/{mine}")).json()
        assert api["memory"]["id"] == mine and api["audit"] == []
        refused = await client.get(f"/t/{T}/audit")
        assert refused.status_code == 403
        someone_else = await client.get(f"/t/{T}/memories/{world.ids['evil']}")
        assert someone_else.status_code == 404  # not theirs: not even that it exists
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        page = await client.get(f"/t/{T}/memories/{mine}")
        assert MOD_NOTE in page.text and f'action="/t/{T}/memories/{mine}/delete"' in page.text


async def test_a_slack_admin_of_a_workspace_without_heyan_reaches_nothing(world: World) -> None:
    world.standin.slack_users[ELSEWHERE] = SlackUser(ELSEWHERE, "Eve", "T9", "Elsewhere", "elsewhere", admin=True)
    before = await world.rt.tenants.tenants()
    async with world.client() as client:
        csrf = await world.sign_in(client, "slack", ELSEWHERE)
        assert (await client.get("/api/v1/tenants")).json() == []
        for method, path, body in (("GET", "/api/v1/tenants/slack:T9/settings", None),
                                   ("PATCH", "/api/v1/tenants/slack:T9/settings", {"timezone": "Asia/Tokyo"}),
                                   ("GET", "/t/slack:T9/settings", None)):
            answer = await client.request(method, path, json=body, headers={"X-CSRF-Token": csrf})
            assert answer.status_code == 403, (path, answer.text[:300])
            assert "not installed" in answer.text
        other = await client.get(f"/api/v1/tenants/{SLACK_T}/settings")
        assert other.status_code == 403  # and the workspace Heyan is in is not theirs
    assert await world.rt.tenants.tenants() == before  # no settings created for a workspace Heyan never joined
    assert not [e for e in await world.rt.moderation.audit_log(Actor.operator("slack:T9"))]
    async with world.client() as client:
        await world.sign_in(client, "slack", SLACK_ADMIN)  # the admin of the workspace Heyan is in
        assert (await client.get(f"/api/v1/tenants/{SLACK_T}/settings")).status_code == 200
