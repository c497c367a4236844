"""The stand-in enforces what Discord documents, seen through an unmodified discord.py: message and
embed limits (400 / 50035 naming the field), component limits, channel history (limit, anchors,
permissions, Message Content), the 3-second and 15-minute interaction deadlines on the stand-in's
own clock, a deferred update on a component, and a reset token."""

from __future__ import annotations

import aiohttp
import discord
import pytest

from tests.discord_standin import (
    MESSAGE_CONTENT,
    PRIVILEGED_INTENTS,
    DiscordStandIn,
    Overwrite,
    wait_until,
)
from tests.discord_standin_limits import message_errors
from tests.discord_standin_world import READ_MESSAGE_HISTORY, VIEW_CHANNEL
from tests.test_discord_standin import WAIT, discord_, events_of, running

__all__ = ["discord_"]  # the fixture, used by name


def test_the_documented_limits_name_the_field() -> None:
    assert message_errors({"content": "x" * 2000, "embeds": [{"description": "d" * 4096}]}) is None
    assert message_errors({"content": "x" * 2001}) == {
        "content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}]}}
    over = message_errors({"embeds": [{"title": "t", "description": "d" * 4097}]})
    assert over == {"embeds": {"0": {"description": {"_errors": [
        {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 4096 or fewer in length."}]}}}}
    # whitespace around a value is trimmed before it is measured
    assert message_errors({"embeds": [{"description": " " * 10 + "d" * 4096 + "\n"}]}) is None
    total = message_errors({"embeds": [{"description": "d" * 4000}, {"description": "e" * 2001}]})
    assert total is not None and total["embeds"]["_errors"][0]["code"] == "MAX_EMBED_SIZE_EXCEEDED"
    fields = [{"name": f"n{i}", "value": "v"} for i in range(26)]
    assert "fields" in message_errors({"embeds": [{"fields": fields}]})["embeds"]["0"]  # type: ignore[index]
    assert message_errors({"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]}) is not None
    assert message_errors({"embeds": [{"fields": [{"name": "n", "value": " "}]}]}) is not None
    assert message_errors({"embeds": [{"footer": {"text": "f" * 2049}}]}) is not None
    assert message_errors({"embeds": [{"author": {"name": "a" * 257}}]}) is not None
    assert message_errors({"embeds": [{"title": "t"}] * 11}) is not None


def test_component_limits() -> None:
    def button(i: int, **kw: object) -> dict[str, object]:
        return {"type": 2, "style": 1, "label": f"b{i}", "custom_id": f"c{i}", **kw}

    def row(*items: dict[str, object]) -> dict[str, object]:
        return {"type": 1, "components": list(items)}

    assert message_errors({"components": [row(*(button(i) for i in range(5)))]}) is None
    assert message_errors({"components": [row(*(button(i) for i in range(6)))]}) is not None
    assert message_errors({"components": [row(button(i)) for i in range(6)]}) is not None
    assert message_errors({"components": [row(button(1, custom_id="x" * 101))]}) is not None
    assert message_errors({"components": [row(button(1)), row(button(1))]}) is not None  # duplicated id
    assert message_errors({"components": [row(button(1, label="l" * 81))]}) is not None
    select = {"type": 3, "custom_id": "s", "options": [{"label": f"o{i}", "value": str(i)} for i in range(26)]}
    assert message_errors({"components": [row(select)]}) is not None
    assert message_errors({"components": [row(select | {"options": select["options"][:25]}, button(1))]}) is not None  # type: ignore[index]


async def test_an_oversized_embed_is_refused_like_discord(discord_: DiscordStandIn) -> None:
    async with running(discord_) as bot:
        general = bot.get_channel(discord_.guild.channel("general").id)
        assert isinstance(general, discord.TextChannel)
        with pytest.raises(discord.HTTPException) as refused:
            await general.send(embed=discord.Embed(description="x" * 4097))
        assert refused.value.status == 400 and refused.value.code == 50035
        assert "In embeds.0.description: Must be 4096 or fewer in length." in str(refused.value)
        sent = await general.send(embed=discord.Embed(description="x" * 4096))
        assert sent.embeds[0].description == "x" * 4096


async def test_channel_history_pages_and_anchors(discord_: DiscordStandIn) -> None:
    general = discord_.guild.channel("general")
    async with running(discord_, intents=discord.Intents(guilds=True, guild_messages=True, message_content=True)) as bot:
        payloads = []
        for i in range(7):
            payloads.append(discord_.message_payload(f"line {i}", author="bob", channel=general))
            await discord_.dispatch("MESSAGE_CREATE", payloads[-1])
        channel = bot.get_channel(general.id)
        assert isinstance(channel, discord.TextChannel)
        newest = [m.content async for m in channel.history(limit=3)]
        assert newest == ["line 6", "line 5", "line 4"]
        after = [m.content async for m in channel.history(limit=None, after=discord.Object(int(payloads[2]["id"])))]
        assert after == ["line 3", "line 4", "line 5", "line 6"]
        before = [m.content async for m in channel.history(limit=2, before=discord.Object(int(payloads[2]["id"])))]
        assert before == ["line 1", "line 0"]
        with pytest.raises(discord.HTTPException) as bad:
            await bot.http.logs_from(general.id, 101)
        assert bad.value.code == 50035


async def test_history_follows_permissions_and_the_message_content_intent(discord_: DiscordStandIn) -> None:
    general = discord_.guild.channel("general")
    bot_role = discord_.guild.role("heyan")
    discord_.privileged_intents_allowed = PRIVILEGED_INTENTS & ~MESSAGE_CONTENT
    async with running(discord_) as bot:
        await discord_.dispatch("MESSAGE_CREATE", discord_.message_payload("not for the bot", author="bob"))
        await discord_.dispatch("MESSAGE_CREATE", discord_.message_payload("{bot} for the bot", author="bob"))
        channel = bot.get_channel(general.id)
        assert isinstance(channel, discord.TextChannel)
        assert [m.content async for m in channel.history(limit=5)] == [f"<@{discord_.bot_user.id}> for the bot", ""]

        general.overwrites.append(Overwrite(bot_role.id, 0, deny=READ_MESSAGE_HISTORY))
        assert [m async for m in channel.history(limit=5)] == []  # documented: no messages, no error
        general.overwrites[-1] = Overwrite(bot_role.id, 0, deny=VIEW_CHANNEL)
        with pytest.raises(discord.Forbidden) as hidden:
            [m async for m in channel.history(limit=5)]
        assert hidden.value.code == 50001


async def test_deadlines_run_on_the_standins_clock(discord_: DiscordStandIn) -> None:
    """The first answer is refused 3 s (stand-in time) after the interaction; its token serves
    followups for 15 minutes, then answers 401 / 50027."""
    async with running(discord_) as bot:
        payload = discord_.slash_command_payload("mediate admin status", {"topic": "noise"})
        await discord_.dispatch("INTERACTION_CREATE", payload)
        await events_of(bot.cog, "status")
        answered = await discord_.wait_for_request("POST", rf"/webhooks/\d+/{payload['token']}", timeout=WAIT)
        assert answered.status == 200
        discord_.clock.advance(14 * 60)
        webhook = discord.Webhook.partial(discord_.application_id, payload["token"], client=bot)
        await webhook.send("still in time", wait=True)
        discord_.clock.advance(61)
        with pytest.raises(discord.HTTPException) as expired:
            await webhook.send("too late", wait=True)
        assert expired.value.status == 401 and expired.value.code == 50027

        late = discord_.slash_command_payload("mediate admin status", {"topic": "noise"})
        discord_.interaction_deadline = 0.0  # every first answer is now late
        await discord_.dispatch("INTERACTION_CREATE", late)
        assert discord_.interactions[int(late["id"])].dispatched_at == discord_.clock.now()
        refused = await discord_.wait_for_request("POST", rf"/interactions/{late['id']}/.+/callback", timeout=WAIT)
        assert refused.status == 404 and refused.response["code"] == 10062


async def test_a_reset_token_is_refused_everywhere(discord_: DiscordStandIn) -> None:
    async with running(discord_) as bot:
        old = discord_.token
        await discord_.reset_token()
        assert discord_.token != old
        await wait_until(lambda: not discord_.sessions, timeout=WAIT, what="the gateway closed")
        await wait_until(bot.is_closed, timeout=WAIT, what="discord.py gave up on the token (4004)")
        async with aiohttp.ClientSession() as http:
            answer = await http.get(f"{discord_.rest_base}/gateway/bot", headers={"Authorization": f"Bot {old}"})
            assert answer.status == 401
