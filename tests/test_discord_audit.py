"""Held-out checks of the Discord stand-in and adapter against Discord's documentation.

Each test names the page and section of discord-api-docs (github.com/discord/discord-api-docs, read
at commit c98d64bc) it checks. The stand-in's own answers are checked over raw HTTP, so discord.py
does not smooth them over; Heyan is checked against those answers wired as ``heyan run`` wires it
(issue 19, "Bad input": missing permissions, an expired interaction token, 429 storms, a history
read refused), plus static checks of Heyan's modals, choices and mention lists.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest

from adapters.discord.commands.agreements import RefuseModal
from adapters.discord.commands.interactions import error_text
from adapters.discord.commands.member_commands import CorrectModal
from adapters.discord.commands.memory_commands import fact_choices
from adapters.discord.connection.sender import rate_limited
from adapters.discord.display.limits import DESCRIPTION, EMBED_TOTAL
from adapters.discord.display.render import render, split_message
from bot.text.richtext import Mention, RichText
from memory.models import Fact, Kind, Source, Visibility, utcnow
from tests.discord_harness import WAIT, hash_embedder, heyan_on_discord, redis_url
from tests.discord_standin import (
    EPHEMERAL,
    UNKNOWN_INTERACTION_TOKEN,
    UNKNOWN_WEBHOOK_TOKEN,
    DiscordStandIn,
    Fault,
    Overwrite,
    Payload,
    wait_until,
)
from tests.discord_standin_limits import callback_errors
from tests.discord_standin_world import (
    GUILD_NEWS,
    NEWS_THREAD,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    ChannelSpec,
)
from tests.test_discord_limits import Gate
from tests.test_discord_standin import discord_, running

__all__ = ["discord_", "hash_embedder", "redis_url"]


@pytest.fixture
async def http(discord_: DiscordStandIn) -> AsyncIterator[aiohttp.ClientSession]:
    headers = {"Authorization": f"Bot {discord_.token}"}
    async with aiohttp.ClientSession(headers=headers) as session:
        yield session


async def _post(http: aiohttp.ClientSession, url: str, body: Payload) -> tuple[int, Any]:
    async with http.post(url, json=body) as answer:
        return answer.status, (await answer.json() if answer.status != 204 else None)


async def _pending_interaction(discord_: DiscordStandIn) -> Payload:
    """A click no handler answers: its interaction waits for the test's own callbacks."""
    general = discord_.guild.channel("general")
    message = discord_.post_offline(discord_.message_payload("a card", author="alice", channel=general))
    payload = discord_.component_payload("nobody:answers", message=message, user="bob")
    await discord_.dispatch("INTERACTION_CREATE", payload)
    return payload


# --- the stand-in, as documented ------------------------------------------------------------------


async def test_create_message_needs_send_messages_and_a_reply_read_message_history(
        discord_: DiscordStandIn, http: aiohttp.ClientSession) -> None:
    # developers/resources/message.mdx, "Create Message" > Limitations: SEND_MESSAGES in a guild channel;
    # a reply needs READ_MESSAGE_HISTORY. developers/topics/threads.mdx, "Permissions": "SEND_MESSAGES has
    # no effect in threads; users must have SEND_MESSAGES_IN_THREADS". Codes: opcodes-and-status-codes.mdx.
    async with running(discord_):
        guild = discord_.guild
        general, thread = guild.channel("general"), guild.channel("existing-thread")
        role = guild.role("heyan").id
        url = f"{discord_.rest_base}/channels/{general.id}/messages"
        target = discord_.post_offline(discord_.message_payload("hello", author="bob", channel=general))
        reply = {"content": "hi", "message_reference": {"message_id": target["id"]}}
        assert (await _post(http, url, reply))[0] == 200

        general.overwrites.append(Overwrite(role, 0, deny=READ_MESSAGE_HISTORY))
        status, body = await _post(http, url, reply)
        assert (status, body["code"]) == (403, 50013)
        assert (await _post(http, url, {"content": "plain"}))[0] == 200

        general.overwrites[-1] = Overwrite(role, 0, deny=SEND_MESSAGES)
        status, body = await _post(http, url, {"content": "plain"})
        assert (status, body["code"]) == (403, 50013)
        # the thread under #general takes its parent's overwrites; Send Messages does not count there
        in_thread = f"{discord_.rest_base}/channels/{thread.id}/messages"
        assert (await _post(http, in_thread, {"content": "in the thread"}))[0] == 200
        general.overwrites[-1] = Overwrite(role, 0, deny=SEND_MESSAGES_IN_THREADS)
        status, body = await _post(http, in_thread, {"content": "in the thread"})
        assert (status, body["code"]) == (403, 50013)
        assert (await _post(http, url, {"content": "plain"}))[0] == 200


