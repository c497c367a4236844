"""Every boundary refuses what it cannot keep, clearly, and changes nothing: settings that are not
finite numbers in range (the API's JSON, the settings form, values stored before this check), a
snooze to year 9999, export names in any alphabet or with a quote (RFC 5987 ``filename*``) — and
the audit trail records only what happened. One error shape for 404, 422 and 500, with the security
headers on every answer."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import quote, unquote

import httpx
import pytest

from bot.actors import Actor
from tests.jobs_helpers import Start
from tests.web.world import (
    APP,
    MOD,
    QUOTE_ID,
    UNICODE_ID,
    T,
    World,
    make_world,
    seed,
    seed_console,
    web_settings,
)

pytestmark = pytest.mark.usefixtures("hash_embedder")

HEADERS = ("content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options")


@pytest.fixture
async def world(tmp_path: Path, redis_url: str, start: Start) -> AsyncIterator[World]:
    rt = await start(web_settings(tmp_path, redis_url), provider=None, worker=False)
    ids = await seed(rt)
    yield make_world(rt, ids | await seed_console(rt))


async def _actions(world: World) -> list[str]:
    return [e.action for e in await world.rt.moderation.audit_log(Actor.operator(T), limit=500)]


async def test_settings_refuse_nan_infinity_and_out_of_range_numbers_and_save_nothing(world: World) -> None:
    before, audited = await world.rt.moderation.community_settings(Actor.operator(T)), await _actions(world)
    async with world.client() as client:
        csrf = await world.sign_in(client, "discord", MOD)
        send = {"X-CSRF-Token": csrf, "Content-Type": "application/json"}
        for raw in ('{"retention_days": {"demand": NaN}}', '{"closed_purge_days": Infinity}',
                    '{"closed_purge_days": 1e999}', '{"forget_after_days": -Infinity}', '{"forget_below": NaN}'):
            answer = await client.patch(f"/api/v1/tenants/{T}/settings", content=raw, headers=send)
            assert answer.status_code == 422, (raw, answer.text)
            body = answer.json()
            assert set(body) == {"error", "detail"} and body["error"] == "invalid_request"
            assert "finite" in body["detail"], body
        for data, words in (({"closed_purge_days": 5000}, "less than or equal to 3650"),
                            ({"retention_days": {"demand": 0}}, "retention for demand"),
                            ({"forget_below": 2}, "less than or equal to 1"),
                            ({"timezone": "Mars/Olympus"}, "IANA")):
            answer = await client.patch(f"/api/v1/tenants/{T}/settings", json=data, headers={"X-CSRF-Token": csrf})
            assert answer.status_code in (400, 422) and words in answer.json()["detail"], (data, answer.text)
        # the form reads numbers as strictly, and says which field was wrong
        for field, value in (("closed_purge_days", "nan"), ("retention_demand", "inf"), ("forget_below", "1e999"),
                             ("forget_after_days", "-3"), ("retention_event", "soon")):
            page = await client.post(f"/t/{T}/settings", data={"csrf_token": csrf, field: value})
            assert page.status_code == 400, (field, page.status_code)
            assert "must be a" in page.text and value in page.text, page.text[:400]
        # the same values again change nothing: no audit entry for a change that did not happen
        same = await client.patch(f"/api/v1/tenants/{T}/settings", json={"closed_purge_days": before.closed_purge_days},
                                  headers={"X-CSRF-Token": csrf})
        assert same.status_code == 200
    assert await world.rt.moderation.community_settings(Actor.operator(T)) == before
    assert await _actions(world) == audited


async def test_a_nan_stored_before_the_check_is_ignored_and_audited_actions_still_work(world: World) -> None:
    # what the API saved before this check: from then on every audited action in the community failed
    await world.rt.redis.hset(f"heyan:tenant-settings:{T}", mapping={"retention_days": '{"demand": NaN}',
                                                                      "closed_purge_days": "Infinity"})
    async with world.client() as client:
        csrf = await world.sign_in(client, "discord", MOD)
        shown = (await client.get(f"/api/v1/tenants/{T}/settings")).json()["values"]
        assert shown["retention_days"] == {} and shown["closed_purge_days"] == 30.0  # the defaults apply
        confirmed = await client.post(f"/api/v1/tenants/{T}/memories/{world.ids['dispute']}/confirm",
                                      json={"reason": "fine"}, headers={"X-CSRF-Token": csrf})
        assert confirmed.status_code == 200, confirmed.text
    assert (await _actions(world))[0] == "memory.confirm"


async def test_a_snooze_beyond_two_years_is_refused_and_nothing_changes(world: World) -> None:
    bill = world.ids["bill"]
    before = await world.rt.moderation.memory_show(Actor.operator(T), bill)
    async with world.client() as client:
        csrf = await world.sign_in(client, "discord", MOD)
        for until in ("9999-12-31T00:00:00+00:00", "2099-01-01T00:00:00Z"):
            answer = await client.post(f"/api/v1/tenants/{T}/commitments/{bill}/snooze", json={"until": until},
                                       headers={"X-CSRF-Token": csrf})
            assert answer.status_code == 400 and "more than 2 years away" in answer.json()["detail"], answer.text
        naive = await client.post(f"/api/v1/tenants/{T}/commitments/{bill}/snooze",
                                  json={"until": "2027-01-01T00:00:00"}, headers={"X-CSRF-Token": csrf})
        assert naive.status_code == 400 and "timezone" in naive.json()["detail"]
        nonsense = await client.post(f"/api/v1/tenants/{T}/commitments/{bill}/snooze", json={"until": "soon"},
                                     headers={"X-CSRF-Token": csrf})
        assert nonsense.status_code == 422 and nonsense.json()["error"] == "invalid_request"
    assert (await world.rt.moderation.memory_show(Actor.operator(T), bill)).due_at == before.due_at
    assert "commitment.snooze" not in await _actions(world)


async def test_exports_of_ids_in_any_alphabet_or_with_a_quote_and_only_real_exports_are_audited(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        for user in (UNICODE_ID, QUOTE_ID):
            for path in (f"/api/v1/tenants/{T}/members/{quote(user, safe='')}/export",
                         f"/t/{T}/members/{quote(user, safe='')}/export"):
                answer = await client.get(path)
                assert answer.status_code == 200, (path, answer.text[:200])
                header = answer.headers["content-disposition"]
                assert header.isascii() and header.count('"') == 2, header  # one quoted ASCII name, well-formed
                assert unquote(header.split("filename*=UTF-8''", 1)[1]) == f"heyan-export-{user}.json"
                assert answer.json()["user"] == user
        missing = await client.get(f"/api/v1/tenants/{T}/members/nobody-here/export")
        assert missing.status_code == 404 and set(missing.json()) == {"error", "detail"}
    assert (await _actions(world)).count("member.export") == 4  # one per export made, none for the refusal


async def test_one_error_shape_and_the_security_headers_on_404_422_and_500(world: World) -> None:
    async def broken(*args: object, **kw: object) -> object:
        raise RuntimeError("the store fell over")

    world.rt.moderation.review_queue = broken  # type: ignore[method-assign]
    transport = httpx.ASGITransport(app=world.app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url=APP) as client:
        await world.sign_in(client, "discord", MOD)
        answers = {
            404: await client.get("/api/v1/no/such/route"),
            422: await client.get(f"/api/v1/tenants/{T}/memories", params={"limit": "many"}),
            500: await client.get(f"/api/v1/tenants/{T}/review"),
        }
        pages = {404: await client.get("/no/such/page"), 500: await client.get(f"/t/{T}/review")}
    for status, answer in answers.items():
        assert answer.status_code == status, answer.text
        body = answer.json()
        assert set(body) == {"error", "detail"} and body["detail"], body
        assert all(h in answer.headers for h in HEADERS), (status, dict(answer.headers))
    assert answers[422].json()["detail"].startswith("query.limit:")
    assert "the store fell over" not in answers[500].text  # what failed is in the log, not in the answer
    for status, page in pages.items():
        assert page.status_code == status and "text/html" in page.headers["content-type"]
        assert all(h in page.headers for h in HEADERS), (status, dict(page.headers))
        assert 'role="alert"' in page.text


async def test_an_unknown_community_or_member_is_an_error_with_suggestions(world: World) -> None:
    local = make_world(world.rt, world.ids, local=True)  # the operator: every community Heyan knows
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=local.app), base_url="http://127.0.0.1") as client:
        typo = await client.get("/api/v1/tenants/discord:10/memories")
        assert typo.status_code == 404 and "did you mean discord:100" in typo.json()["detail"], typo.text
        page = await client.get("/t/discord:10/memories")
        assert page.status_code == 404 and "did you mean" in page.text
        bea = (await client.get(f"/api/v1/tenants/{T}/members/bea")).json()  # a name, any case
        assert bea["user"] == "2002" and bea["name"] == "Bea"
        bae = await client.get(f"/api/v1/tenants/{T}/members/Bae")
        assert bae.status_code == 404 and "did you mean Bea (2002)?" in bae.json()["detail"], bae.text
        listed = (await client.get(f"/api/v1/tenants/{T}/memories", params={"user": "Cal"})).json()
        assert listed["total"] and all("2003" in m["users"] for m in listed["items"])
        found = (await client.get(f"/api/v1/tenants/{T}/members", params={"q": "be"})).json()
        assert [(m["user"], m["name"]) for m in found] == [("2002", "Bea")]
        audit = await client.get(f"/api/v1/tenants/{T}/audit", params={"user": "Zed"})
        assert audit.status_code == 404 and json.loads(audit.text)["error"] == "not_found"
