"""``/heyan`` through bolt's real HTTP handling: every subcommand, acked empty at once and answered
ephemerally through the ``response_url`` afterwards; refusals for members; the language of the
answers; the rate limit; exports as files in the caller's DM.

In the stand-in's workspace carol is a workspace admin and owner, alice is in the moderators' user
group (``HEYAN_SLACK_MODERATOR_GROUP``), and bob is a member whose Slack locale is zh-CN.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from bot.config.settings import LimitSettings
from memory.models import FactStatus, Kind, Scope, utcnow
from tests.slack_standin import ALICE, BOB, CAROL, FILE_UPLOAD, GENERAL, RecordedCall
from tests.slack_world import (  # noqa: F401  (fixtures)
    World,
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
    texts,
)


def shown(call: RecordedCall) -> str:
    assert call.params.get("response_type") == "ephemeral"
    return texts(call)


async def seed(w: World) -> dict[str, str]:
    """Alice's commitment, Bob's contested demand, and Bob's unverified claim about Alice."""
    facts = await w.remember(
        w.fact(Kind.COMMITMENT, ALICE, "alice", "repaint the fence", "repaint the fence by Friday",
               due_at=utcnow() + timedelta(days=2), quote="I will repaint the fence by Friday"),
        w.fact(Kind.DEMAND, BOB, "小波", "wants", "a quiet evening", status=FactStatus.DISPUTED),
        w.fact(Kind.EVENT, BOB, "小波", "claims", "alice took my spot <!channel>", status=FactStatus.UNVERIFIED,
               quote="alice took my spot <!channel>"),
    )
    return {"fence": facts[0].id, "quiet": facts[1].id, "spot": facts[2].id}


