"""The console in Debian's Chromium: signing in through the loopback OAuth stand-in (Discord's
authorize → code + state → token → /users/@me and /users/@me/guilds), reviewing a disputed fact,
erasing a member, and a member without the capability seeing 403. Saves screenshots of the main pages
(``make screenshots`` writes them to docs/img for the README; the review queue's is
``test_browser_console``'s, with its reasons)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
import uvicorn
from playwright.async_api import Page, expect

from adapters.runtime.composition import Runtime
from adapters.web.server import WebServer, bind, build_console
from bot.config.settings import LimitSettings
from bot.disputes.heat import HeatBook, HeatPoint
from memory.models import Scope, Visibility, utcnow
from tests.jobs_helpers import Start
from tests.web.browser import chromium, screenshots
from tests.web.oauth_standin import Standin
from tests.web.world import EVIL_NAME, MEMBER, MOD, T, seed, seed_console, standin, web_settings

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("hash_embedder")]


class _Quiet(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self):  # type: ignore[no-untyped-def]
        yield


@dataclass
class Served:
    base: str
    rt: Runtime
    ids: dict[str, str]
    standin: Standin


@asynccontextmanager
async def serve(tmp_path: Path, redis_url: str, start: Start, *, more: bool = False,
                limits: LimitSettings | None = None) -> AsyncIterator[Served]:
    """The console on a loopback port beside the OAuth stand-in on another; ``more`` adds the console's
    own seed (``seed_console``), ``limits`` the chat limits to run under."""
    stand = standin()
    stand_sock, app_sock = bind("127.0.0.1", 0), bind("127.0.0.1", 0)
    stand_base = f"http://127.0.0.1:{stand_sock.getsockname()[1]}"
    app_base = f"http://127.0.0.1:{app_sock.getsockname()[1]}"
    stand.redirect_base = app_base
    provider = _Quiet(uvicorn.Config(stand.app, lifespan="off", log_config=None, log_level="warning"))
    provider_task = asyncio.create_task(provider.serve(sockets=[stand_sock]))
    s = web_settings(tmp_path, redis_url, standin=stand_base, app=app_base)
    if limits is not None:
        s = s.model_copy(update={"limits": limits})
    rt = await start(s, provider=None, worker=False)
    ids = await seed(rt)
    if more:
        ids |= await seed_console(rt)
    http = httpx.AsyncClient(timeout=10)
    web = WebServer(build_console(rt, local=False, http=http), http, "127.0.0.1", 0, sock=app_sock)
    web.start()  # the sockets already listen: connections wait in their queues until uvicorn accepts them
    try:
        yield Served(app_base, rt, ids, stand)
    finally:
        await web.stop()
        provider.should_exit = True
        await provider_task
        stand_sock.close()


@pytest.fixture
async def served(tmp_path: Path, redis_url: str, start: Start) -> AsyncIterator[Served]:
    async with serve(tmp_path, redis_url, start) as found:
        yield found


async def sign_in(page: Page, served: Served, user: str) -> None:
    served.standin.signs_in = user
    await page.goto(served.base + "/")
    await expect(page).to_have_url(re.compile(r"/login$"))
    await page.get_by_role("link", name=re.compile("Discord")).click()
    await expect(page).to_have_url(served.base + "/")


async def heated(rt: Runtime) -> None:
    """Thread 555 opened as a dispute, its timeline running hot (points written as the monitor does)."""
    await rt.moderation.sessions.open(T, "555", title="Printer row", opened_by="2002", members=["2003"],
                                      visibility=Visibility.PUBLIC)
    now = utcnow()
    for i, (who, value) in enumerate((("2002", 0.8), ("2003", 1.9), ("2002", 3.1), ("2003", 4.0))):
        await HeatBook(rt.redis).add(Scope(tenant=T, session="555"), HeatPoint(
            at=now - timedelta(minutes=4 - i), temperature=value, score=value, message_id=f"{9001 + i}", author=who))


async def test_moderator_reviews_a_disputed_fact_and_erases_a_member(served: Served, tmp_path: Path) -> None:
    shots = screenshots(tmp_path)
    async with chromium() as browser:
        context = await browser.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
        page = await context.new_page()
        await sign_in(page, served, MOD)
        await expect(page.get_by_role("heading", name="Communities you moderate")).to_be_visible()
        await page.screenshot(path=str(shots / "web-communities.png"))
        await page.get_by_role("link", name=re.compile("Maple Guild")).click()
        await expect(page.locator("#results")).to_contain_text("pay my half of the bill")
        await page.screenshot(path=str(shots / "web-memories.png"), full_page=True)
        # the member's name is shown as text, never run: no dialog opens
        page.on("dialog", lambda dialog: pytest.fail(f"a script ran: {dialog.message}"))
        await expect(page.locator("#results")).to_contain_text(EVIL_NAME)
        # live search (htmx): the list narrows as one types
        await page.get_by_label("Search").fill("printer")
        await expect(page.locator("#results")).not_to_contain_text("return the ladder")
        await expect(page.locator("#results")).to_contain_text("printer")

        await page.get_by_role("link", name="Review", exact=True).click()
        card = page.locator("article.card").first
        await expect(card).to_contain_text("Cal broke the shared printer")
        await card.get_by_placeholder("Reason (kept in the audit log)").first.fill("both confirmed it")
        await card.get_by_role("button", name="Confirm").click()
        await expect(page.get_by_text("Nothing waits for review.")).to_be_visible()

        await page.goto(f"{served.base}/t/{T}/memories/{served.ids['dispute']}")
        await expect(page.locator("main")).to_contain_text("both confirmed it")  # its audit entry
        await expect(page.get_by_role("link", name="open the message")).to_have_attribute(
            "href", "https://discord.com/channels/100/555/9003")
        await page.screenshot(path=str(shots / "web-memory.png"), full_page=True)
        # a refusal is shown in place (htmx swaps error pages too), and changes nothing
        await page.locator("details summary").first.click()
        await page.get_by_label("What it should say").fill("   ")
        await page.get_by_role("button", name="Save").click()
        await expect(page.get_by_role("alert")).to_contain_text("the new value is empty")
        await page.go_back()

        await page.get_by_role("link", name="Commitments").click()
        await expect(page.locator("svg.chart")).to_be_visible()
        await page.screenshot(path=str(shots / "web-commitments.png"), full_page=True)

        await heated(served.rt)
        await page.get_by_role("link", name="Disputes").click()
        await expect(page.locator("svg.spark")).to_be_visible()
        await page.screenshot(path=str(shots / "web-disputes.png"), full_page=True)
        await page.get_by_role("link", name="Printer row").click()
        await expect(page.locator("svg.heat")).to_be_visible()
        await expect(page.locator("svg.heat circle.hot")).to_have_count(2)  # the points above the threshold
        await page.screenshot(path=str(shots / "web-dispute.png"), full_page=True)

        await page.goto(f"{served.base}/t/{T}/members/2002")
        await page.get_by_role("button", name="Erase this member's data…").click()
        await expect(page.get_by_role("alert")).to_contain_text("3 memories")
        await page.screenshot(path=str(shots / "web-erase.png"))
        await page.get_by_role("button", name="Erase everything now").click()
        await expect(page.get_by_role("status")).to_contain_text("Erased")
        await page.goto(f"{served.base}/t/{T}/members/2002")
        await expect(page.locator("main")).to_contain_text("0 memories, 0 summaries")  # the audit trail stays

        await page.get_by_role("link", name="Audit log").click()
        await expect(page.get_by_role("heading", name="Audit log")).to_be_visible()
        await expect(page.locator("table")).to_contain_text("member.erase")
        await page.screenshot(path=str(shots / "web-audit.png"), full_page=True)

        # keyboard: the first Tab reaches the skip link, which moves focus to the content
        await page.keyboard.press("Tab")
        await expect(page.locator(".skip")).to_be_focused()
        # Chinese, by the switch
        await page.get_by_role("link", name="中文").click()
        await expect(page.get_by_role("heading", name="审计记录")).to_be_visible()
        await context.close()

        phone = await browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN", is_mobile=True)
        small = await phone.new_page()
        await sign_in(small, served, MOD)
        await small.goto(f"{served.base}/t/{T}/memories")
        await expect(small.get_by_role("heading", name="记忆")).to_be_visible()
        width = await small.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
        await small.screenshot(path=str(shots / "web-phone.png"), full_page=True)
        await phone.close()


async def test_member_without_the_capability_sees_403(served: Served) -> None:
    async with chromium() as browser:
        page = await browser.new_page()
        await sign_in(page, served, MEMBER)
        await expect(page.get_by_text("No community you moderate")).to_be_visible()
        answer = await page.goto(f"{served.base}/t/{T}/review")
        assert answer is not None and answer.status == 403
        await expect(page.get_by_role("alert")).to_contain_text("only moderators")