async def test_a_reply_points_at_a_message_of_that_channel(discord_: DiscordStandIn,
                                                           http: aiohttp.ClientSession) -> None:
    # developers/resources/message.mdx, "Message Reference Structure": channel_id is optional when
    # replying (the current channel); fail_if_not_exists (default true) else sends a plain message.
    async with running(discord_):
        general, mediation = discord_.guild.channel("general"), discord_.guild.channel("mediation")
        elsewhere = discord_.post_offline(discord_.message_payload("over there", author="bob", channel=mediation))
        url = f"{discord_.rest_base}/channels/{general.id}/messages"
        status, body = await _post(http, url, {"content": "hi", "message_reference": {"message_id": elsewhere["id"]}})
        assert (status, body["code"]) == (400, 50035) and "message_reference" in body["errors"]
        status, body = await _post(http, url, {"content": "hi", "message_reference": {
            "message_id": elsewhere["id"], "fail_if_not_exists": False}})
        assert status == 200 and body.get("referenced_message") is None


async def test_allowed_mentions_follow_the_documented_defaults_and_exclusions(
        discord_: DiscordStandIn, http: aiohttp.ClientSession) -> None:
    # developers/resources/message.mdx, "Allowed Mentions Object" > "Default Settings for Allowed
    # Mentions": regular messages parse users, roles and everyone; interactions and webhooks only users.
    # "the parse field is mutually exclusive with the other fields"; users/roles "max 100".
    async with running(discord_):
        guild = discord_.guild
        bob, moderators = discord_.user("bob"), guild.role("Moderators")
        content = f"<@{bob.id}> and <@&{moderators.id}>"
        url = f"{discord_.rest_base}/channels/{guild.channel('general').id}/messages"
        status, regular = await _post(http, url, {"content": content})
        assert status == 200 and regular["mention_roles"] == [str(moderators.id)]
        assert [u["id"] for u in regular["mentions"]] == [str(bob.id)]

        status, body = await _post(http, url, {"content": content, "allowed_mentions": {
            "parse": ["users"], "users": [str(bob.id)]}})
        assert (status, body["code"]) == (400, 50035) and "allowed_mentions" in body["errors"]
        status, _ = await _post(http, url, {"content": content, "allowed_mentions": {"parse": ["users"], "users": []}})
        assert status == 200  # "an empty array ... does not trigger a validation error"
        status, body = await _post(http, url, {"content": content, "allowed_mentions": {
            "users": [str(i) for i in range(1, 102)]}})
        assert (status, body["code"]) == (400, 50035)

        click = await _pending_interaction(discord_)
        callback = f"{discord_.rest_base}/interactions/{click['id']}/{click['token']}/callback"
        assert (await _post(http, callback, {"type": 6}))[0] == 204
        followup = f"{discord_.rest_base}/webhooks/{discord_.application_id}/{click['token']}"
        status, sent = await _post(http, followup, {"content": content})
        # "Create Followup Message": like Execute Webhook, "but wait is always true": the message comes back
        assert status == 200 and sent["content"] == content
        assert sent["mention_roles"] == [] and [u["id"] for u in sent["mentions"]] == [str(bob.id)]


