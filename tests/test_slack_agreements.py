"""The agreement card and common ground on the Slack stand-in with a real runtime: a refusal through its
modal keeps the dispute open; ``--force`` lets a moderator close at once; ``/heyan dispute
common-ground`` asks each party privately (ephemeral) and posts the statement both endorsed;
``/heyan mymemory`` shows the member's own promise record."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from memory.models import Kind, utcnow
from tests.slack_standin import ALICE, BOB, CAROL, GENERAL, RecordedCall
from tests.slack_world import (  # noqa: F401  (fixtures)
    World,
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
    texts,
)


def _value(call: RecordedCall, action_id: str) -> str:
    blocks: list[dict[str, Any]] = call.json_param("blocks") or []
    for block in blocks:
        for element in [*block.get("elements", []), *([block["accessory"]] if "accessory" in block else [])]:
            if element.get("action_id") == action_id:
                return str(element["value"])
    raise AssertionError(f"no {action_id} in {blocks}")


async def _open(w: World) -> None:
    await w.command(CAROL, GENERAL, f"dispute open <@{BOB}|bob> <@{ALICE}|alice> The parking spots")
    await w.slack.wait_for_call("chat.postMessage")


async def test_a_refusal_keeps_the_dispute_open_and_a_moderator_may_force(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        await _open(w)
        await w.remember(w.fact(Kind.CONSENSUS, BOB, "bob", "agrees to", "alternate the spots"),
                         w.fact(Kind.COMMITMENT, ALICE, "alice", "paint the lines", "paint the lines by Friday",
                                due_at=utcnow() + timedelta(days=2)))
        await w.command(CAROL, GENERAL, "dispute close")
        card = await w.slack.wait_for_call("chat.postMessage", count=2)
        assert "paint the lines" in texts(card)
        _, pressed = await w.click(BOB, "heyan_card_refuse", _value(card, "heyan_card_refuse"))
        opened = await w.slack.wait_for_call("views.open")
        view = opened.json_param("view")
        assert view["callback_id"] == "heyan_card_refuse_modal"
        submitted = w.slack.payloads.view_submission(user=BOB, callback_id=view["callback_id"],
                                                     values={"reason": {"reason": "weekends too"}},
                                                     private_metadata=view["private_metadata"])
        reply = await w.sender.interaction(submitted)
        assert reply.status == 200
        told = await w.response(pressed["response_url"])
        assert "争议继续进行" in texts(told)  # bob reads Chinese
        notice = await w.slack.wait_for_call("chat.postMessage", count=3)
        assert "did not confirm" in texts(notice) and "weekends too" in texts(notice)
        assert await w.rt.sessions.is_open(w.tenant, GENERAL)
        forced = await w.command(ALICE, GENERAL, "dispute close --force we'll decide next week")  # a moderator
        assert "Closed the dispute" in texts(forced)
        info = await w.rt.sessions.get(w.tenant, GENERAL)
        assert info is not None and not info.is_open and info.close_reason == "we'll decide next week"


async def test_common_ground_is_endorsed_privately_and_posted(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        await _open(w)
        await w.remember(w.fact(Kind.DEMAND, ALICE, "alice", "wants", "a spot near the door"),
                         w.fact(Kind.DEMAND, BOB, "bob", "wants", "a covered spot"),
                         w.fact(Kind.EMOTION, BOB, "bob", "feels", "frustrated"))
        asked = await w.command(CAROL, GENERAL, "dispute common-ground")
        assert f"<@{ALICE}>" in texts(asked) and f"<@{BOB}>" in texts(asked)
        prompt = await w.slack.wait_for_call("chat.postMessage", count=2)
        assert "near the door" not in texts(prompt)  # the statements are shown privately only
        for who in (ALICE, BOB):
            _, pressed = await w.click(who, "heyan_ground_open", _value(prompt, "heyan_ground_open"))
            private = await w.response(pressed["response_url"])
            assert private.params["response_type"] == "ephemeral" and "near the door" in texts(private)
            _, endorsed = await w.click(who, "heyan_ground_endorse", _value(private, "heyan_ground_endorse"))
            await w.response(endorsed["response_url"])
        posted = await w.slack.wait_for_call("chat.postMessage", count=3)
        assert "Everyone here endorses" in texts(posted) and "near the door" in texts(posted)


async def test_mymemory_shows_the_members_own_record(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        await w.remember(w.fact(Kind.COMMITMENT, ALICE, "alice", "paint the lines", "paint the lines",
                                due_at=utcnow() - timedelta(days=1)))
        mine = texts(await w.command(ALICE, GENERAL, "mymemory"))
        assert "1 overdue" in mine


async def test_digest_is_set_and_shown_by_moderators(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        await w.remember(w.fact(Kind.COMMITMENT, BOB, "bob", "move the car", "move the car",
                                due_at=utcnow() - timedelta(days=1)))
        refused = texts(await w.command(BOB, GENERAL, "digest"))
        assert "只有管理员" in refused
        set_ = texts(await w.command(CAROL, GENERAL, "digest <#C0MODS0001|mods> weekly"))
        assert "<#C0MODS0001>" in set_ and "weekly" in set_
        settings = await w.rt.tenants.get(w.tenant)
        assert (settings.digest_channel, settings.digest_schedule) == ("C0MODS0001", "weekly")
        shown = texts(await w.command(CAROL, GENERAL, "digest"))
        assert "Overdue commitments (1)" in shown and "move the car" in shown
