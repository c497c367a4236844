"""``/dispute`` on the stand-in with a real runtime: a private thread with its members and the opening
message from the outbox; status, summary and close; public fallback and missing permissions; DMs;
the defer before a slow answer."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import discord

from bot.extraction.candidates import Utterance
from memory.models import Lang, Summary, Visibility
from tests.discord_harness import hash_embedder, heyan_on_discord, redis_url
from tests.discord_standin import (
    EPHEMERAL,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    DiscordStandIn,
    Fault,
    Overwrite,
    UserSpec,
)
from tests.jobs_helpers import ScriptedProvider

__all__ = ["hash_embedder", "redis_url"]


async def test_dispute_open_makes_a_private_thread_with_members_and_the_opening_pings_only_them(
        tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        general = h.discord.guild.channel("general")
        alice, bob, carol = (h.discord.user(n) for n in ("alice", "bob", "carol"))
        answer = await h.run("dispute open", {"title": "Parking @everyone spot", "member1": bob, "member2": carol},
                             user="alice", channel="general")
        assert answer["flags"] & EPHEMERAL

        created = h.discord.find_requests("POST", rf"/channels/{general.id}/threads")
        assert len(created) == 1 and created[0].json["type"] == PRIVATE_THREAD
        assert created[0].json["invitable"] is False
        thread_id = int(created[0].response["id"])
        assert f"<#{thread_id}>" in answer["content"]
        assert {alice.id, bob.id, carol.id} <= h.discord.guild.channel(thread_id).member_ids

        info = await h.rt.sessions.get(h.tenant, str(thread_id))
        assert info is not None and info.is_open and info.title == "Parking @everyone spot"
        assert info.visibility is Visibility.PRIVATE
        assert set(info.members) == {str(alice.id), str(bob.id), str(carol.id)}

        opening = (await h.bot_posts(thread_id))[0]  # posted by the outbox's sender
        allowed = opening.json["allowed_mentions"]
        assert allowed["parse"] == [] and sorted(int(u) for u in allowed["users"]) == sorted([bob.id, carol.id])
        assert {int(m["id"]) for m in opening.response["mentions"]} == {bob.id, carol.id}
        assert opening.response["mention_everyone"] is False and opening.response["mention_roles"] == []
        assert "@\u200beveryone" in opening.json["content"]  # the title is plain text: escaped
        assert f"<@{bob.id}>" in opening.json["content"]

        status = await h.run("dispute status", user="bob", channel=thread_id)  # bob's client is in Chinese
        assert status["flags"] & EPHEMERAL
        embed = status["embeds"][0]
        assert embed["title"] == "争议：Parking @everyone spot"
        assert {f["name"]: f["value"] for f in embed["fields"]}["状态"] == "进行中"
        english = await h.run("dispute status", user="carol", channel=thread_id)
        assert {f["name"]: f["value"] for f in english["embeds"][0]["fields"]}["State"] == "open"

        since = len(h.discord.requests)
        await h.say("{bot} I want my spot back on weekdays", author="bob", channel=thread_id)
        await h.bot_posts(thread_id, since)
        summary = await h.run("dispute summary", user="carol", channel=thread_id)
        assert summary["flags"] & EPHEMERAL and summary["embeds"][0]["description"]

        refused = await h.run("dispute close", user="carol", channel=thread_id)  # neither opener nor moderator
        assert refused["flags"] & EPHEMERAL and "only whoever opened this dispute" in refused["content"]
        assert (await h.rt.sessions.get(h.tenant, str(thread_id))).is_open  # type: ignore[union-attr]

        closed = await h.run("dispute close", {"reason": "agreed to alternate"}, user="alice", channel=thread_id)
        assert not closed["flags"] & EPHEMERAL  # everyone in the thread sees it closed
        assert "closed this dispute" in closed["content"] and "alternate" in closed["content"]
        assert closed["mentions"] == []
        assert not (await h.rt.sessions.get(h.tenant, str(thread_id))).is_open  # type: ignore[union-attr]


async def test_a_second_dispute_in_the_thread_is_refused_and_a_refused_new_thread_is_removed(
        tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = h.discord.guild.channel("existing-thread")
        first = await h.run("dispute open", {"title": "Noise"}, user="alice", channel=thread)
        assert "Dispute opened" in first["content"]
        assert not h.discord.find_requests("POST", r"/channels/\d+/threads")  # opened in the thread itself
        assert h.discord.find_requests("PUT", rf"/channels/{thread.id}/thread-members/@me")  # and joined it
        again = await h.run("dispute open", {"title": "Noise again"}, user="carol", channel=thread)
        assert again["flags"] & EPHEMERAL and "already open here: Noise" in again["content"]

        blank = await h.run("dispute open", {"title": "   "}, user="carol", channel="general")
        assert "needs a title" in blank["content"]
        made = h.discord.find_requests("POST", r"/channels/\d+/threads")
        assert len(made) == 1 and h.discord.find_requests("DELETE", rf"/channels/{made[0].response['id']}")


async def test_private_threads_fall_back_to_public_and_missing_permissions_are_named(
        tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        guild = h.discord.guild
        bot_role = guild.role("heyan")
        guild.channel("mediation").overwrites.append(
            Overwrite(bot_role.id, 0, deny=discord.Permissions(create_private_threads=True).value))
        public = await h.run("dispute open", {"title": "Fence"}, user="alice", channel="mediation")
        made = h.discord.find_requests("POST", rf"/channels/{guild.channel('mediation').id}/threads")
        assert made[0].json["type"] == PUBLIC_THREAD and "private thread" not in public["content"]
        info = await h.rt.sessions.get(h.tenant, str(made[0].response["id"]))
        assert info is not None and info.visibility is Visibility.PUBLIC

        guild.channel("general").overwrites.append(
            Overwrite(bot_role.id, 0, deny=discord.Permissions(send_messages_in_threads=True).value))
        refused = await h.run("dispute open", {"title": "Hedge"}, user="alice", channel="general")
        assert refused["flags"] & EPHEMERAL and "**Send Messages in Threads**" in refused["content"]
        assert not h.discord.find_requests("POST", rf"/channels/{guild.channel('general').id}/threads")

        guild.channel("general").overwrites.clear()
        h.discord.inject("POST", r"/channels/\d+/threads", Fault.missing_permissions())
        forbidden = await h.run("dispute open", {"title": "Hedge"}, user="alice", channel="general", locale="zh-CN")
        assert "创建私密子区" in forbidden["content"]  # Create Private Threads, in the caller's language


async def test_a_member_option_naming_someone_outside_the_server_is_refused(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        stranger = UserSpec(h.discord.ids.next(), "stranger")
        answer = await h.run("dispute open", {"title": "Noise", "member1": stranger}, user="alice")
        assert answer["flags"] & EPHEMERAL and answer["content"].startswith("I can't use")
        assert not h.discord.find_requests("POST", r"/channels/\d+/threads")


async def test_guild_commands_are_refused_clearly_in_a_dm(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        for command in ("dispute status", "memory list"):
            answer = await h.run(command, user="carol", dm=True)
            assert answer["flags"] & EPHEMERAL
            assert answer["content"] == "This command works in a server, not in direct messages."


class SlowSummaries(ScriptedProvider):
    """Summaries wait for the test: a slow LLM without a wall-clock window."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()

    async def summarize(self, turns: Sequence[Utterance], previous: Summary | None, lang: Lang) -> str:
        await self.gate.wait()
        return await super().summarize(turns, previous, lang)


async def test_a_slow_command_defers_within_discords_deadline(tmp_path: Path, redis_url: str) -> None:
    provider = SlowSummaries()
    standin = DiscordStandIn(interaction_deadline=3.0)  # Discord's rule: first answer within 3 s
    async with heyan_on_discord(tmp_path, redis_url, provider=provider, standin=standin) as h:
        thread = h.discord.guild.channel("existing-thread")
        since = len(h.discord.requests)
        await h.say("{bot} we disagree about the fence", author="bob", channel=thread)
        await h.bot_posts(thread.id, since)
        payload = await h.command("dispute summary", user="alice", channel=thread)
        deferred = await h.callback(payload)
        assert deferred.json["type"] == 5 and deferred.status in (200, 204)  # "thinking…", accepted in time
        assert deferred.json["data"]["flags"] == EPHEMERAL
        assert not h.discord.find_requests("POST", rf"/webhooks/\d+/{payload['token']}")
        provider.gate.set()
        answer = await h.answer(payload)
        assert answer["flags"] & EPHEMERAL and answer["embeds"][0]["description"]