async def test_interaction_callbacks_are_checked_as_documented(discord_: DiscordStandIn,
                                                               http: aiohttp.ClientSession) -> None:
    # developers/interactions/receiving-and-responding.mdx, "Interaction Callback Data Structure": with
    # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE "the only valid message flag you may use is EPHEMERAL";
    # "Modal": custom_id 1-100, title max 45, 1-5 components.
    async with running(discord_):
        click = await _pending_interaction(discord_)
        callback = f"{discord_.rest_base}/interactions/{click['id']}/{click['token']}/callback"
        status, body = await _post(http, callback, {"type": 5, "data": {"flags": EPHEMERAL | (1 << 2)}})
        assert (status, body["code"]) == (400, 50035)
        text_input = {"type": 1, "components": [{"type": 4, "custom_id": "why", "style": 1, "label": "Why?"}]}
        status, body = await _post(http, callback, {"type": 9, "data": {
            "custom_id": "m", "title": "t" * 46, "components": [text_input]}})
        assert (status, body["code"]) == (400, 50035) and "title" in body["errors"]["data"]
        status, _ = await _post(http, callback, {"type": 9, "data": {
            "custom_id": "m", "title": "t" * 45, "components": [text_input]}})
        assert status == 204
    # developers/interactions/application-commands.mdx, "Application Command Option Choice Structure";
    # receiving-and-responding.mdx, "Autocomplete": max of 25 choices.
    assert callback_errors(8, {"choices": [{"name": str(i), "value": str(i)} for i in range(26)]}) is not None
    assert callback_errors(8, {"choices": [{"name": "n", "value": "v" * 101}]}) is not None


async def test_a_429_carries_what_the_rate_limit_page_shows(discord_: DiscordStandIn,
                                                            http: aiohttp.ClientSession) -> None:
    # developers/topics/rate-limits.mdx, "Exceeding A Rate Limit": retry_after a float of seconds,
    # global a boolean; Retry-After and X-RateLimit-Scope headers; route headers on a route's limit.
    general = discord_.guild.channel("general")
    for fault, scope in ((Fault.rate_limited(1.5), "user"), (Fault.rate_limited(1.5, scope="shared"), "shared"),
                         (Fault.rate_limited(1.5, is_global=True), "global")):
        discord_.inject("POST", rf"/channels/{general.id}/messages", fault)
        async with http.post(f"{discord_.rest_base}/channels/{general.id}/messages", json={"content": "x"}) as answer:
            body = await answer.json()
            assert answer.status == 429 and body["retry_after"] == 1.5 and body["global"] is (scope == "global")
            assert answer.headers["Retry-After"] == "2" and answer.headers["X-RateLimit-Scope"] == scope
            assert ("X-RateLimit-Bucket" in answer.headers) is (scope != "global")
            assert ("X-RateLimit-Global" in answer.headers) is (scope == "global")


# --- Heyan against those answers ------------------------------------------------------------------


@pytest.mark.parametrize("expired", [UNKNOWN_WEBHOOK_TOKEN, UNKNOWN_INTERACTION_TOKEN], ids=["10015", "10062"])
async def test_an_expired_token_answered_otherwise_still_ends_in_one_dm(
        tmp_path: Path, redis_url: str, expired: tuple[int, int, str]) -> None:
    # developers/interactions/receiving-and-responding.mdx: "Interaction tokens are valid for 15
    # minutes"; the page does not say what answers a token past that. Discord answers 401 / 50027
    # (tests/test_discord_bad_input.py); a member must hear it as well if the answer is 10015 or 10062.
    standin = DiscordStandIn(expired_token=expired)
    async with heyan_on_discord(tmp_path, redis_url, standin=standin) as h:
        gate = Gate()
        h.rt.moderation.export_member = gate.around(h.rt.moderation.export_member)  # type: ignore[method-assign]
        payload = await h.command("memory export", {"member": h.discord.user("bob")}, user="alice")
        await asyncio.wait_for(gate.entered.wait(), WAIT)
        h.discord.clock.advance(16 * 60)
        since = len(h.discord.requests)
        gate.release.set()
        told = (await h.bot_posts(h.discord.dm_channel_id(h.discord.user("alice")), since))[0]
        assert "15 minutes" in told.json["content"]
        late = h.discord.find_requests("POST", rf"/webhooks/\d+/{payload['token']}")
        assert [r.status for r in late] == [expired[0]]  # tried once, not again