async def test_help_and_an_unknown_subcommand(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        plain = shown(await w.command(CAROL, GENERAL, ""))
        unknown = shown(await w.command(ALICE, GENERAL, "frobnicate <!channel>"))
        chinese = shown(await w.command(BOB, GENERAL, "help"))

    assert "/heyan dispute open" in plain and "*Moderators*" in plain
    assert unknown.startswith("I don't know `/heyan frobnicate @channel`") and "/heyan mymemory" in unknown
    assert "<!channel>" not in unknown
    assert "我不认识" not in chinese and "所有人" in chinese and "管理员*" not in chinese  # members see no moderator part


async def test_dispute_open_status_summary_and_close(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        opened = shown(await w.command(CAROL, GENERAL, f"dispute open <@{BOB}|bob> <@{ALICE}|alice> The parking spots"))
        opening = await w.slack.wait_for_call("chat.postMessage")
        assert await w.rt.sessions.is_open(w.tenant, GENERAL)

        said = await w.event(w.slack.payloads.message(user=ALICE, channel=GENERAL, text="I will move my car by 6pm"))
        assert w.bridge.outcomes.of(said.sent["event_id"]) == ["observed"]
        await w.drain()
        status = shown(await w.command(ALICE, GENERAL, "dispute status"))
        summary = shown(await w.command(ALICE, GENERAL, "dispute summary"))
        refused = shown(await w.command(BOB, GENERAL, "dispute close"))
        # alice promised something: the close posts the agreement card and waits for the parties (issue 22)
        waiting = shown(await w.command(CAROL, GENERAL, "dispute close we talked it through"))
        card = await w.slack.wait_for_call("chat.postMessage", count=2)
        value = next(e["value"] for b in card.json_param("blocks") if b["type"] == "actions" for e in b["elements"]
                     if e["action_id"] == "heyan_card_confirm")
        for who in (BOB, ALICE):
            await w.click(who, "heyan_card_confirm", value)
        closing = await w.slack.wait_for_call("chat.postMessage", count=3)  # "everyone confirmed: closed"
        closed = shown(await w.command(CAROL, GENERAL, "dispute status"))
        info = await w.rt.sessions.get(w.tenant, GENERAL)

    assert opened.startswith("Opened the dispute “The parking spots” in this channel; the opening message is on "
                             "its way. I will remember what is said here, in its threads too.")
    assert "message menu" in opened  # a slash command carries no thread: how to open one on a thread
    assert opening.params["channel"] == GENERAL and "thread_ts" not in opening.params
    assert f"<@{BOB}>" in opening.params["text"] and f"<@{ALICE}>" in opening.params["text"]
    assert "The parking spots" in status and "open" in status and "move my car by 6pm" in status
    assert "alice" in summary.lower()
    assert "只有发起人或管理员可以结束这个争议" in refused  # bob is neither, and reads Chinese
    assert f"closes once <@{BOB}>, <@{ALICE}> confirm it" in waiting and "Agreement card" in card.params["text"]
    assert "the dispute is closed" in closing.params["text"] and closing.params["link_names"] is False
    assert "closed" in closed
    assert info is not None and not info.is_open and info.close_reason == "we talked it through"


async def test_a_moderator_command_is_refused_to_a_member(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        ids = await seed(w)
        refused = [shown(await w.command(BOB, GENERAL, text)) for text in
                   ("memory list", f"memory delete {ids['fence'][:8]}", "memory review", "memory audit")]
        group_member = shown(await w.command(ALICE, GENERAL, "memory list"))
        left = await w.facts()
        audit = await w.rt.audit.entries(w.tenant)

    hint = "工作区管理员或所有者，或用户组 S0MODS0001 的成员"
    assert all(r.startswith("只有管理员可以") and hint in r for r in refused), refused
    assert "*3 memories*" in group_member  # alice moderates through the user group
    assert len(left) == 3 and audit == []


async def test_memory_review_subcommands(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        ids = await seed(w)
        listed = shown(await w.command(CAROL, GENERAL, f"memory list <@{BOB}|bob> disputed"))
        nothing = shown(await w.command(CAROL, GENERAL, "memory list consensus"))
        bad = shown(await w.command(CAROL, GENERAL, "memory list sometimes"))
        show = await w.command(CAROL, GENERAL, f"memory show {ids['spot'][:6]}")
        edited = shown(await w.command(CAROL, GENERAL, f"memory edit {ids['quiet'][:8]} quiet after 10pm &amp; weekends"))
        confirmed = shown(await w.command(CAROL, GENERAL, f"memory confirm {ids['spot'][:8]} checked with alice"))
        review = shown(await w.command(CAROL, GENERAL, "memory review"))
        deleted = shown(await w.command(CAROL, GENERAL, f"memory delete {ids['fence'][:8]} duplicate"))
        audit = shown(await w.command(CAROL, GENERAL, f"memory audit <@{BOB}|bob>"))
        facts = {f.id: f for f in await w.facts()}

    assert "*1 memory*" in listed and "a quiet evening" in listed and "fence" not in listed
    assert nothing == "No memories match." and "I don't understand “sometimes”" in bad
    buttons = [e["action_id"] for b in show.json_param("blocks") for e in b.get("elements", []) if "action_id" in e]
    assert buttons == ["heyan_mem_confirm", "heyan_mem_correct", "heyan_mem_delete"]
    assert "alice took my spot &lt;!channel&gt;" in texts(show) and "<!channel>" not in texts(show)
    assert edited.startswith(f"Updated the memory `{ids['quiet'][:8]}` (version 2)")
    assert facts[ids["quiet"]].value == "quiet after 10pm & weekends"
    assert facts[ids["quiet"]].status is FactStatus.ACTIVE  # an edit settles the dispute
    assert confirmed.startswith(f"Confirmed the memory `{ids['spot'][:8]}`")
    assert review.startswith("Nothing waits for review.")
    assert deleted.startswith(f"Deleted the memory `{ids['fence'][:8]}`") and ids["fence"] not in facts
    assert "`memory.edit`" in audit and "`memory.confirm`" in audit and "checked with alice" in audit


async def test_exports_go_to_the_callers_dm_as_a_file(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        await seed(w)
        mine = shown(await w.command(BOB, GENERAL, "mymemory export"))
        first = w.slack.calls_to(FILE_UPLOAD)[0]
        someone = shown(await w.command(CAROL, GENERAL, f"memory export <@{ALICE}|alice>"))
        refused = shown(await w.command(BOB, GENERAL, f"memory export <@{ALICE}|alice>"))
        completes = w.slack.calls_to("files.completeUploadExternal")

    assert mine == "我已通过私信把导出文件（2 条记忆）发给你。"
    data = json.loads(first.body)
    assert data["user"] == BOB and sorted(f["value"] for f in data["facts"]) == [
        "a quiet evening", "alice took my spot <!channel>"]
    assert [c.params["channel_id"] for c in completes] == ["D0BOB00001", "D0CAROL001"]  # never a channel
    assert someone == "I sent the export (1 memory) to you in a direct message."  # alice's fence
    assert refused.startswith("只有管理员可以导出其他成员的数据")


async def test_mymemory_and_commitments_for_a_member(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        await seed(w)
        mine = await w.command(BOB, GENERAL, "mymemory")
        promises = shown(await w.command(BOB, GENERAL, "commitments"))
        nothing = shown(await w.command(CAROL, GENERAL, "mymemory"))

    cards = texts(mine)
    assert "*我记得的关于你的内容*（2 条）" in cards and "a quiet evening" in cards and "fence" not in cards
    buttons = {e["action_id"] for b in mine.json_param("blocks") for e in b.get("elements", []) if "action_id" in e}
    assert buttons == {"heyan_mem_correct"}  # a member corrects; only moderators confirm or delete
    assert "repaint the fence by Friday" in promises  # public commitments of this channel
    assert nothing == "I don't remember anything about you."


async def test_the_workspace_language_overrides_the_locale(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        await w.rt.tenants.set(w.tenant, language="en")
        english = shown(await w.command(BOB, GENERAL, "mymemory"))
        await w.rt.tenants.set(w.tenant, language="zh")
        chinese = shown(await w.command(CAROL, GENERAL, "mymemory"))

    assert english == "I don't remember anything about you."
    assert chinese == "我没有记下任何关于你的内容。"


async def test_too_many_commands_are_told_to_slow_down(tmp_path: Path, redis_url: str) -> None:
    limits = LimitSettings(commands_per_user="2/minute")
    async with slack_world(tmp_path, redis_url, limits=limits) as w:
        answers = [shown(await w.command(CAROL, GENERAL, "mymemory")) for _ in range(3)]
        window = await w.rt.window.recent(Scope(tenant=w.tenant, session=GENERAL))

    assert answers[:2] == ["I don't remember anything about you."] * 2
    assert answers[2].startswith("slow down: you are sending commands faster than Heyan answers them")
    assert window == []
