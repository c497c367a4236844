"""The console in Debian's Chromium, as a moderator who never read the docs uses it: why a record
waits and what its buttons do, members found by name, promises as owner → recipient with the due
time's zone, a settings form that refuses "nan", an export named in Chinese, quick clicks that never
meet a rate limit, a chart readable on a phone, table cells that never break a word — and a plain
member who sees their record without the moderators' notes or forms. Saves the README's screenshots
of the member directory and the review queue's reasons (``make screenshots``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from bot.config.settings import LimitSettings
from tests.jobs_helpers import Start
from tests.web.browser import chromium, screenshots
from tests.web.test_browser import heated, serve, sign_in
from tests.web.world import MEMBER, MOD, MOD_NOTE, UNICODE_ID, T

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("hash_embedder")]

#: Every Latin word in a table cell on one line: a word cut in two has two client rects.
_BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll('td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('code, .id')) continue;
      const re = /[A-Za-z][A-Za-z'’-]{2,}/g;
      let m;
      while ((m = re.exec(node.textContent)) !== null) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""


async def _no_broken_words(page: Page) -> None:
    broken = await page.evaluate(_BROKEN_WORDS)
    assert broken == [], f"words cut in two in table cells: {broken[:10]}"


async def test_a_moderator_understands_the_console_without_docs(tmp_path: Path, redis_url: str,
                                                                start: Start) -> None:
    shots = screenshots(tmp_path)
    # the chat commands' limit is tiny: clicking through the console must never meet it
    limits = LimitSettings(enabled=True, commands_per_user="3/minute", commands_per_tenant="3/minute")
    async with serve(tmp_path, redis_url, start, more=True, limits=limits) as served, chromium() as browser:
        context = await browser.new_context(viewport={"width": 1200, "height": 900}, locale="en-US",
                                            accept_downloads=True)
        page = await context.new_page()
        await sign_in(page, served, MOD)
        await expect(page.get_by_role("link", name=re.compile("Maple Guild"))).to_be_visible()
        await expect(page.locator("main")).not_to_contain_text("discord:100")
        await page.get_by_role("link", name=re.compile("Maple Guild")).click()
        # quick clicks through every tab: never a 429, though chat commands allow 3 a minute
        for tab in ("Review", "Commitments", "Disputes", "Members", "Audit log", "Settings", "Memories", "Review"):
            await page.get_by_role("link", name=tab, exact=True).click()
            await expect(page.locator("h1")).not_to_contain_text("Something is not right")
        await expect(page.locator("p.tenant")).to_have_text("Maple Guild")

        # why each record waits, in words, and what each button will do
        flagged = page.locator("article.card", has_text="Ignore previous instructions")
        await expect(flagged.locator(".why")).to_contain_text("Flagged: the message gives Heyan an instruction")
        await expect(flagged.get_by_role("button", name="Confirm")).to_have_accessible_description(
            re.compile("it was an ordinary message — Heyan reads it again"))
        await expect(flagged.get_by_role("button", name="Reject")).to_have_accessible_description(
            re.compile("kept for the record, never recalled again"))
        disputed = page.locator("article.card", has_text="Cal broke the shared printer")
        await expect(disputed.locator(".why")).to_contain_text("two accounts of this contradict each other")
        await flagged.scroll_into_view_if_needed()
        await page.screenshot(path=str(shots / "web-review.png"), full_page=True)

        # promises: owner → recipient, the action, the due time with its zone, where it stands
        await page.get_by_role("link", name="Commitments", exact=True).click()
        bill = page.locator(f"#c-{served.ids['bill']}")
        await expect(bill).to_contain_text("→ Bea")
        await expect(bill).to_contain_text(re.compile(r"due \w{3} \d+ \w{3} .*\(UTC\)"))
        await expect(page.locator(f"#c-{served.ids['late']} .badge")).to_have_text("overdue")

        # members by name: the directory narrows as one types; a page per member
        await page.get_by_role("link", name="Members", exact=True).click()
        await expect(page.get_by_role("heading", name="Members")).to_be_visible()
        await page.screenshot(path=str(shots / "web-members.png"), full_page=True)
        await page.get_by_label("Name or id").fill("ca")
        await expect(page.locator("#people tbody tr")).to_have_count(1)
        await page.get_by_role("link", name="Cal").click()
        await expect(page.get_by_role("heading", name=re.compile("Member Cal"))).to_be_visible()
        await _no_broken_words(page)

        # an export of a member whose id is Chinese, named so
        await page.goto(f"{served.base}/t/{T}/members/{UNICODE_ID}")
        async with page.expect_download() as download:
            await page.get_by_role("link", name="Export (JSON)").click()
        assert (await download.value).suggested_filename == f"heyan-export-{UNICODE_ID}.json"

        # a number that is not one is refused, saying which and what to give
        await page.goto(f"{served.base}/t/{T}/settings")
        await page.get_by_label("Days after a dispute closes before it is purged").fill("nan")
        await page.get_by_role("button", name="Save").click()
        await expect(page.get_by_role("alert")).to_contain_text("must be a finite number of days")

        await page.goto(f"{served.base}/t/{T}/memories")
        await _no_broken_words(page)
        await context.close()


async def test_on_a_phone_the_chart_reads_and_no_word_breaks(tmp_path: Path, redis_url: str,
                                                            start: Start) -> None:
    shots = screenshots(tmp_path)
    async with serve(tmp_path, redis_url, start, more=True) as served, chromium() as browser:
        await heated(served.rt)
        phone = await browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", is_mobile=True)
        page = await phone.new_page()
        await sign_in(page, served, MOD)
        await page.goto(f"{served.base}/t/{T}/disputes/555")
        chart = page.locator("svg.heat")
        await expect(chart).to_be_visible()
        # the axis is scaled to the peak and labelled; the values that matter are text, not tooltips
        ticks = await chart.locator("text.tick").all_text_contents()
        assert ticks[0] == "0" and float(ticks[-1]) >= 4.0, ticks
        await expect(chart.locator("text.axis").first).to_contain_text("temperature")
        await expect(chart.locator("text.value")).to_have_count(2)  # the two points above the threshold
        heights = await chart.locator("text.tick, text.value").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().height)")
        assert min(heights) >= 8, f"chart text is {min(heights):.1f}px high on a phone"
        box = await chart.bounding_box()
        assert box is not None and box["width"] <= 390
        for path in ("disputes/555", "memories", "members", "commitments"):
            await page.goto(f"{served.base}/t/{T}/{path}")
            width = await page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"{path} scrolls sideways on a phone ({width}px)"
            await _no_broken_words(page)
        await page.goto(f"{served.base}/t/{T}/disputes/555")
        await page.screenshot(path=str(shots / "web-dispute-phone.png"), full_page=True)
        await phone.close()


async def test_a_plain_member_sees_their_record_without_moderators_notes(tmp_path: Path, redis_url: str,
                                                                         start: Start) -> None:
    async with serve(tmp_path, redis_url, start, more=True) as served, chromium() as browser:
        page = await browser.new_page()
        await sign_in(page, served, MEMBER)
        answer = await page.goto(f"{served.base}/t/{T}/memories/{served.ids['ann']}")
        assert answer is not None and answer.status == 200
        await expect(page.locator("main")).to_contain_text("the music off after eleven")
        await expect(page.locator("main")).not_to_contain_text(MOD_NOTE)
        for name in ("Confirm", "Reject", "Delete", "Save"):
            await expect(page.get_by_role("button", name=name)).to_have_count(0)
        await expect(page.locator(".note")).to_contain_text("Only moderators confirm, reject or delete")
        await expect(page.get_by_role("link", name="Audit log")).to_have_count(0)
