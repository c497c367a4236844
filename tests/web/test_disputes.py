"""The console's Disputes pages and their REST API on a real runtime: a thread heated up through the
engine (plus one point written straight to its timeline, by a member with a hostile name), listed
with its temperature, and its chart with names, links, the threshold and the points above it; who
may see them (moderators: 401 without a sign-in, 403 for a member)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from adapters.web.views.chart import HeatMark, sparkline_svg, temperature_svg
from bot.actors import Actor, PermissionDenied
from bot.agreements.card_votes import CardBook
from bot.disputes.escalation import THRESHOLD, cool
from bot.disputes.heat import HeatBook, HeatPoint
from bot.models import Message
from memory.models import Scope, Visibility, utcnow
from tests.jobs_helpers import Start
from tests.web.world import EVIL_NAME, MEMBER, MOD, T, World, make_world, seed, web_settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

NOW = utcnow().replace(microsecond=0)
TITLE = "Printer <b>row</b>"
QUARREL = [("2004", "Dora", "You always leave the printer jammed for me."),
           ("2005", "Eli", "That's not true, I fixed it yesterday."),
           ("2004", "Dora", "Yesterday is the only time in a month!"),
           ("2005", "Eli", "You never notice when I do anything."),
           ("2004", "Dora", "Because you never do anything, you idiot!")]


@pytest.fixture
async def world(tmp_path: Path, redis_url: str, start: Start) -> AsyncIterator[World]:
    rt = await start(web_settings(tmp_path, redis_url), provider=None, worker=False)
    rt.memory.clock = lambda: NOW
    world = make_world(rt, await seed(rt))
    await _heat_up(world)
    yield world


async def _heat_up(world: World) -> None:
    """555: an open dispute heated by a quarrel, then a hot line from the member with a hostile name;
    556: closed today, never measured; 557: a hot thread never opened as a dispute; 558: a calm one;
    559: closed 40 days ago. A card waits in 555: Dora confirmed, Eli not yet."""
    rt = world.rt
    sessions, book = rt.moderation.sessions, HeatBook(rt.redis)
    await sessions.open(T, "555", title=TITLE, opened_by="2002", members=["2003"], visibility=Visibility.PUBLIC)
    start_at = NOW - timedelta(minutes=5)
    for i, (who, name, text) in enumerate(QUARREL):
        await rt.engine.observe(Message(id=f"{7001 + i}", scope=Scope(tenant=T, session="555", user=who),
                                        author_name=name, text=text, ts=start_at + timedelta(seconds=20 * i)))
    await book.add(Scope(tenant=T, session="555"), HeatPoint(at=NOW - timedelta(minutes=1), temperature=12.0,
                                                             score=2.0, message_id="7100", author="2001",
                                                             signals=("insult", "fast")))
    await sessions.close(await sessions.open(T, "556", title="Closed today", opened_by="2002", members=[],
                                             visibility=Visibility.PUBLIC), closed_by=MOD)
    for session, temperature in (("557", 5.0), ("558", 0.4)):
        await sessions.seen(T, session, Visibility.PUBLIC)
        await book.add(Scope(tenant=T, session=session), HeatPoint(at=NOW - timedelta(days=2), temperature=temperature,
                                                                   score=temperature, message_id="7200", author="2002"))
    old = await sessions.close(await sessions.open(T, "559", title="Long ago", opened_by="2002", members=[],
                                                   visibility=Visibility.PUBLIC), closed_by=MOD)
    await sessions.put(replace(old, closed_at=NOW - timedelta(days=40)))
    cards = CardBook(rt.redis)
    await cards.propose(T, "555", "c" * 16, origin="stage", participants=("2004", "2005"), proposed_by="2004")
    assert await cards.vote(T, "555", "c" * 16, "2004", "confirmed")


async def test_api_lists_open_then_hot_then_recently_closed_with_temperatures(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        answer = await client.get(f"/api/v1/tenants/{T}/disputes")
        assert answer.status_code == 200, answer.text
        items = answer.json()["items"]
    assert [i["session"] for i in items] == ["555", "557", "556"]  # 558 is calm, 559 closed too long ago
    hot = items[0]
    assert hot["state"] == "open" and hot["title"] == TITLE and hot["threshold"] == THRESHOLD
    assert hot["members"] == [{"id": "2002", "name": "Bea"}, {"id": "2003", "name": "Cal"}]
    assert hot["messages"] == 6 and hot["crossings"] >= 2 and hot["peak"] == 12.0
    assert hot["temperature"] == pytest.approx(cool(12.0, 60), abs=1e-3)  # cooled to the service's now
    assert len(hot["temperatures"]) == 6 and hot["temperatures"][-1] == 12.0
    assert items[1]["state"] == "none" and items[1]["crossings"] == 1
    assert items[2]["state"] == "closed" and items[2]["messages"] == 0 and items[2]["temperature"] == 0


async def test_api_temperature_names_links_commitments_and_card(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        answer = await client.get(f"/api/v1/tenants/{T}/disputes/555/temperature")
        assert answer.status_code == 200, answer.text
        body = answer.json()
        missing = await client.get(f"/api/v1/tenants/{T}/disputes/nothing-here/temperature")
        assert missing.status_code == 404 and "nothing-here" in missing.json()["detail"]
    points = body["points"]
    assert [p["message_id"] for p in points] == [*(f"{7001 + i}" for i in range(5)), "7100"]
    assert [p["author"]["name"] for p in points] == ["Dora", "Eli", "Dora", "Eli", "Dora", EVIL_NAME]
    assert points[0]["link"] == "https://discord.com/channels/100/555/7001"
    assert points[0]["signals"] == ["accusation"] and not points[0]["above_threshold"]
    assert points[-1]["above_threshold"] and points[-1]["signals"] == ["insult", "fast"]
    assert body["dispute"]["session"] == "555" and body["stage"] == "gathering"
    assert world.ids["bill"] in [m["id"] for m in body["open_commitments"]]
    card = body["card"]
    assert card["state"] == "proposed" and card["confirmed"] == [{"id": "2004", "name": "Dora"}]
    assert card["pending"] == [{"id": "2005", "name": "Eli"}] and card["refused"] == []


async def test_api_and_pages_refuse_the_signed_out_and_members(world: World) -> None:
    paths = [f"/api/v1/tenants/{T}/disputes", f"/api/v1/tenants/{T}/disputes/555/temperature"]
    async with world.client() as client:
        for path in paths:
            assert (await client.get(path)).status_code == 401
        schema = (await client.get("/api/v1/openapi.json")).json()
        assert {"/api/v1/tenants/{tenant}/disputes", "/api/v1/tenants/{tenant}/disputes/{session}/temperature"} \
            <= set(schema["paths"]) and "TemperatureOut" in schema["components"]["schemas"]
        page = await client.get(f"/t/{T}/disputes/555")
        assert page.status_code == 303 and page.headers["location"] == "/login"
    async with world.client() as client:
        await world.sign_in(client, "discord", MEMBER)
        for path in [*paths, f"/t/{T}/disputes", f"/t/{T}/disputes/555"]:
            refused = await client.get(path)
            assert refused.status_code == 403, (path, refused.text[:200])
            assert "only moderators" in refused.text and "Dora" not in refused.text
    with pytest.raises(PermissionDenied, match="only moderators"):
        await world.rt.moderation.dispute_heat(Actor(tenant=T, user_id=MEMBER, name="Ann"), "555")
    with pytest.raises(PermissionDenied):
        await world.rt.moderation.dispute_board(Actor(tenant=T, user_id=MEMBER, name="Ann"))


async def test_pages_draw_the_list_and_the_chart_and_escape_names(world: World) -> None:
    async with world.client() as client:
        await world.sign_in(client, "discord", MOD)
        board = await client.get(f"/t/{T}/disputes")
        detail = await client.get(f"/t/{T}/disputes/555")
        closed = await client.get(f"/t/{T}/disputes/556")
        zh = await client.get(f"/t/{T}/disputes/555?lang=zh")
    for page in (board, detail, closed, zh):
        assert page.status_code == 200, page.text[:300]
        for raw in ("<script>alert", "<img src=x", "<b>row</b>"):
            assert raw not in page.text, raw
    assert board.text.count('class="spark"') == 3 and f'href="/t/{T}/disputes/555"' in board.text
    assert 'aria-current="page"' in board.text and ">Disputes</a>" in board.text  # in the nav
    assert "Printer &lt;b&gt;row&lt;/b&gt;" in board.text and "Bea" in board.text
    html = detail.text
    assert '<svg' in html and '<title id="heat-title">' in html and '<desc id="heat-desc">' in html
    assert 'stroke-dasharray="6 4"' in html  # the threshold
    assert html.count('class="hot"') >= 2  # points above it, marked
    assert '<a href="https://discord.com/channels/100/555/7100">' in html  # a point links to its message
    assert "Dora" in html and "Eli" in html and "&lt;script&gt;alert(&#34;name&#34;)" in html
    # a member with records links to their page; one known only from the thread's messages does not
    assert f'href="/t/{T}/members/2001"' in html and f'href="/t/{T}/members/2004"' not in html
    assert "insults" in html, "insults"
    assert "pay their half of the bill" in html, html  # signals in words, open commitments
    assert "Waiting for" in html and "No message of this thread was measured" in closed.text
    assert "提醒阈值" in zh.text and "争议" in zh.text and "辱骂" in zh.text and "发言人" in zh.text


def test_charts_with_no_or_one_point_are_still_whole() -> None:
    empty = temperature_svg([], threshold=2.2, title="t", desc="d", threshold_label="alert")
    one = temperature_svg([HeatMark(3.0, "<Ann> 3.0", "https://discord.com/channels/1/2/3")], threshold=2.2,
                          title="t", desc="d", threshold_label="alert")
    assert empty.endswith("</svg>") and "<circle" not in empty
    assert one.count("<circle") == 1 and "&lt;Ann&gt;" in one and "<polyline" not in one
    assert sparkline_svg([], threshold=2.2, label="x").endswith("</svg>")
    assert sparkline_svg([0.5], threshold=2.2, label="x").count("<circle") == 1
