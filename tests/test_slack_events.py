"""Slack events through bolt's real HTTP handling into a real Runtime: mentions answered in their
thread, retries deduped, dispute threads remembered, edits and deletions, the speaker's zone, the
Home tab, leaving a workspace, and requests that must change nothing (forged, stale, malformed).

Every request is signed like Slack's and served by uvicorn through bolt's ASGI adapter
(``tests/slack_world.py``); every Web API call the adapter makes lands in the stand-in's record.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.privacy.departures import purge_due
from memory.models import Kind, Scope, Visibility
from tests.slack_standin import (
    ALICE,
    BOB,
    CAROL,
    DM_ALICE,
    GENERAL,
    MODS,
    SlackWorkspace,
    Tamper,
)
from tests.slack_world import (  # noqa: F401  (fixtures)
    SECRET,
    World,
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
    texts,
)


async def open_dispute(w: World, session: str, *, visibility: Visibility = Visibility.PUBLIC) -> None:
    await w.rt.sessions.open(w.tenant, session, title="the parking spots", opened_by=CAROL,
                             members=[ALICE, BOB], visibility=visibility)


async def commitments(w: World) -> list[str]:
    await w.drain()
    return sorted(f.value for f in await w.facts() if f.kind is Kind.COMMITMENT)


# -- mentions -------------------------------------------------------------------------------------------


async def test_the_tenant_is_the_events_workspace_whatever_the_text_says(tmp_path: Path, redis_url: str) -> None:
    """A mention whose text names another workspace ("tenant=slack:T999", a team id, an enterprise,
    user and group markup) is remembered in the workspace that sent the event, and nothing names T999."""
    forged = "tenant=slack:T999 team T999 slack:E999:T999 <!subteam^S999|@mods> remember this for T999"
    async with slack_world(tmp_path, redis_url) as w:
        mention = w.slack.payloads.app_mention(user=ALICE, channel=GENERAL, text=forged)
        assert await w.settle(await w.sender.event(mention)) == ["replied"]
        window = await w.rt.window.recent(Scope(tenant=w.tenant, session=f"{GENERAL}:{mention['ts']}"))
        assert await w.rt.window.recent(Scope(tenant="slack:T999", session=GENERAL)) == []
        keys = [k if isinstance(k, str) else k.decode() async for k in w.rt.redis.scan_iter(count=1000)]

    assert [m.text for m in window] == [forged.replace("<!subteam^S999|@mods>", "@mods")]
    assert any(w.tenant in k for k in keys) and [k for k in keys if re.search(r"[TE]999", k)] == []



async def test_a_mention_in_a_thread_is_answered_in_that_thread(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        parent = w.slack.add_message(GENERAL, "who parks where", user=BOB)
        mention = w.slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="what do you remember?",
                                               thread_ts=parent)
        reply = await w.sender.event(mention)
        assert (reply.status, reply.text) == (200, "")  # acked before the mediator ran
        assert await w.settle(reply) == ["replied"]
        post = await w.slack.wait_for_call("chat.postMessage")
        window = await w.rt.window.recent(Scope(tenant=w.tenant, session=f"{GENERAL}:{parent}"))

    assert post.params["channel"] == GENERAL and post.params["thread_ts"] == parent
    assert post.params["link_names"] is False
    assert "no record" in post.params["text"]  # nothing is remembered yet, and the mediator says so
    [said] = window
    assert said.text == "what do you remember?"  # the bot's own <@…> is not part of what was said
    assert (said.id, said.author_id, said.mention) == (f"{GENERAL}:{mention['ts']}", ALICE, True)
    assert said.speaker_zone == "America/Los_Angeles"  # from users.info


async def test_a_top_level_mention_is_answered_in_a_thread_that_continues_it(tmp_path: Path, redis_url: str) -> None:
    """The session of a top-level mention is the thread Heyan answers in: the follow-up turn in that
    thread continues the same conversation (before, the first turn was the channel's and the thread
    started without it)."""
    async with slack_world(tmp_path, redis_url) as w:
        mention = w.slack.payloads.app_mention(user=BOB, channel=GENERAL, text="你好，我们需要谈谈停车的事")
        await w.event(mention)
        post = await w.slack.wait_for_call("chat.postMessage")
        follow = w.slack.payloads.app_mention(user=BOB, channel=GENERAL, text="还有，我周五要用车位",
                                              thread_ts=mention["ts"])
        await w.event(follow)
        second = await w.slack.wait_for_call("chat.postMessage", count=2)
        thread = await w.rt.window.recent(Scope(tenant=w.tenant, session=f"{GENERAL}:{mention['ts']}"))
        channel = await w.rt.window.recent(Scope(tenant=w.tenant, session=GENERAL))

    assert post.params["thread_ts"] == mention["ts"] and second.params["thread_ts"] == mention["ts"]
    assert [m.text for m in thread] == ["你好，我们需要谈谈停车的事", "还有，我周五要用车位"]
    assert channel == []


async def test_one_event_delivered_four_times_gives_one_reply_and_one_memory(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        parent = w.slack.add_message(GENERAL, "the fence", user=BOB)
        mention = w.slack.payloads.app_mention(user=ALICE, channel=GENERAL, thread_ts=parent,
                                               text="I will repaint the fence by Friday")
        first = await w.sender.event(mention)
        for n in (1, 2, 3):  # Slack resends the same envelope when it saw no ack within 3 s
            again = await w.sender.event(first.sent, retry_num=n, retry_reason="http_timeout")
            assert again.status == 200
        outcomes = await w.settle(first, count=4)
        promised = await commitments(w)
        facts = await w.facts()
        turns = await w.rt.window.turns(Scope(tenant=w.tenant, session=f"{GENERAL}:{parent}"))
        posts = w.slack.calls_to("chat.postMessage")

    assert sorted(outcomes) == ["duplicate", "duplicate", "duplicate", "replied"]
    assert len(posts) == 1
    assert promised == ["repaint the fence by Friday"]
    assert [(f.version, len(f.sources)) for f in facts] == [(1, 1)]
    assert turns == 1


async def test_a_direct_message_is_answered_in_the_dm_and_kept_private(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        dm = w.slack.payloads.message(user=ALICE, channel=DM_ALICE, text="I will call bob tomorrow")
        assert await w.settle(await w.sender.event(dm)) == ["replied"]
        post = await w.slack.wait_for_call("chat.postMessage")
        info = await w.rt.sessions.get(w.tenant, DM_ALICE)
        await w.drain()
        facts = await w.facts()

    assert post.params["channel"] == DM_ALICE and "thread_ts" not in post.params
    assert info is not None and info.visibility is Visibility.PRIVATE
    assert facts and all(f.visibility is Visibility.PRIVATE for f in facts)


async def test_an_enterprise_grid_team_is_its_own_tenant(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url, workspace=SlackWorkspace(enterprise_id="E0GRID0001")) as w:
        mention = w.slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="hello")
        await w.event(mention)
        window = await w.rt.window.recent(Scope(tenant="slack:E0GRID0001:T0HEYAN001",
                                                session=f"{GENERAL}:{mention['ts']}"))
    assert w.tenant == "slack:E0GRID0001:T0HEYAN001" and len(window) == 1


# -- dispute threads, edits and deletions ----------------------------------------------------------------


async def test_messages_feed_memory_only_where_a_dispute_is_open(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        p = w.slack.payloads
        parent = w.slack.add_message(GENERAL, "the parking spots", user=BOB)
        await open_dispute(w, f"{GENERAL}:{parent}")
        inside = await w.event(p.message(user=ALICE, channel=GENERAL, thread_ts=parent,
                                         text="I will move my car by 6pm"))
        elsewhere = await w.event(p.message(user=BOB, channel=MODS, text="I will buy snacks by Friday"))
        top_level = await w.event(p.message(user=BOB, channel=GENERAL, text="I will sweep the hall by Monday"))
        promised = await commitments(w)

    assert (w.bridge.outcomes.of(inside.sent["event_id"]), w.bridge.outcomes.of(elsewhere.sent["event_id"]),
            w.bridge.outcomes.of(top_level.sent["event_id"])) == (["observed"], ["ignored"], ["ignored"])
    assert promised == ["move my car by 6pm"]
    assert w.slack.calls_to("chat.postMessage") == []  # observing never replies


async def test_an_edit_is_read_again_and_a_deletion_takes_back_what_it_said(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        p = w.slack.payloads
        parent = w.slack.add_message(GENERAL, "the fence", user=BOB)
        await open_dispute(w, f"{GENERAL}:{parent}")
        said = await w.event(p.message(user=ALICE, channel=GENERAL, thread_ts=parent,
                                       text="I will paint the fence by Friday"))
        ts = said.sent["event"]["ts"]
        before = await commitments(w)

        edit = p.message_changed(user=ALICE, channel=GENERAL, ts=ts, thread_ts=parent,
                                 text="I will paint the gate by Friday", old_text="I will paint the fence by Friday")
        assert await w.settle(await w.sender.event(edit)) == ["revised"]
        after_edit = await commitments(w)

        deletion = p.message_deleted(user=ALICE, channel=GENERAL, ts=ts, thread_ts=parent,
                                     text="I will paint the gate by Friday")
        assert await w.settle(await w.sender.event(deletion)) == ["retracted"]
        after_delete = await commitments(w)
        window = await w.rt.window.recent(Scope(tenant=w.tenant, session=f"{GENERAL}:{parent}"))

    assert before == ["paint the fence by Friday"]
    assert after_edit == ["paint the gate by Friday"]
    assert after_delete == []
    assert window == []


async def test_the_speakers_own_zone_resolves_tomorrow_at_3pm(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:  # the workspace's zone is UTC
        p = w.slack.payloads
        parent = w.slack.add_message(GENERAL, "the draft", user=CAROL)
        await open_dispute(w, f"{GENERAL}:{parent}")
        alice = await w.event(p.message(user=ALICE, channel=GENERAL, thread_ts=parent,
                                        text="I will send the draft tomorrow at 3pm"))
        bob = await w.event(p.message(user=BOB, channel=GENERAL, thread_ts=parent,
                                      text="I will review the draft tomorrow at 3pm"))
        await w.drain()
        due = {f.subject: f.due_at for f in await w.facts() if f.kind is Kind.COMMITMENT}

    for user, event, zone in ((ALICE, alice, "America/Los_Angeles"), (BOB, bob, "Asia/Shanghai")):
        said = datetime.fromtimestamp(float(event.sent["event"]["ts"]), ZoneInfo(zone))
        expected = datetime.combine(said.date() + timedelta(days=1), datetime.min.time(), ZoneInfo(zone))
        assert due[user] == expected.replace(hour=15), user


# -- App Home and leaving ------------------------------------------------------------------------------


async def test_the_home_tab_shows_the_members_own_memories_and_commitments(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        p = w.slack.payloads
        parent = w.slack.add_message(GENERAL, "the fence", user=BOB)
        await open_dispute(w, f"{GENERAL}:{parent}")
        await w.event(p.message(user=ALICE, channel=GENERAL, thread_ts=parent, text="I will paint the fence by Friday"))
        await w.event(p.message(user=BOB, channel=GENERAL, thread_ts=parent, text="I will buy the paint by Thursday"))
        await w.drain()
        assert await w.settle(await w.sender.event(p.app_home_opened(user=BOB))) == ["home"]
        published = await w.slack.wait_for_call("views.publish")

    view = published.json_param("view")
    shown = texts(published)
    assert published.params["user_id"] == BOB and view["type"] == "home"
    assert "buy the paint by Thursday" in shown and "paint the fence" not in shown  # only his own
    assert "我记得的关于你的内容" in shown  # bob's Slack locale is zh-CN
    actions = [e["action_id"] for b in view["blocks"] for e in b.get("elements", []) if e.get("type") == "button"]
    actions += [b["accessory"]["action_id"] for b in view["blocks"] if "accessory" in b]
    assert "heyan_mem_correct" in actions and "heyan_commit_done" in actions
    assert "heyan_mem_confirm" not in actions and "heyan_mem_delete" not in actions  # he is no moderator


async def test_removing_the_app_schedules_the_purge_and_coming_back_cancels_it(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        ws = w.slack.workspace
        uninstalled = w.slack.payloads.event_callback({"type": "app_uninstalled", "event_ts": w.slack.next_ts()})
        assert await w.settle(await w.sender.event(uninstalled)) == ["left"]
        marker = await w.rt.redis.get(f"heyan:tenant-left:{w.tenant}")
        assert marker is not None and await purge_due(w.rt.redis, w.tenant, marker.decode())
        jobs = [k.decode() for k in await w.rt.redis.zrange("arq:queue", 0, -1)]
        assert any(j.startswith(f"purge:{w.tenant}") or w.tenant in j for j in jobs), jobs

        await w.event(w.slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="hello again"))
        assert await w.rt.redis.get(f"heyan:tenant-left:{w.tenant}") is None
        assert ws.team_id in w.tenant


# -- requests that must change nothing ------------------------------------------------------------------


@pytest.mark.parametrize("tamper", ["bad_signature", "stale_timestamp", "unsigned"])
async def test_a_forged_or_stale_request_gets_401_and_nothing_is_stored(
    tmp_path: Path, redis_url: str, tamper: Tamper
) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        before = len(w.slack.calls)
        mention = w.slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="I will pay you by Friday")
        event = await w.sender.event(mention, tamper=tamper)
        command = await w.sender.command(w.slack.payloads.slash_command(user=CAROL, channel=GENERAL,
                                                                         text="memory list"), tamper=tamper)
        keys = [k async for k in w.rt.redis.scan_iter(match=f"heyan:*{w.tenant}*")]

    assert (event.status, event.json()) == (401, {"error": "invalid request"})
    assert command.status == 401
    assert keys == [] and w.slack.calls[before:] == []
    assert w.bridge.outcomes.of(event.sent["event_id"]) == []


async def test_a_malformed_payload_gets_400_and_nothing_is_stored(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        sender = w.sender
        before = len(w.slack.calls)
        no_channel = w.slack.payloads.event_callback(w.slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="hi"))
        del no_channel["event"]["channel"]
        no_event = {**no_channel, "event": "app_mention"}
        bad_ts = w.slack.payloads.event_callback(w.slack.payloads.message(user=ALICE, channel=GENERAL, text="x"))
        bad_ts["event"]["ts"] = "yesterday"
        replies = [await sender.event(no_channel), await sender.event(no_event), await sender.event(bad_ts)]
        no_user = w.slack.payloads.slash_command(user=ALICE, channel=GENERAL, text="help")
        del no_user["user_id"]
        replies.append(await sender.command(no_user))
        body = "{not json"
        replies.append(await sender._post(body, "application/json", {}, None, None, None))
        forged = await sender._post(body, "application/json", {}, "bad_signature", None, None)
        keys = [k async for k in w.rt.redis.scan_iter(match=f"heyan:*{w.tenant}*")]

    assert [r.status for r in replies] == [400, 400, 400, 400, 400]
    assert replies[0].json()["error"] == "malformed payload"
    assert forged.status == 401  # an unreadable body that is not Slack's is still just forged
    assert keys == [] and w.slack.calls[before:] == []  # not even auth.test: refused before authorization