async def test_a_mention_where_heyan_may_not_post_is_said_once_by_dm(tmp_path: Path, redis_url: str) -> None:
    # developers/topics/threads.mdx, "Permissions": a thread needs SEND_MESSAGES_IN_THREADS; the
    # member hears by DM which permission is missing, once, and the reply is not retried into the 403.
    async with heyan_on_discord(tmp_path, redis_url) as h:
        guild = h.discord.guild
        thread = guild.channel("existing-thread")
        guild.channel("general").overwrites.append(
            Overwrite(guild.role("heyan").id, 0, deny=SEND_MESSAGES_IN_THREADS))
        await h.discord.dispatch("CHANNEL_UPDATE", h.discord.channel_payload(guild, guild.channel("general")))
        since = len(h.discord.requests)
        await h.say("{bot} can you help?", author="carol", channel=thread)
        told = (await h.bot_posts(h.discord.dm_channel_id(h.discord.user("carol")), since))[0]
        assert "Send Messages in Threads" in told.json["content"]
        refused = h.discord.find_requests("POST", rf"/channels/{thread.id}/messages")
        assert refused and {r.status for r in refused} == {403}
        await h.rt.drain()
        assert {r.status for r in h.discord.find_requests("POST", rf"/channels/{thread.id}/messages")} == {403}
        assert len([r for r in h.discord.requests[since:] if r.method == "POST"
                    and r.path == f"/channels/{h.discord.dm_channel_id(h.discord.user('carol'))}/messages"]) == 1


async def test_without_read_message_history_the_answer_is_a_plain_message(tmp_path: Path, redis_url: str) -> None:
    # developers/resources/message.mdx, "Create Message" > Limitations: a reply needs
    # READ_MESSAGE_HISTORY; "Get Channel Messages": without it "no messages will be returned".
    async with heyan_on_discord(tmp_path, redis_url, message_content=True) as h:
        general = h.discord.guild.channel("general")
        general.overwrites.append(Overwrite(h.discord.guild.role("heyan").id, 0, deny=READ_MESSAGE_HISTORY))
        since = len(h.discord.requests)
        await h.say("{bot} what was decided?", author="carol")
        posted = (await h.bot_posts(general.id, since))[0]
        assert "message_reference" not in (posted.json or {}) and "Read Message History" in posted.json["content"]


async def test_a_follow_up_through_a_route_429_is_posted_once(tmp_path: Path, redis_url: str) -> None:
    # developers/topics/rate-limits.mdx, "Exceeding A Rate Limit": wait retry_after, then retry; a
    # resource limit (scope shared) is answered the same way. Nothing is posted twice.
    async with heyan_on_discord(tmp_path, redis_url) as h:
        general = h.discord.guild.channel("general")
        h.discord.inject("POST", rf"/channels/{general.id}/messages", Fault.rate_limited(0.05), times=2)
        h.discord.inject("POST", rf"/channels/{general.id}/messages", Fault.rate_limited(0.05, scope="shared"))
        since = len(h.discord.requests)
        await h.say("{bot} hello there", author="carol")
        await h.bot_posts(general.id, since)
        await h.rt.drain()
        tries = [r for r in h.discord.find_requests("POST", rf"/channels/{general.id}/messages")]
        assert [r.status for r in tries] == [429, 429, 429, 200]


@pytest.mark.parametrize(("command", "user"), [("memory list", "alice"), ("mymemory", "bob"),
                                               ("commitments", "bob")])
