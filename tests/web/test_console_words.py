"""A console a moderator understands without the docs: why a record waits for review (the rule, in
words) and what each button does; communities and members by name, not by id; a member directory;
promises as owner → recipient, action and due time with its zone; one kind vocabulary with the CLI;
a temperature chart with a scaled, labelled axis and its values written out."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from bot.actors import Actor
from bot.disputes.heat import HeatBook, HeatPoint
from memory.models import Scope, Visibility, utcnow
from tests.jobs_helpers import Start
from tests.web.world import MOD, T, World, make_world, seed, seed_console, web_settings

pytestmark = pytest.mark.usefixtures("hash_embedder")


@pytest.fixture
async def world(tmp_path: Path, redis_url: str, start: Start) -> AsyncIterator[World]:
    rt = await start(web_settings(tmp_path, redis_url), provider=None, worker=False)
    await rt.tenants.set(T, timezone="Asia/Shanghai")
    ids = await seed(rt)
    yield make_world(rt, ids | await seed_console(rt))


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


async def test_review_says_why_in_words_and_what_each_button_does(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        review = _text((await client.get(f"/t/{T}/review")).text)
    assert "Flagged: the message gives Heyan an instruction (what to remember or how to behave)" in review
    assert "The rule's words: “tells Heyan to drop its rules”" in review
    assert "Confirm: it was an ordinary message — Heyan reads it again and remembers what it says" in review
    assert "Disputed: two accounts of this contradict each other" in review  # the printer claim
    assert "Reject: it is wrong — kept for the record, never recalled again." in review


async def test_names_not_ids_for_communities_and_members(world: World) -> None:
    local = make_world(world.rt, world.ids, local=True)
    loopback = {"transport": httpx.ASGITransport(app=local.app), "base_url": "http://127.0.0.1"}
    async with httpx.AsyncClient(**loopback) as client:  # type: ignore[arg-type]
        home = await client.get("/")
        assert "Discord server 100" in _text(home.text) and ">discord:100<" not in home.text
    async with world.client() as client:  # a moderator signs in with Discord: the server's name is learned
        await world.sign_in(client, "discord", MOD)
        await client.get("/")
        members = await client.get(f"/t/{T}/members", params={"q": "ca"})
        assert _text(members.text).count("Cal") >= 1 and "Bea" not in _text(members.text)
        assert f'href="/t/{T}/members/2003"' in members.text
        found = await client.get(f"/t/{T}/members", params={"user": "bea"})  # the lookup form, by name
        assert found.status_code == 303 and found.headers["location"] == f"/t/{T}/members/2002"
        by_name = await client.get(f"/t/{T}/members/Cal")
        assert by_name.status_code == 303 and by_name.headers["location"] == f"/t/{T}/members/2003"
        wrong = await client.get(f"/t/{T}/members/Kal")
        assert wrong.status_code == 404 and "did you mean Cal (2003)?" in _text(wrong.text)
        csrf = await world.csrf(client)
        step = await client.post(f"/t/{T}/members/2002/erase", data={"csrf_token": csrf})
        token = re.search(r'name="token" value="([^"]+)"', step.text)
        assert token is not None
        erased = await client.post(f"/t/{T}/members/2002/erase/confirm", data={"csrf_token": csrf,
                                                                                "token": token.group(1)})
        assert "Erased 3 records of Bea." in _text(erased.text)
        audit = _text((await client.get(f"/t/{T}/audit")).text)
        assert "member.erase" in audit and "Mo" in audit and "Maple Guild" in audit
    async with httpx.AsyncClient(**loopback) as client:  # type: ignore[arg-type]
        home = _text((await client.get("/")).text)
        assert "Maple Guild" in home  # the operator sees the name Discord gave it


async def test_promises_kinds_and_times_as_every_surface_shows_them(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        board = (await client.get(f"/t/{T}/commitments")).text
        memories = (await client.get(f"/t/{T}/memories")).text
        claims = (await client.get(f"/t/{T}/memories", params={"kind": "claim"})).text
        api = (await client.get(f"/api/v1/tenants/{T}/memories", params={"kind": "claim"})).json()
        bad = await client.get(f"/api/v1/tenants/{T}/memories", params={"kind": "gossip"})
    card = _text(re.search(rf'id="c-{world.ids["bill"]}">(.*?)</li>', board, re.S).group(1))  # type: ignore[union-attr]
    assert "→ Bea" in card and "pay their half of the bill" in card and "(Asia/Shanghai)" in card and "open" in card
    late = _text(re.search(rf'id="c-{world.ids["late"]}">(.*?)</li>', board, re.S).group(1))  # type: ignore[union-attr]
    assert "overdue" in late  # stored overdue long ago, and past due now: read from the clock
    row = re.search(r"<tr>((?:(?!</tr>).)*Cal broke the shared printer.*?)</tr>", memories, re.S)
    assert row is not None and _text(row.group(1)).startswith("claim"), row  # as the CLI names it, not "event"
    assert "Cal broke the shared printer" in claims and "half of the bill" not in claims
    assert [m["kind"] for m in api["items"]] == ["claim"] and api["items"][0]["stored_kind"] == "event"
    assert bad.status_code == 400 and "commitment, agreement, refusal" in bad.json()["detail"]


async def test_the_temperature_chart_has_a_scaled_labelled_axis_and_written_values(world: World) -> None:
    await world.rt.moderation.sessions.open(T, "555", title="Printer row", opened_by="2002", members=["2003"],
                                            visibility=Visibility.PUBLIC)
    now = utcnow()
    for i, value in enumerate((0.8, 4.1, 12.6, 22.6, 9.0)):
        await HeatBook(world.rt.redis).add(Scope(tenant=T, session="555"), HeatPoint(
            at=now - timedelta(minutes=5 - i), temperature=value, score=value, message_id=f"{9001 + i}",
            author="2002" if i % 2 else "2003"))
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        page = (await client.get(f"/t/{T}/disputes/555")).text
    svg = page[page.index('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 560'):]
    svg = svg[:svg.index("</svg>")]
    ticks = re.findall(r'class="tick">([\d.]+)<', svg)
    assert ticks == ["0", "5", "10", "15", "20", "25"], ticks  # the peak 22.6 reads against its axis
    assert "temperature (escalation score)" in svg and "times in Asia/Shanghai" in svg
    values = re.findall(r'class="value"[^>]*>([\d.]+)<', svg)
    assert {"12.6", "22.6", "4.1", "9.0"} <= set(values)  # every point at or above the threshold, written out
    assert (await world.rt.moderation.dispute_heat(Actor.operator(T), "555")).heat.peak == 22.6
