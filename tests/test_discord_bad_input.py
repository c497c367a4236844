"""What goes wrong on Discord, and what the right person hears — once, with nothing lost and nothing
posted twice. Through discord.py against the stand-in with a real runtime:

* addressed without text (a reply with the ping off, a mention of Heyan's role, no Message Content
  intent): a short hint, once a day per member — and with the intent, the role mention is answered;
* Heyan may not post where it was asked: the member hears why by DM, and the mention is not retried;
* a 429 storm: discord.py's own retries, none of Heyan's on top, one reply;
* a reset token: ``heyan run`` ends with what to do; posts are not dead-lettered for it;
* an interaction whose work outlives its 15-minute token: one DM instead of silence;
* ``/dispute open`` says what Heyan cannot read without Message Content, and why a thread is public
  without Manage Threads (so no private thread is ever left with only Heyan in it).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import discord
import pytest

from adapters.discord.connection.sender import delivery_error
from adapters.runtime.composition import StartupError
from tests.discord_harness import WAIT, hash_embedder, heyan_on_discord, redis_url
from tests.discord_standin import PRIVATE_THREAD, PUBLIC_THREAD, Fault, Overwrite, wait_until
from tests.test_discord_limits import Gate

__all__ = ["hash_embedder", "redis_url"]


async def test_addressed_without_text_gets_a_hint_once(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:  # no Message Content intent
        general = h.discord.guild.channel("general")
        since = len(h.discord.requests)
        await h.say("{bot} hello", author="bob")
        answer = (await h.bot_posts(general.id, since))[0]

        since = len(h.discord.requests)
        await h.say("and another thing", author="carol", reply_to=answer.response, reply_ping=False)
        hint = (await h.bot_posts(general.id, since))[0]
        assert "ping turned off" in hint.json["content"]
        assert hint.json["allowed_mentions"]["parse"] == [] and hint.response["mentions"] == []

        role = h.discord.guild.role("heyan")
        since = len(h.discord.requests)
        await h.say(f"<@&{role.id}> are you there?", author="carol")
        role_hint = (await h.bot_posts(general.id, since))[0]
        assert "mentioned my role, not me" in role_hint.json["content"]

        since = len(h.discord.requests)
        await h.say("once more", author="carol", reply_to=answer.response, reply_ping=False)
        await h.say(f"<@&{role.id}> hello?", author="carol")
        await h.say("{bot} still here?", author="carol")  # a real mention: answered, and it shows the rest was read
        later = await h.bot_posts(general.id, since)
        assert len(later) == 1 and "ping turned off" not in later[0].json["content"]


async def test_with_message_content_a_role_mention_is_answered(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, message_content=True) as h:
        general = h.discord.guild.channel("general")
        role = h.discord.guild.role("heyan")
        since = len(h.discord.requests)
        await h.say(f"<@&{role.id}> what do you remember?", author="carol")
        reply = (await h.bot_posts(general.id, since))[0]
        assert "mentioned my role" not in reply.json["content"]
        assert reply.json["message_reference"]


async def test_heyan_may_not_post_where_it_was_asked(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        general = h.discord.guild.channel("general")
        h.discord.inject("POST", rf"/channels/{general.id}/messages", Fault.missing_permissions(), times=None)
        carol = h.discord.user("carol")
        dm = h.discord.dm_channel_id(carol)
        since = len(h.discord.requests)
        await h.say("{bot} can you help?", author="carol")
        told = (await h.bot_posts(dm, since))[0]
        assert f"<#{general.id}>" in told.json["content"] and "**Send Messages**" in told.json["content"]
        assert await h.rt.engine.unanswered() == []  # not left to be answered again into the same refusal
        await h.say("{bot} hello??", author="carol")
        await wait_until(lambda: len(h.discord.find_requests("POST", rf"/channels/{general.id}/messages")) >= 4,
                         timeout=WAIT, what="the second mention's attempts")
        assert len([r for r in h.discord.find_requests("POST", rf"/channels/{dm}/messages")]) == 1  # told once


async def test_a_rate_limit_storm_is_left_to_discord_py(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        general = h.discord.guild.channel("general")
        h.discord.inject("POST", rf"/channels/{general.id}/messages", Fault.rate_limited(retry_after=0.01), times=3)
        since = len(h.discord.requests)
        await h.say("{bot} are you there?", author="carol")
        await h.bot_posts(general.id, since)
        tries = [r for r in h.discord.find_requests("POST", rf"/channels/{general.id}/messages")
                 if h.discord.requests.index(r) >= since]
        assert [r.status for r in tries] == [429, 429, 429, 200]  # discord.py's retries, and only those


async def test_a_reset_token_ends_the_run_with_what_to_do(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, serve=False) as h:
        await h.discord.reset_token()
        with pytest.raises(StartupError, match="Reset Token"):
            await asyncio.wait_for(h.platform.serve(), WAIT)


def test_a_rejected_token_does_not_dead_letter_posts() -> None:
    response = SimpleNamespace(status=401, reason="Unauthorized")
    refused = delivery_error(discord.HTTPException(response, {"message": "401: Unauthorized", "code": 0}),  # type: ignore[arg-type]
                             "channel 1")
    assert not refused.permanent and "HEYAN_DISCORD_TOKEN" in refused.reason
    gone = delivery_error(discord.NotFound(SimpleNamespace(status=404, reason="Not Found"),  # type: ignore[arg-type]
                                           {"message": "Unknown Channel", "code": 10003}), "channel 1")
    assert gone.permanent


async def test_work_that_outlives_the_interaction_token_is_said_by_dm(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        gate = Gate()
        h.rt.moderation.export_member = gate.around(h.rt.moderation.export_member)  # type: ignore[method-assign]
        bob = h.discord.user("bob")
        alice = h.discord.user("alice")
        payload = await h.command("memory export", {"member": bob}, user="alice")
        await asyncio.wait_for(gate.entered.wait(), WAIT)
        h.discord.clock.advance(16 * 60)  # the export took longer than the token lives
        since = len(h.discord.requests)
        gate.release.set()
        dm = h.discord.dm_channel_id(alice)
        told = (await h.bot_posts(dm, since))[0]
        assert "15 minutes" in told.json["content"]
        late = h.discord.find_requests("POST", rf"/webhooks/\d+/{payload['token']}")
        assert [r.status for r in late] == [401]  # tried once, refused, not retried


async def test_dispute_open_says_what_heyan_cannot_read_and_why_a_thread_is_public(
        tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:  # no Message Content intent
        opened = await h.run("dispute open", {"title": "Noise"}, user="alice", channel="general")
        assert "reads only the messages there that mention" in opened["content"]

        guild = h.discord.guild
        guild.channel("mediation").overwrites.append(
            Overwrite(guild.role("heyan").id, 0, deny=discord.Permissions(manage_threads=True).value))
        public = await h.run("dispute open", {"title": "Fence"}, user="alice", channel="mediation")
        made = h.discord.find_requests("POST", rf"/channels/{guild.channel('mediation').id}/threads")
        assert [m.json["type"] for m in made] == [PUBLIC_THREAD]  # never a private one it could not remove
        assert "**Manage Threads**" in public["content"]
        assert PRIVATE_THREAD not in [c.type for c in guild.channels if c.parent_id == guild.channel("mediation").id]


async def test_with_message_content_dispute_open_has_no_reading_note(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, message_content=True) as h:
        opened = await h.run("dispute open", {"title": "Noise"}, user="alice", channel="general")
        assert "Dispute opened" in opened["content"] and "mention" not in opened["content"]