async def test_many_markdown_heavy_memories_fit_every_limit(tmp_path: Path, redis_url: str, command: str,
                                                            user: str) -> None:
    # developers/resources/message.mdx, "Embed Limits": description 4,096; all embeds 6,000 together;
    # measured on what is sent, after Heyan escapes markdown and mentions (which lengthens the text).
    async with heyan_on_discord(tmp_path, redis_url) as h:
        value = "*fix* the _CI_ `config` ~~now~~ > @everyone | " * 3
        await h.seed(*(h.fact("bob", f"task{i:02d}", f"{i} {value}", kind=Kind.COMMITMENT) for i in range(30)))
        answer = await h.run(command, user=user, locale="en-US")
        embeds = answer["embeds"]
        assert embeds and all(len(e.get("description", "").strip()) <= DESCRIPTION for e in embeds)
        size = sum(len((e.get("title") or "").strip()) + len((e.get("description") or "").strip()) for e in embeds)
        assert size <= EMBED_TOTAL
        assert answer["components"], "a longer list than fits has buttons to page through it"
        assert all(r.status < 400 for r in h.discord.requests if r.path.startswith("/webhooks/"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_heyans_modals_and_choices_fit_the_documented_limits(lang: str) -> None:
    # developers/interactions/receiving-and-responding.mdx, "Modal"; components/reference.mdx, "Text
    # Input" and "Label"; application-commands.mdx, "Application Command Option Choice Structure".
    for modal in (CorrectModal("f" * 64, lang, "v" * 5000), RefuseModal("c" * 64, lang)):  # type: ignore[arg-type]
        assert callback_errors(9, modal.to_dict()) is None, modal.to_dict()
    facts = [Fact(tenant="discord:1", session="1", kind=Kind.COMMITMENT, subject="2", subject_name="Bob",
                  attribute=f"a{i}", value="x" * 400, asserted_by="2", users=("2",), visibility=Visibility.PUBLIC,
                  sources=(Source(message_id=f"m{i}", author_id="2", author_name="bob", ts=utcnow(), quote="q"),)
                  ).with_id() for i in range(40)]
    choices = [c.to_dict() for c in fact_choices(facts, "", lang)]  # type: ignore[arg-type]
    assert choices and callback_errors(8, {"choices": choices}) is None



async def test_the_message_a_reply_quotes_follows_the_message_content_rules(
        discord_: DiscordStandIn, http: aiohttp.ClientSession) -> None:
    # developers/events/gateway.mdx, "Message Content Intent": without it, content is empty except in
    # the app's own messages, DMs and messages mentioning the app; a quoted message is such a message too.
    discord_.privileged_intents_allowed = 0
    async with running(discord_):
        general = discord_.guild.channel("general")
        said = discord_.post_offline(discord_.message_payload("a private remark", author="bob", channel=general))
        discord_.post_offline(discord_.message_payload("{bot} what about this?", author="carol", channel=general,
                                                       reply_to=said, reply_ping=False))
        async with http.get(f"{discord_.rest_base}/channels/{general.id}/messages") as answer:
            newest = (await answer.json())[0]
        assert newest["content"].endswith("what about this?")
        assert newest["referenced_message"]["content"] == ""


async def test_thread_names_and_archive_durations_are_checked(discord_: DiscordStandIn,
                                                              http: aiohttp.ClientSession) -> None:
    # developers/resources/channel.mdx, "Start Thread without Message": name 1-100 characters;
    # auto_archive_duration one of 60, 1440, 4320, 10080.
    async with running(discord_):
        url = f"{discord_.rest_base}/channels/{discord_.guild.channel('general').id}/threads"
        assert (await _post(http, url, {"name": "n" * 101, "type": 11}))[0] == 400
        assert (await _post(http, url, {"name": "ok", "type": 11, "auto_archive_duration": 30}))[0] == 400
        assert (await _post(http, url, {"name": "n" * 100, "type": 11, "auto_archive_duration": 10080}))[0] == 201


async def test_a_429_storm_outlasting_discord_py_sends_the_reply_through_the_outbox(
        tmp_path: Path, redis_url: str) -> None:
    # developers/topics/rate-limits.mdx: a client waits Retry-After and retries; discord.py gives up
    # after 5 tries. The reply then goes through the outbox at once (not after the answer claim's
    # 15-minute hold): "nothing lost, nothing posted twice" (issue 19, Bad input).
    async with heyan_on_discord(tmp_path, redis_url) as h:
        general = h.discord.guild.channel("general")
        h.discord.inject("POST", rf"/channels/{general.id}/messages", Fault.rate_limited(0.01), times=6)
        since = len(h.discord.requests)
        await h.say("{bot} are you there?", author="carol")

        def tries() -> list[int]:
            return [r.status for r in h.discord.requests[since:] if r.method == "POST"
                    and r.path == f"/channels/{general.id}/messages"]

        await wait_until(lambda: 200 in tries(), timeout=WAIT, what="the reply, through the outbox")
        await h.rt.drain()
        assert tries() == [429] * 6 + [200]
        assert await h.rt.engine.unanswered(older_than=0.0) == []
        posted = [r for r in h.discord.requests[since:] if r.status == 200 and r.method == "POST"
                  and r.path == f"/channels/{general.id}/messages"]
        assert posted[0].json["nonce"] and posted[0].json["enforce_nonce"] is True


async def test_a_dispute_opened_in_an_announcement_channel_gets_an_announcement_thread(
        tmp_path: Path, redis_url: str) -> None:
    # developers/resources/channel.mdx, "Channel Types": ANNOUNCEMENT_THREAD (10) is "a temporary
    # sub-channel within a GUILD_ANNOUNCEMENT channel"; PUBLIC_THREAD (11) within GUILD_TEXT or GUILD_FORUM.
    standin = DiscordStandIn()
    guild = standin.guild
    news = ChannelSpec(standin.ids.next(), "announcements", GUILD_NEWS, parent_id=guild.channel("general").parent_id)
    guild.channels.append(news)
    async with heyan_on_discord(tmp_path, redis_url, standin=standin) as h:
        opened = await h.run("dispute open", {"title": "Release notes"}, user="alice", channel=news)
        assert "Dispute opened" in opened["content"], opened
        made = h.discord.find_requests("POST", rf"/channels/{news.id}/threads")
        assert [(m.json["type"], m.status) for m in made] == [(NEWS_THREAD, 201)]


async def test_a_long_resource_rate_limit_is_rescheduled_not_slept_in(tmp_path: Path, redis_url: str) -> None:
    # developers/topics/rate-limits.mdx, "Example Exceeded Resource Rate Limit Response": scope shared,
    # retry_after 1336.57. Sleeping that out in a listener outlives interaction tokens and the nonce
    # window; the reply is queued in the outbox after the wait instead, once.
    async with heyan_on_discord(tmp_path, redis_url) as h:
        general = h.discord.guild.channel("general")
        h.discord.inject("POST", rf"/channels/{general.id}/messages", Fault.rate_limited(1336.57, scope="shared"))
        since = len(h.discord.requests)
        question = await h.say("{bot} anyone there?", author="carol")
        post_id = f"reply:{h.tenant}:{question['id']}"
        deadline = asyncio.get_running_loop().time() + WAIT
        while await h.rt.outbox.get(post_id) is None:
            assert asyncio.get_running_loop().time() < deadline, "the reply was not queued"
            await asyncio.sleep(0.05)
        assert await h.rt.deliver_now() == 0  # not due before the wait Discord asked for
        tries = [r.status for r in h.discord.requests[since:] if r.method == "POST"
                 and r.path == f"/channels/{general.id}/messages"]
        assert tries == [429]
        assert await h.rt.engine.unanswered(older_than=0.0) == []


def test_a_long_rate_limit_is_a_retry_after_the_wait_and_is_said_to_the_caller() -> None:
    # developers/topics/rate-limits.mdx, "Exceeding A Rate Limit": retry after retry_after seconds.
    late = rate_limited(discord.RateLimited(1336.57), "channel 1")
    assert not late.permanent and late.retry_after == 1336.57
    said = error_text(discord.RateLimited(90.2), "en")
    assert said is not None and "90 s" in said


async def test_a_post_mentioning_more_than_100_members_is_still_accepted(discord_: DiscordStandIn) -> None:
    # developers/resources/message.mdx, "Allowed Mentions Object": users "max 100"; the content limit
    # of 2,000 is met by splitting, the mention list by pinging the first 100.
    many = RichText.of(*(Mention(str(10**17 + i), f"m{i}") for i in range(150)))
    content, mentions = render(many)
    assert len(mentions.to_dict()["users"]) == 100
    async with running(discord_) as bot:
        general = bot.get_channel(discord_.guild.channel("general").id)
        assert isinstance(general, discord.TextChannel)
        for piece in split_message(content):
            await general.send(piece, allowed_mentions=mentions)
