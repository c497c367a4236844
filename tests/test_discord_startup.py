"""Starting Heyan on Discord: ``heyan run`` with a token starts the bot and its worker; a bad token, a
privileged intent the application may not use, or gateway close code 4004 end in one line saying
what to do in the developer portal; sharding; ``heyan discord sync`` registers localized commands."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import discord
import pytest
import redis.asyncio as aioredis
from typer.testing import CliRunner

from adapters.cli.app import app
from adapters.discord.cli import sync_commands
from adapters.discord.connection.client import REQUIRED_PERMISSIONS
from adapters.runtime.composition import StartupError
from adapters.runtime.platforms import run_platforms
from tests.discord_harness import WAIT, discord_settings, hash_embedder, heyan_on_discord, redis_url
from tests.discord_standin import (
    DIRECT_MESSAGES,
    EPHEMERAL,
    GUILD_MESSAGES,
    GUILDS,
    MESSAGE_CONTENT,
    DiscordStandIn,
    default_guild,
    wait_until,
)

__all__ = ["hash_embedder", "redis_url"]


async def run_failing(tmp_path: Path, redis_url: str, standin: DiscordStandIn, **discord_options: object) -> str:
    s = discord_settings(tmp_path / "data", redis_url, standin, **discord_options)
    with pytest.raises(StartupError) as raised:
        await asyncio.wait_for(run_platforms(s), WAIT)
    message = str(raised.value)
    assert "\n" not in message
    return message


async def test_a_bad_token_is_one_line_saying_where_to_get_a_new_one(tmp_path: Path, redis_url: str) -> None:
    async with DiscordStandIn() as standin:
        message = await run_failing(tmp_path, redis_url, standin, token="not-the-token")
        assert message.startswith("Discord rejected HEYAN_DISCORD_TOKEN (401 Unauthorized)")
        assert "developer portal" in message and "Bot → Reset Token" in message
        assert not standin.identify_payloads


async def test_a_missing_message_content_intent_says_what_to_enable(tmp_path: Path, redis_url: str) -> None:
    async with DiscordStandIn(privileged_intents_allowed=0) as standin:
        message = await run_failing(tmp_path, redis_url, standin, message_content=True)
        assert message.startswith("Discord refused the Message Content intent (close code 4014)")
        assert "Privileged Gateway Intents" in message and "HEYAN_DISCORD_MESSAGE_CONTENT" in message
        assert standin.intents & MESSAGE_CONTENT


async def test_gateway_close_4004_is_a_token_problem(tmp_path: Path, redis_url: str) -> None:
    async with DiscordStandIn() as standin:
        standin.close_on_identify(4004)
        message = await run_failing(tmp_path, redis_url, standin)
        assert "gateway close code 4004" in message and "Reset Token" in message


async def test_heyan_run_starts_the_bot_and_its_worker(tmp_path: Path, redis_url: str) -> None:
    async with DiscordStandIn() as standin:
        s = discord_settings(tmp_path / "data", redis_url, standin)
        running = asyncio.create_task(run_platforms(s, worker=True))
        try:
            await wait_until(lambda: standin.identify_payloads or running.done(), timeout=WAIT, what="IDENTIFY")
            assert standin.intents == GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES  # no privileged intent
            thread = standin.guild.channel("existing-thread")
            said = standin.message_payload("{bot} I will send the minutes by Friday", author="bob", channel=thread)

            async def connected() -> None:  # on_ready comes after discord.py's wait for the guilds
                while True:
                    if running.done():
                        running.result()
                    if any(s.identified for s in standin.sessions) and standin.find_requests("GET", "/users/@me"):
                        return
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(connected(), WAIT)
            since = len(standin.requests)
            await standin.dispatch("MESSAGE_CREATE", said)
            await standin.wait_for_request("POST", rf"/channels/{thread.id}/messages", since=since, timeout=WAIT)
            client = aioredis.Redis.from_url(redis_url)
            try:  # the in-process worker ran the extraction the promise triggered
                deadline = asyncio.get_running_loop().time() + WAIT
                while not [k async for k in client.scan_iter(match="arq:result:extract:*")]:
                    assert asyncio.get_running_loop().time() < deadline, "no extraction ran"
                    await asyncio.sleep(0.1)
            finally:
                await client.aclose()
            assert not running.done()
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running


async def test_a_sharded_bot_connects_every_shard(tmp_path: Path, redis_url: str) -> None:
    standin = DiscordStandIn(shard_count=2)
    while len(standin.guilds) < 2 or len({(g.id >> 22) % 2 for g in standin.guilds}) < 2:
        standin.guilds.append(default_guild(standin.ids, standin.bot_user, name=f"guild-{len(standin.guilds)}"))
    async with heyan_on_discord(tmp_path, redis_url, standin=standin, shards=2) as h:
        assert sorted(p["shard"] for p in h.discord.identify_payloads) == [[0, 2], [1, 2]]
        assert h.platform.bot is not None and isinstance(h.platform.bot, discord.AutoShardedClient)
        target = h.discord.guilds[-1]
        since = len(h.discord.requests)
        await h.say("{bot} hello from the other shard", author=target.member("carol").user, channel="general",
                    guild=target)
        await h.bot_posts(target.channel("general").id, since)


async def test_sync_registers_localized_commands_in_a_guild(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        guild = h.discord.guild
        names = await sync_commands(h.settings, guild=guild.id)
        assert sorted(names) == ["commitments", "digest", "dispute", "heyan", "memory", "mymemory"]
        put = h.discord.find_requests("PUT", rf"/applications/\d+/guilds/{guild.id}/commands")[-1]
        commands = {c["name"]: c for c in put.json}
        dispute = commands["dispute"]
        assert dispute["name_localizations"] == {"zh-CN": "争议", "zh-TW": "爭議"}
        assert dispute["description_localizations"]["zh-CN"] == "在子区中开启和跟进争议"
        opened = next(o for o in dispute["options"] if o["name"] == "open")
        assert opened["name_localizations"]["zh-TW"] == "開啟"
        assert [o["name"] for o in opened["options"]][:2] == ["title", "member1"]
        assert int(commands["memory"]["default_member_permissions"]) == discord.Permissions(manage_messages=True).value
        assert commands["mymemory"]["name_localizations"]["zh-CN"] == "我的记忆"
        assert commands["dispute"]["dm_permission"] is False and commands["memory"]["dm_permission"] is False
        assert commands["mymemory"]["dm_permission"] is True  # members may ask in a DM too
        settings = commands["heyan"]
        assert int(settings["default_member_permissions"]) == discord.Permissions(manage_guild=True).value
        assert [o["name"] for o in settings["options"]] == ["settings"]

        answer = await h.run("mymemory", user="carol")  # the synced command is what members now use
        assert answer["flags"] & EPHEMERAL and answer["content"] == "Heyan holds nothing about you here."


def test_the_documented_permissions_are_what_heyan_asks_for() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "DISCORD.md").read_text()
    assert f"permissions={REQUIRED_PERMISSIONS.value}" in doc
    for name, granted in REQUIRED_PERMISSIONS:
        if granted:
            assert f"| {getattr(discord.Permissions, name).flag} |" in doc, name


def test_sync_without_a_token_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HEYAN_DISCORD_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["discord", "sync"], env={"HEYAN_DISCORD_TOKEN": ""})
    assert result.exit_code == 2
    assert "HEYAN_DISCORD_TOKEN is not set" in result.output and "developer portal" in result.output
