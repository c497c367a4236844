"""The REST API through httpx's ASGI transport on a real runtime: who may call what, what comes back,
and that every bad input is refused with a clear status and message and changes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from adapters.web.access.tokens import ApiTokens
from memory.models import FactStatus, Scope
from tests.jobs_helpers import Start
from tests.web.oauth_standin import DiscordUser
from tests.web.world import (
    EVIL_NAME,
    EVIL_VALUE,
    MEMBER,
    MOD,
    OTHER,
    ROLE_MOD,
    SLACK_ADMIN,
    SLACK_MEMBER,
    SLACK_T,
    T,
    World,
    make_world,
    seed,
    web_settings,
)

pytestmark = pytest.mark.usefixtures("hash_embedder")


@pytest.fixture
async def world(tmp_path: Path, redis_url: str, start: Start) -> AsyncIterator[World]:
    rt = await start(web_settings(tmp_path, redis_url), provider=None, worker=False)
    yield make_world(rt, await seed(rt))


async def _token(world: World, tenant: str = T, *, read_only: bool = False) -> dict[str, str]:
    _, text = await ApiTokens(world.rt.redis, cipher=world.rt.cipher).create(tenant, label="script",
                                                                             read_only=read_only)
    return {"Authorization": f"Bearer {text}"}


async def test_every_api_call_without_a_session_or_token_gets_401(world: World) -> None:
    async with world.client() as client:
        for method, path in (("GET", "/api/v1/tenants"), ("GET", f"/api/v1/tenants/{T}/memories"),
                             ("POST", f"/api/v1/tenants/{T}/memories/{world.ids['dispute']}/confirm"),
                             ("DELETE", f"/api/v1/tenants/{T}/members/2002"), ("GET", f"/api/v1/tenants/{T}/audit"),
                             ("GET", f"/api/v1/tenants/{T}/members"), ("GET", f"/api/v1/tenants/{T}/members/Bea")):
            answer = await client.request(method, path)
            assert answer.status_code == 401, (method, path, answer.text)
            assert answer.json()["error"] == "sign_in_required" and "sign in" in answer.json()["detail"]
        bad = await client.get("/api/v1/tenants", headers={"Authorization": "Bearer heyan_00000000_" + "x" * 43})
        assert bad.status_code == 401 and bad.json()["error"] == "bad_token"
        # the schema is public: it describes the API, not the data
        schema = (await client.get("/api/v1/openapi.json")).json()
        assert "/api/v1/tenants/{tenant}/memories/{memory}/confirm" in schema["paths"]
    assert (await world.rt.moderation.memory_show(_operator(), world.ids["dispute"])).status is FactStatus.DISPUTED


def _operator() -> object:
    from bot.actors import Actor

    return Actor.operator(T)


async def test_discord_moderator_lists_tenants_memories_with_quotes_and_confirm_is_audited(world: World) -> None:
    async with world.client() as client:
        csrf = await world.sign_in(client, "discord", MOD)
        tenants = (await client.get("/api/v1/tenants")).json()
        # Mo moderates guild 100 (Manage Messages); in guild 200 Mo is a plain member: not listed
        assert tenants == [{"id": T, "name": "Maple Guild", "platform": "discord"}]
        listed = (await client.get(f"/api/v1/tenants/{T}/memories")).json()
        assert listed["total"] == 5
        bill = next(m for m in listed["items"] if m["id"] == world.ids["bill"])
        source = bill["sources"][0]
        assert source["quote"] == "pay my half of the bill by Friday" and source["author_name"] == EVIL_NAME
        assert source["link"] == "https://discord.com/channels/100/555/9001"
        confirmed = await client.post(f"/api/v1/tenants/{T}/memories/{world.ids['dispute']}/confirm",
                                      json={"reason": "both agreed"}, headers={"X-CSRF-Token": csrf})
        assert confirmed.status_code == 200, confirmed.text
        assert confirmed.json()["status"] == "active"
        audit = (await client.get(f"/api/v1/tenants/{T}/audit")).json()
        assert audit[0]["action"] == "memory.confirm" and audit[0]["target"] == world.ids["dispute"]
        assert audit[0]["actor_id"] == MOD and audit[0]["actor_name"] == "Mo" and audit[0]["reason"] == "both agreed"


async def test_member_without_the_capability_gets_403_and_nothing_changes(world: World) -> None:
    async with world.client() as client:
        csrf = await world.sign_in(client, "discord", MEMBER)
        assert (await client.get("/api/v1/tenants")).json() == []
        refused = await client.get(f"/api/v1/tenants/{T}/memories")
        assert refused.status_code == 403 and "Manage Messages" in refused.json()["detail"]
        confirm = await client.post(f"/api/v1/tenants/{T}/memories/{world.ids['dispute']}/confirm",
                                    headers={"X-CSRF-Token": csrf})
        assert confirm.status_code == 403
        # a guild Ann is not in at all
        stranger = await client.get(f"/api/v1/tenants/{OTHER}/memories")
        assert stranger.status_code == 403 and "not a member" in stranger.json()["detail"]
        zh = await client.get(f"/api/v1/tenants/{T}/review", headers={"Accept-Language": "zh-CN,zh;q=0.9"})
        assert zh.status_code == 403 and "管理员" in zh.json()["detail"]
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        other = await client.get(f"/api/v1/tenants/{OTHER}/memories")  # Mo is only a member there
        assert other.status_code == 403
    assert (await world.rt.moderation.memory_show(_operator(), world.ids["dispute"])).status is FactStatus.DISPUTED  # type: ignore[arg-type]


async def test_moderator_role_counts_as_the_discord_adapter_decides(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", ROLE_MOD)
        assert [t["id"] for t in (await client.get("/api/v1/tenants")).json()] == [T]
        assert (await client.get(f"/api/v1/tenants/{T}/review")).status_code == 200


async def test_the_communitys_own_moderator_roles_count(world: World) -> None:
    world.standin.discord_users["1004"] = DiscordUser("1004", "Dee", {"100": ("Maple Guild", 0, False)},
                                                      roles={"100": ["88"]})
    async with world.client() as client:
        await world.sign_in(client, "discord", "1004")
        assert (await client.get(f"/api/v1/tenants/{T}/review")).status_code == 403
        changed = await client.patch(f"/api/v1/tenants/{T}/settings", headers=await _token(world),
                                     json={"moderator_roles": ["88"], "reason": "Dee's team"})
        assert changed.status_code == 200, changed.text
        world.mono[0] += 61
        assert (await client.get(f"/api/v1/tenants/{T}/review")).status_code == 200


async def test_platform_answers_are_cached_briefly_then_asked_again(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        assert (await client.get(f"/api/v1/tenants/{T}/memories")).status_code == 200
        asked = world.standin.calls.count("discord:/users/@me/guilds")
        # Mo loses Manage Messages on the platform: within the cache the old answer holds ...
        world.standin.discord_users[MOD].guilds["100"] = ("Maple Guild", 0, False)
        assert (await client.get(f"/api/v1/tenants/{T}/memories")).status_code == 200
        assert world.standin.calls.count("discord:/users/@me/guilds") == asked
        world.mono[0] += 61  # ... and after HEYAN_WEB_RECHECK_SECONDS the platform is asked again
        assert (await client.get(f"/api/v1/tenants/{T}/memories")).status_code == 403
        assert world.standin.calls.count("discord:/users/@me/guilds") == asked + 1


async def test_slack_sign_in_admin_moderates_member_does_not(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "slack", SLACK_ADMIN)
        assert (await client.get("/api/v1/tenants")).json() == [{"id": SLACK_T, "name": "Acme", "platform": "slack"}]
        listed = (await client.get(f"/api/v1/tenants/{SLACK_T}/memories")).json()
        assert listed["items"][0]["sources"][0]["link"] == "https://acme.slack.com/archives/C0123456/p1700000000000100"
        assert (await client.get(f"/api/v1/tenants/{T}/memories")).status_code == 403
    async with world.client() as client:
        await world.sign_in(client, "slack", SLACK_MEMBER)
        assert (await client.get(f"/api/v1/tenants/{SLACK_T}/memories")).status_code == 403


async def test_forged_or_missing_csrf_token_is_refused_and_nothing_changes(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        path = f"/api/v1/tenants/{T}/memories/{world.ids['dispute']}/reject"
        for headers in ({}, {"X-CSRF-Token": "forged"}):
            answer = await client.post(path, headers=headers)
            assert answer.status_code == 403 and answer.json()["error"] == "csrf", answer.text
        form = await client.post(f"/t/{T}/memories/{world.ids['dispute']}/reject", data={"csrf_token": "forged"})
        assert form.status_code == 403 and "security token" in form.text
    assert (await world.rt.moderation.memory_show(_operator(), world.ids["dispute"])).status is FactStatus.DISPUTED  # type: ignore[arg-type]
    assert await world.rt.moderation.audit_log(_operator()) == []  # type: ignore[arg-type]


async def test_expired_session_gets_401(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        assert (await client.get("/api/v1/tenants")).status_code == 200
        world.now[0] += timedelta(hours=12, seconds=1)
        expired = await client.get("/api/v1/tenants")
        assert expired.status_code == 401 and expired.json()["error"] == "session_expired"
        assert "expired" in expired.json()["detail"]
        page = await client.get("/")
        assert page.status_code == 303 and page.headers["location"] == "/login"


async def test_tokens_are_scoped_revocable_and_read_only_when_asked(world: World) -> None:
    tokens = ApiTokens(world.rt.redis, cipher=world.rt.cipher)
    async with world.client() as client:
        headers = await _token(world)
        assert (await client.get("/api/v1/tenants", headers=headers)).json()[0]["id"] == T
        assert (await client.get(f"/api/v1/tenants/{OTHER}/memories", headers=headers)).status_code == 403
        done = await client.post(f"/api/v1/tenants/{T}/commitments/{world.ids['bill']}/done", headers=headers)
        assert done.status_code == 200 and done.json()["status"] == "done"  # no CSRF token needed with a token
        reader = await _token(world, read_only=True)
        assert (await client.get(f"/api/v1/tenants/{T}/review", headers=reader)).status_code == 200
        refused = await client.post(f"/api/v1/tenants/{T}/memories/{world.ids['dispute']}/confirm", headers=reader)
        assert refused.status_code == 403 and refused.json()["error"] == "read_only_token"
        token_id = headers["Authorization"].split("_")[1]
        assert await tokens.revoke(token_id)
        assert (await client.get("/api/v1/tenants", headers=headers)).status_code == 401
    raw = [v async for v in _values(world)]
    assert raw and not any(headers["Authorization"].split("_", 2)[2].encode() in v for v in raw)  # only a digest, sealed


async def _values(world: World) -> AsyncIterator[bytes]:
    async for key in world.rt.redis.scan_iter(match="heyan:web:token:*"):
        yield bytes(await world.rt.redis.get(key))


async def test_member_id_from_another_tenant_is_404(world: World) -> None:
    async with world.client() as client:
        headers = await _token(world)
        assert (await client.get(f"/api/v1/tenants/{T}/members/2002", headers=headers)).status_code == 200
        for method, suffix in (("GET", ""), ("GET", "/export"), ("DELETE", "")):
            answer = await client.request(method, f"/api/v1/tenants/{T}/members/3001{suffix}", headers=headers)
            assert answer.status_code == 404 and "3001" in answer.json()["detail"], answer.text
    assert len(await world.rt.memory.list_facts(Scope(tenant=OTHER, user="3001"))) == 1


async def test_erase_needs_its_confirmation_token(world: World) -> None:
    async with world.client() as client:
        headers = await _token(world)
        first = await client.delete(f"/api/v1/tenants/{T}/members/2002", headers=headers)
        assert first.status_code == 428 and first.json()["error"] == "confirmation_required"
        assert first.json()["memories"] == 3
        wrong = await client.delete(f"/api/v1/tenants/{T}/members/2002?confirm=wrong", headers=headers)
        assert wrong.status_code == 400 and "confirmation" in wrong.json()["detail"]
        assert len(await world.rt.memory.list_facts(Scope(tenant=T, user="2002"))) == 3  # nothing changed yet
        done = await client.delete(f"/api/v1/tenants/{T}/members/2002?confirm={first.json()['token']}",
                                   headers=headers)
        assert done.status_code == 200 and done.json()["erased"] >= 3
        assert await world.rt.memory.list_facts(Scope(tenant=T, user="2002")) == []
        audit = (await client.get(f"/api/v1/tenants/{T}/audit", headers=headers)).json()
        assert audit[0]["action"] == "member.erase" and audit[0]["actor_id"].startswith("token:")


async def test_huge_search_query_is_refused_clearly(world: World) -> None:
    async with world.client() as client:
        headers = await _token(world)
        huge = await client.get(f"/api/v1/tenants/{T}/memories", params={"q": "bill " * 2000}, headers=headers)
        assert huge.status_code == 400 and "shorten it to at most 500" in huge.json()["detail"]
        found = await client.get(f"/api/v1/tenants/{T}/memories", params={"q": "printer"}, headers=headers)
        assert found.status_code == 200
        assert world.ids["dispute"] in [m["id"] for m in found.json()["items"]]


async def test_edit_snooze_settings_and_review_through_the_api(world: World) -> None:
    async with world.client() as client:
        headers = await _token(world)
        review = (await client.get(f"/api/v1/tenants/{T}/review", headers=headers)).json()
        assert [m["id"] for m in review["items"]] == [world.ids["dispute"]]
        edited = await client.patch(f"/api/v1/tenants/{T}/memories/{world.ids['dispute'][:8]}", headers=headers,
                                    json={"value": "the printer broke by itself", "reason": "checked"})
        assert edited.status_code == 200 and edited.json()["version"] == 2 and edited.json()["status"] == "active"
        empty = await client.patch(f"/api/v1/tenants/{T}/memories/{world.ids['dispute']}", headers=headers,
                                   json={"value": "   "})
        assert empty.status_code == 400 and "empty" in empty.json()["detail"]
        past = await client.post(f"/api/v1/tenants/{T}/commitments/{world.ids['late']}/snooze", headers=headers,
                                 json={"until": "2020-01-01T00:00:00+00:00"})
        assert past.status_code == 400 and "past" in past.json()["detail"]
        board = (await client.get(f"/api/v1/tenants/{T}/commitments", headers=headers)).json()
        assert [m["id"] for m in board["overdue"]] == [world.ids["late"]]
        assert sum(w["kept"] for w in board["weeks"]) == 1 and sum(w["overdue"] for w in board["weeks"]) == 1
        bad = await client.patch(f"/api/v1/tenants/{T}/settings", headers=headers, json={"timezone": "Mars/Base"})
        assert bad.status_code == 400 and "IANA" in bad.json()["detail"]
        good = await client.patch(f"/api/v1/tenants/{T}/settings", headers=headers,
                                  json={"timezone": "Asia/Shanghai", "reason": "most of us are there"})
        assert good.json()["values"]["timezone"] == "Asia/Shanghai"
        audit = (await client.get(f"/api/v1/tenants/{T}/audit", headers=headers)).json()
        assert audit[0]["action"] == "settings.update" and audit[0]["after"] == {"timezone": "Asia/Shanghai"}
        assert audit[0]["reason"] == "most of us are there"
        deleted = await client.delete(f"/api/v1/tenants/{T}/memories/{world.ids['evil']}", headers=headers)
        assert deleted.status_code == 200
        gone = await client.get(f"/api/v1/tenants/{T}/memories/{world.ids['evil']}", headers=headers)
        assert gone.status_code == 404


async def test_member_supplied_html_is_escaped_on_every_page(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        pages = [f"/t/{T}/memories", f"/t/{T}/memories/{world.ids['bill']}", f"/t/{T}/memories/{world.ids['evil']}",
                 f"/t/{T}/members/2001", f"/t/{T}/members/2002", f"/t/{T}/commitments", f"/t/{T}/review",
                 f"/t/{T}/audit", f"/t/{T}/memories?q=%3Cscript%3Ealert(1)%3C/script%3E"]
        for path in pages:
            page = await client.get(path)
            assert page.status_code == 200, (path, page.text[:300])
            for raw in ("<script>alert", "<img src=x", "<b>bold</b>"):
                assert raw not in page.text, (path, raw)
        member = await client.get(f"/t/{T}/members/2001")
        assert "&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt;" in member.text
        assert "&lt;b&gt;bold&lt;/b&gt;" in (await client.get(f"/t/{T}/memories/{world.ids['evil']}")).text
        assert "script-src 'self'" in member.headers["content-security-policy"]
        assert EVIL_VALUE  # the raw value is only ever in JSON, where it is data


async def test_session_cookie_is_httponly_secure_lax(world: World) -> None:
    async with world.client() as client:
        world.standin.signs_in = MOD
        start = await client.get("/auth/discord")
        assert "state=" in start.headers["location"] and "scope=identify+guilds" in start.headers["location"]
        # a callback with a state this browser never got is refused (login CSRF)
        forged = await client.get("/auth/discord/callback?code=abc&state=not-mine")
        assert forged.status_code == 403
        await world.sign_in(client, "discord", MOD)
    async with world.client() as client:
        world.standin.signs_in = MOD
        await client.get("/auth/discord")
        from httpx import ASGITransport, AsyncClient

        async with AsyncClient(transport=ASGITransport(app=world.standin.app)) as provider:
            consent = await provider.get((await client.get("/auth/discord")).headers["location"])
        done = await client.get(consent.headers["location"].removeprefix("https://heyan.test"))
        cookie = done.headers["set-cookie"].lower()
        assert "heyan_session=" in cookie and "httponly" in cookie and "secure" in cookie and "samesite=lax" in cookie


async def test_sign_in_refusals_are_clear(world: World) -> None:
    from httpx import ASGITransport, AsyncClient

    async with world.client() as client, AsyncClient(transport=ASGITransport(app=world.standin.app)) as provider:
        world.standin.decline = True
        consent = await provider.get((await client.get("/auth/discord")).headers["location"])
        cancelled = await client.get(consent.headers["location"].removeprefix("https://heyan.test"))
        assert cancelled.status_code == 403 and "cancelled" in cancelled.text
        world.standin.decline = False
        world.standin.signs_in = MOD
        consent = await provider.get((await client.get("/auth/discord")).headers["location"])
        callback = consent.headers["location"].removeprefix("https://heyan.test")
        world.standin.discord_client = ("disc-client", "rotated-secret")  # the app's secret is now wrong
        refused = await client.get(callback)
        assert refused.status_code == 401 and "refused the sign-in code" in refused.text
        assert (await client.get("/api/v1/tenants")).status_code == 401  # no session was made
        replay = await client.get(callback)  # the state was used up
        assert replay.status_code == 403
