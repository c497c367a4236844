"""Each server runs Heyan its own way, and Heyan keeps track of servers and threads that go away —
through discord.py against the stand-in with a real runtime.

* ``/heyan settings``: moderators see and change the server's settings through the moderation
  service (a member who reaches the command is refused at run time); a role set there makes its
  members moderators; who may open disputes and where applies to ``/dispute open`` before any thread
  is made.
* A guild that removed Heyan while it was offline is scheduled for purge at the next READY; one that
  added it back has its pending purge cancelled.
* Deleting a dispute thread forgets its memories and closes the dispute.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import discord

from adapters.discord import DiscordPlatform
from adapters.discord.events.guilds import GUILDS_KEY
from bot.models import Message
from jobs.queue import QUEUE
from memory.models import Kind, Scope, Visibility
from tests.discord_harness import WAIT, Harness, hash_embedder, heyan_on_discord, redis_url
from tests.discord_standin import EPHEMERAL, RoleSpec, default_guild

__all__ = ["hash_embedder", "redis_url"]


def fields(message: dict[str, object]) -> dict[str, str]:
    embed = message["embeds"][0]  # type: ignore[index]
    return {f["name"]: f["value"] for f in embed["fields"]}


async def test_moderators_change_the_servers_settings_and_members_cannot(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        shown = await h.run("heyan settings show", user="alice")
        assert shown["flags"] & EPHEMERAL and fields(shown)["Timezone"] == "UTC"

        refused = await h.run("heyan settings timezone", {"zone": "Asia/Shanghai"}, user="carol")
        assert "only moderators can change this community's settings" in refused["content"]
        assert (await h.rt.tenants.get(h.tenant)).timezone == "UTC"  # default_permissions is only a hint

        bad = await h.run("heyan settings timezone", {"zone": "Mars/Olympus"}, user="alice")
        assert "Area/City" in bad["content"]
        done = await h.run("heyan settings timezone", {"zone": "Asia/Shanghai"}, user="alice")
        assert done["content"] == "Updated." and fields(done)["Timezone"] == "Asia/Shanghai"
        zones = await h.autocomplete("heyan settings timezone", {"zone": "shang"}, "zone", user="alice")
        assert [c["value"] for c in zones] == ["Asia/Shanghai"]

        await h.run("heyan settings language", {"language": "zh"}, user="alice")
        chinese = await h.run("heyan settings show", user="alice", locale="en-US")
        assert chinese["embeds"][0]["title"] == "本服务器的 Heyan 设置"
        await h.run("heyan settings reset", {"setting": "language"}, user="alice")

        days = await h.run("heyan settings retention", {"kind": "emotion", "days": "3"}, user="alice")
        assert "emotion: 3 days" in fields(days)["Memories kept"]
        nonsense = await h.run("heyan settings retention", {"kind": "emotion", "days": "soon"}, user="alice")
        assert "not a number of days" in nonsense["content"]

        entries = await h.rt.audit.entries(h.tenant)
        assert {e.action for e in entries} >= {"settings.update", "settings.reset"}


async def test_a_moderator_role_set_by_the_server_makes_moderators(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        guild = h.discord.guild
        helpers = RoleSpec(h.discord.ids.next(), "Helpers")
        guild.roles.append(helpers)
        guild.member("carol").roles.append(helpers.id)
        await h.discord.dispatch("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": helpers.payload()})

        before = await h.run("memory list", user="carol")
        assert "only moderators" in before["content"]
        await h.run("heyan settings moderator-role", {"role": helpers}, user="alice")
        after = await h.run("memory list", user="carol")
        assert after["content"] == "No memories match."
        assert (await h.rt.tenants.get(h.tenant)).moderator_roles == [str(helpers.id)]

        await h.run("heyan settings moderator-role", {"role": helpers, "remove": True}, user="alice")
        again = await h.run("memory list", user="carol")
        assert "only moderators" in again["content"] and f"<@&{helpers.id}>" not in again["content"]


async def test_the_servers_dispute_policy_applies_before_a_thread_is_made(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        mediation = h.discord.guild.channel("mediation")
        await h.run("heyan settings dispute-channel", {"channel": mediation}, user="alice")
        elsewhere = await h.run("dispute open", {"title": "Noise"}, user="carol", channel="general")
        assert "can't be opened in this channel" in elsewhere["content"]
        assert not h.discord.find_requests("POST", r"/channels/\d+/threads")  # nothing made, nothing left behind
        here = await h.run("dispute open", {"title": "Noise"}, user="carol", channel="mediation")
        assert "Dispute opened" in here["content"]

        await h.run("heyan settings dispute-openers", {"who_may": "moderators"}, user="alice")
        member = await h.run("dispute open", {"title": "Hedge"}, user="bob", channel="mediation", locale="en-US")
        assert "only moderators open disputes" in member["content"]
        assert len(h.discord.find_requests("POST", r"/channels/\d+/threads")) == 1
        moderator = await h.run("dispute open", {"title": "Hedge"}, user="alice", channel="general")
        assert "Dispute opened" in moderator["content"]  # moderators may open anywhere


async def purge_marker(h: Harness, guild_id: int) -> str | None:
    raw = await h.rt.redis.get(f"heyan:tenant-left:discord:{guild_id}")
    return raw.decode() if isinstance(raw, bytes) else raw


async def test_departures_while_offline_are_reconciled_at_ready(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, leave_purge_days=2) as h:
        second = default_guild(h.discord.ids, h.discord.bot_user, name="second")
        await h.discord.join_guild(second)

        async def known() -> set[str]:
            return {m.decode() if isinstance(m, bytes) else m for m in await h.rt.redis.smembers(GUILDS_KEY)}

        deadline = asyncio.get_running_loop().time() + WAIT
        while await known() != {str(h.discord.guild.id), str(second.id)}:
            assert asyncio.get_running_loop().time() < deadline, await known()
            await asyncio.sleep(0.05)

        await h.platform.stop()
        h.discord.guilds.remove(second)  # removed while Heyan was away: no event will ever say so
        platform = DiscordPlatform(h.settings, guild_ready_timeout=0.2, identify_delay=0)
        await platform.start(h.rt)
        try:
            deadline = asyncio.get_running_loop().time() + WAIT
            while (held := await purge_marker(h, second.id)) is None:
                assert asyncio.get_running_loop().time() < deadline, "no purge scheduled at READY"
                await asyncio.sleep(0.05)
            assert await h.rt.redis.zscore(QUEUE, f"purge-tenant:discord:{second.id}:{held}") is not None
            assert await purge_marker(h, h.discord.guild.id) is None  # still there: untouched
            assert await known() == {str(h.discord.guild.id)}
        finally:
            await platform.stop()

        h.discord.guilds.append(second)  # added back while Heyan was away
        platform = DiscordPlatform(h.settings, guild_ready_timeout=0.2, identify_delay=0)
        await platform.start(h.rt)
        try:
            deadline = asyncio.get_running_loop().time() + WAIT
            while await purge_marker(h, second.id) is not None:
                assert asyncio.get_running_loop().time() < deadline, "the pending purge was not cancelled"
                await asyncio.sleep(0.05)
        finally:
            await platform.stop()


async def test_deleting_a_dispute_thread_forgets_it_and_closes_the_dispute(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = h.discord.guild.channel("existing-thread")
        await h.run("dispute open", {"title": "Fence"}, user="alice", channel=thread)
        kept = h.fact("carol", "wants", "a quiet evening", session="elsewhere")
        await h.seed(h.fact("bob", "repaint", "repaint the fence", kind=Kind.COMMITMENT, session=str(thread.id)),
                     kept)
        await h.rt.conversation.intake.record(Message(
            id="m1", scope=Scope(tenant=h.tenant, session=str(thread.id), user=h.user_id("bob")),
            author_name="Bob", text="I will repaint the fence", ts=discord.utils.utcnow(),
            visibility=Visibility.PUBLIC))

        await h.discord.delete_channel(thread)

        async def forgotten() -> bool:
            info = await h.rt.sessions.get(h.tenant, str(thread.id))
            return info is not None and not info.is_open

        deadline = asyncio.get_running_loop().time() + WAIT
        while not await forgotten():
            assert asyncio.get_running_loop().time() < deadline, "the dispute is still open"
            await asyncio.sleep(0.05)
        assert [f.value for f in await h.facts()] == ["a quiet evening"]  # only the other thread's memory
        assert await h.rt.window.recent(Scope(tenant=h.tenant, session=str(thread.id))) == []
        info = await h.rt.sessions.get(h.tenant, str(thread.id))
        assert info is not None and info.close_reason == "deleted on the platform"
        deleted = [e for e in await h.rt.audit.entries(h.tenant) if e.action == "session.deleted"]
        assert deleted and deleted[0].after is not None and deleted[0].after["was_open"] is True
        assert {"records", "messages", "posts"} <= set(deleted[0].after)


async def test_a_dispute_thread_deleted_while_offline_is_forgotten_at_ready(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = h.discord.guild.channel("existing-thread")
        await h.run("dispute open", {"title": "Fence"}, user="alice", channel=thread)
        await h.seed(h.fact("bob", "repaint", "repaint the fence", kind=Kind.COMMITMENT, session=str(thread.id)))
        await h.platform.stop()
        h.discord.guild.channels.remove(thread)  # deleted while Heyan was away: no THREAD_DELETE reaches it
        platform = DiscordPlatform(h.settings, guild_ready_timeout=0.2, identify_delay=0)
        await platform.start(h.rt)
        try:
            listeners = platform.bot.get_cog("Listeners") if platform.bot else None
            await listeners.caught_up()  # type: ignore[union-attr]
            info = await h.rt.sessions.get(h.tenant, str(thread.id))
            assert info is not None and not info.is_open and info.close_reason == "deleted on the platform"
            assert await h.facts() == []
        finally:
            await platform.stop()
