"""Slack's Block Kit limits everywhere (issue 19): long lists are paged with buttons and every page
is within the limits the stand-in enforces (``tests/slack_blockkit.py``: 50 blocks a message, 100 a
view, 3,000 characters a section, measured after escaping)."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from memory.models import Kind, utcnow
from tests.slack_blockkit import problems, view_problems
from tests.slack_standin import BOB, CAROL, GENERAL, RESPONSE_URL
from tests.slack_world import (  # noqa: F401  (fixtures)
    World,
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
    texts,
)

# A value whose escaped form is five times as long: "&" is "&amp;" in Slack's text.
LOUD = "R&D <budget> & " * 40


async def many(w: World, n: int, subject: str = BOB) -> list[str]:
    facts = await w.remember(*[
        w.fact(Kind.COMMITMENT, subject, "小波", f"task {i}", f"{i:02d} {LOUD}", quote=LOUD * 3,
               due_at=utcnow() + timedelta(days=1 + i))
        for i in range(n)])
    return sorted(f.id for f in facts)


def card_ids(call: Any) -> set[str]:
    blocks = call.json_param("blocks") or (call.json_param("view") or {}).get("blocks") or []
    return {b["block_id"].removeprefix("heyan_card:") for b in blocks if str(b.get("block_id", "")).startswith("heyan_card:")}


def page_button(call: Any, action: str = "heyan_page_next") -> dict[str, Any] | None:
    blocks = call.json_param("blocks") or (call.json_param("view") or {}).get("blocks") or []
    for block in blocks:
        for el in block.get("elements", []):
            if el.get("action_id") == action:
                return dict(el)
    return None


async def test_a_long_memory_list_is_paged_and_every_page_is_within_slacks_limits(tmp_path: Path, redis_url: str) -> None:
    """30 memories with text that grows when escaped. Before, 9 were shown with no way to the rest."""
    async with slack_world(tmp_path, redis_url) as w:
        ids = await many(w, 30)
        first = await w.command(CAROL, GENERAL, "memory list")
        pages, seen = [first], card_ids(first)
        while (button := page_button(pages[-1])) is not None:
            _, payload = await w.click(CAROL, "heyan_page_next", button["value"])
            pages.append(await w.response(payload["response_url"]))
            seen |= card_ids(pages[-1])
        back = page_button(pages[-1], "heyan_page_prev")

    assert all(p.status == 200 and p.response == {"ok": True} for p in pages)  # the stand-in accepted each
    assert all(problems(p.json_param("blocks")) == [] for p in pages)
    assert len(pages) == 4 and seen == set(ids)  # 8 a page, every memory reachable
    assert all(p.params["replace_original"] is True for p in pages[1:])  # a page replaces the list
    assert back is not None and json.loads(back["value"])["o"] == 16
    shown = "\n".join(texts(p) for p in pages)
    assert not re.search(r"&(a|am|amp|l|lt|g|gt)?…", shown)  # never cut inside an escaped character
    assert "Page 1 of 4" in texts(first)


async def test_mymemory_commitments_and_the_home_tab_are_paged_within_limits(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        ids = await many(w, 40)
        mine = await w.command(BOB, GENERAL, "mymemory")
        open_ = await w.command(BOB, GENERAL, "commitments")
        await w.event(w.slack.payloads.app_home_opened(user=BOB))
        home = await w.slack.wait_for_call("views.publish")
        button = page_button(home)
        assert button is not None
        await w.click(BOB, "heyan_page_next", button["value"], home=True)
        home2 = await w.slack.wait_for_call("views.publish", count=2)
        failed = [c for c in w.slack.calls if c.method in ("views.publish", RESPONSE_URL) and c.status != 200]

    assert failed == []
    for call in (mine, open_):
        assert problems(call.json_param("blocks")) == [] and page_button(call) is not None
    for call in (home, home2):
        assert call.response["ok"] and view_problems(call.json_param("view")) == []
    assert card_ids(home).isdisjoint(card_ids(home2)) and card_ids(home2) <= set(ids)
