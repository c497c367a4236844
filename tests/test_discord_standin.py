"""Proof that an unmodified discord.py 2.x bot runs against the loopback ``DiscordStandIn``.

Each test starts a real ``commands.Bot`` (a cog with an ``app_commands.Group``, a view and a modal)
against the stand-in, drives it with gateway events and checks what discord.py did over REST.
No test talks to Discord; every wait is bounded (``WAIT`` seconds) and polls.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.http import Route

from tests.discord_standin import (
    EPHEMERAL,
    GUILD_MEMBERS,
    GUILD_MESSAGES,
    GUILDS,
    MESSAGE_CONTENT,
    PRIVATE_THREAD,
    DiscordStandIn,
    Fault,
    default_guild,
    run_client,
    wait_until,
)

WAIT = 30.0
# What a mediation bot needs without privileged intents: guilds, guild messages, DMs. No message_content.
MINIMAL_INTENTS = discord.Intents(guilds=True, guild_messages=True, dm_messages=True)


class AgreeView(discord.ui.View):
    def __init__(self, cog: MediationCog) -> None:
        super().__init__(timeout=None)
        self.cog = cog

    @discord.ui.button(label="Agree", custom_id="heyan:agree", style=discord.ButtonStyle.success)
    async def agree(self, interaction: discord.Interaction, button: discord.ui.Button[AgreeView]) -> None:
        self.cog.events.append(("agree", interaction))
        await interaction.response.edit_message(content=f"{interaction.user.name} agreed", view=None)


class FeedbackModal(discord.ui.Modal, title="Feedback"):
    what: discord.ui.TextInput[FeedbackModal] = discord.ui.TextInput(label="What happened?", custom_id="feedback:what")

    def __init__(self, cog: MediationCog) -> None:
        super().__init__(custom_id="heyan:feedback")
        self.cog = cog

    async def on_submit(self, interaction: discord.Interaction) -> None:
        self.cog.events.append(("feedback", self.what.value))
        await interaction.response.send_message("Thanks, noted.", ephemeral=True)


class MediationCog(commands.Cog):
    mediate = app_commands.Group(name="mediate", description="Mediation tools")
    admin = app_commands.Group(name="admin", description="Moderator tools", parent=mediate)

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.events: list[tuple[str, Any]] = []
        self.sent: list[discord.Message] = []

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        self.events.append(("message", message))
        if message.author.bot or self.bot.user not in message.mentions:
            return
        reply = await message.reply(
            "I hear you.", allowed_mentions=discord.AllowedMentions.none(), mention_author=False)
        self.sent.append(reply)

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        self.events.append(("edit", payload))

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        self.events.append(("delete", payload))

    @commands.Cog.listener()
    async def on_thread_create(self, thread: discord.Thread) -> None:
        self.events.append(("thread_create", thread))

    @commands.Cog.listener()
    async def on_app_command_completion(self, interaction: discord.Interaction, command: Any) -> None:
        self.events.append(("completed", command.qualified_name))

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        self.events.append(("guild_remove", guild))

    @admin.command(name="status", description="Show a dispute's status")
    @app_commands.describe(topic="What the dispute is about")
    async def status(self, interaction: discord.Interaction, topic: str, urgent: bool = False) -> None:
        self.events.append(("status", (interaction, topic, urgent)))
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send(f"Status of {topic}: calm", ephemeral=True)

    @status.autocomplete("topic")
    async def topic_choices(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=t, value=t) for t in ("noise", "nosy neighbours") if t.startswith(current)]

    @mediate.command(name="ask", description="Ask both sides to agree")
    async def ask(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Do you both agree?", view=AgreeView(self))

    @mediate.command(name="feedback", description="Tell the mediator what happened")
    async def feedback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(FeedbackModal(self))

    def of(self, kind: str) -> list[Any]:
        return [value for name, value in self.events if name == kind]


class HeyanTestBot(commands.Bot):
    def __init__(self, *, intents: discord.Intents = MINIMAL_INTENTS, **options: Any) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, guild_ready_timeout=0.2,
                         **options)
        self.cog = MediationCog(self)

    async def setup_hook(self) -> None:
        await self.add_cog(self.cog)


@contextlib.asynccontextmanager
async def running(standin: DiscordStandIn, **options: Any) -> AsyncIterator[HeyanTestBot]:
    bot = HeyanTestBot(**options)
    async with run_client(bot, standin.token, timeout=WAIT):
        yield bot


@pytest.fixture
async def discord_() -> AsyncIterator[DiscordStandIn]:
    async with DiscordStandIn() as standin:
        yield standin


async def events_of(cog: MediationCog, kind: str, count: int = 1) -> list[Any]:
    await wait_until(lambda: len(cog.of(kind)) >= count, timeout=WAIT, what=f"{count} {kind} event(s)")
    return cog.of(kind)


# -- (a) log-in, READY, GUILD_CREATE ----------------------------------------------------------------


async def test_bot_logs_in_with_minimal_intents_and_sees_the_guild(discord_: DiscordStandIn) -> None:
    world = discord_.guild
    async with running(discord_) as bot:
        assert bot.user is not None and bot.user.id == discord_.bot_user.id and bot.user.bot
        assert bot.application_id == discord_.application_id
        sent_intents = discord.Intents._from_value(discord_.intents)
        assert sent_intents == MINIMAL_INTENTS and not sent_intents.message_content
        assert discord_.intents & MESSAGE_CONTENT == 0

        guild = bot.get_guild(world.id)
        assert guild is not None and guild.name == world.name
        assert guild.preferred_locale is discord.Locale.american_english
        general = guild.get_channel(world.channel("general").id)
        assert isinstance(general, discord.TextChannel) and general.topic == "General chat"
        assert [t.name for t in guild.threads] == ["existing-thread"]
        assert guild.default_role.permissions.send_messages
        assert guild.me is not None and guild.me.guild_permissions.create_private_threads
        assert guild.get_member(world.member("alice").user.id) is None  # no GUILD_MEMBERS: only the bot
        assert guild.owner_id == world.owner_id

        # discord.py asks for zlib-stream, or zstd-stream when zstandard is importable; both are served
        assert [c.compress for c in discord_.connections] in (["zlib-stream"], ["zstd-stream"])
        await wait_until(lambda: discord_.heartbeats >= 1, timeout=WAIT, what="a heartbeat")
        assert bot.latency < WAIT
    assert discord_.find_requests("GET", "/users/@me")[0].headers["Authorization"].startswith("Bot ")


async def test_members_intent_brings_members_and_a_chunk(discord_: DiscordStandIn) -> None:
    intents = MINIMAL_INTENTS | discord.Intents(members=True)
    async with running(discord_, intents=intents) as bot:
        guild = bot.get_guild(discord_.guild.id)
        assert guild is not None
        await wait_until(lambda: guild.chunked, timeout=WAIT, what="guild chunked")
        assert {m.name for m in guild.members} == {"heyan", "alice", "bob", "carol"}
        alice = guild.get_member_named("alice")
        assert alice is not None and any(r.name == "Moderators" for r in alice.roles)


# -- (b) messages: mention, reply, allowed_mentions, content without the intent -----------------


async def test_mention_reaches_on_message_and_the_reply_is_recorded(discord_: DiscordStandIn) -> None:
    general = discord_.guild.channel("general")
    async with running(discord_) as bot:
        plain = discord_.message_payload("nobody mentions the bot here", author="bob")
        assert await discord_.dispatch("MESSAGE_CREATE", plain) == 1
        mention = discord_.message_payload("{bot} they keep shouting", author="alice")
        await discord_.dispatch("MESSAGE_CREATE", mention)

        reply = await discord_.wait_for_request("POST", rf"/channels/{general.id}/messages", timeout=WAIT)
        seen = {m.id: m for m in bot.cog.of("message")}
        assert seen[int(plain["id"])].content == ""  # no MESSAGE_CONTENT intent and no mention
        received = seen[int(mention["id"])]
        assert bot.user in received.mentions and received.content.endswith("they keep shouting")
        assert isinstance(received.author, discord.Member) and not received.author.bot

        assert reply.json["content"] == "I hear you."
        assert reply.json["allowed_mentions"] == {"parse": [], "replied_user": False}
        assert reply.json["message_reference"]["message_id"] == int(mention["id"])
        assert reply.response["mentions"] == []  # allowed_mentions.none(): nobody pinged
        await wait_until(lambda: bot.cog.sent, timeout=WAIT, what="reply returned")
        assert bot.cog.sent[0].id == int(reply.response["id"])
        assert bot.cog.sent[0].reference is not None and bot.cog.sent[0].reference.message_id == received.id
        # Discord echoes the bot's own message back over the gateway
        await wait_until(lambda: any(m.author == bot.user for m in bot.cog.of("message")), timeout=WAIT,
                         what="own message echoed")


async def test_edit_delete_and_leaving_a_guild_reach_the_bot(discord_: DiscordStandIn) -> None:
    async with running(discord_) as bot:
        original = discord_.message_payload("{bot} first draft", author="bob")
        await discord_.dispatch("MESSAGE_CREATE", original)
        await discord_.dispatch("MESSAGE_UPDATE",
                                       discord_.message_update_payload(original, content="{bot} fixed"))
        await discord_.dispatch("MESSAGE_DELETE", discord_.message_delete_payload(original))
        edit = (await events_of(bot.cog, "edit"))[0]
        assert edit.message_id == int(original["id"]) and edit.message.edited_at is not None
        assert (await events_of(bot.cog, "delete"))[0].message_id == int(original["id"])

        guild_id = discord_.guild.id
        await discord_.remove_from_guild(guild_id)
        assert (await events_of(bot.cog, "guild_remove"))[0].id == guild_id
        assert bot.get_guild(guild_id) is None and discord_.guilds == []


async def test_file_upload_typing_and_discords_default_mentions(discord_: DiscordStandIn) -> None:
    bob = discord_.user("bob")
    async with running(discord_) as bot:
        mediation = bot.get_channel(discord_.guild.channel("mediation").id)
        assert isinstance(mediation, discord.TextChannel)
        async with mediation.typing():
            pass
        case = json.dumps({"case": 42, "parties": ["alice", "bob"]}).encode()
        sent = await mediation.send(f"<@{bob.id}> here is the summary",
                                    file=discord.File(io.BytesIO(case), filename="case.json"))

        await discord_.wait_for_request("POST", rf"/channels/{mediation.id}/typing", timeout=WAIT)
        post = discord_.find_requests("POST", rf"/channels/{mediation.id}/messages")[0]
        assert post.headers["Content-Type"].startswith("multipart/form-data")
        assert post.json["content"] == f"<@{bob.id}> here is the summary"
        assert post.json["attachments"] == [{"id": 0, "filename": "case.json"}]
        assert [(f.field, f.filename, f.data) for f in post.files] == [("files[0]", "case.json", case)]
        # no allowed_mentions anywhere: Discord's default parses every mention, so bob is pinged
        assert "allowed_mentions" not in post.json
        assert [m.id for m in sent.mentions] == [bob.id]
        assert sent.attachments[0].filename == "case.json" and await sent.attachments[0].read() == case


async def test_direct_message_and_context_menu(discord_: DiscordStandIn) -> None:
    async with running(discord_) as bot:
        dm = discord_.dm_message_payload("can you help privately?", author="carol")
        await discord_.dispatch("MESSAGE_CREATE", dm)
        await wait_until(lambda: any(m.id == int(dm["id"]) for m in bot.cog.of("message")), timeout=WAIT,
                         what="DM received")
        received = next(m for m in bot.cog.of("message") if m.id == int(dm["id"]))
        assert received.guild is None and received.content == "can you help privately?"  # DMs keep content
        assert isinstance(received.channel, discord.DMChannel)
        await received.channel.send("Sure.")
        await discord_.wait_for_request("POST", rf"/channels/{dm['channel_id']}/messages", timeout=WAIT)

        flagged: list[discord.Message] = []

        @bot.tree.context_menu(name="Mediate this")
        async def mediate_this(interaction: discord.Interaction, message: discord.Message) -> None:
            flagged.append(message)
            await interaction.response.send_message("Looking into it.", ephemeral=True)

        heated = discord_.message_payload("you always do this", author="bob")
        await discord_.dispatch("MESSAGE_CREATE", heated)
        menu = discord_.context_menu_payload("Mediate this", heated, user="alice")
        await discord_.dispatch("INTERACTION_CREATE", menu)
        await wait_until(lambda: flagged, timeout=WAIT, what="context menu invoked")
        assert flagged[0].id == int(heated["id"]) and flagged[0].content == "you always do this"


# -- (c) slash command in a subcommand group: defer(ephemeral) + followup ---------------------------


async def test_slash_subcommand_defers_ephemerally_then_follows_up(discord_: DiscordStandIn) -> None:
    world = discord_.guild
    async with running(discord_) as bot:
        payload = discord_.slash_command_payload(
            "mediate admin status", {"topic": "noise", "urgent": True}, user="alice", locale="zh-CN")
        await discord_.dispatch("INTERACTION_CREATE", payload)

        interaction, topic, urgent = (await events_of(bot.cog, "status"))[0]
        assert (topic, urgent) == ("noise", True)
        assert interaction.command.qualified_name == "mediate admin status"
        assert interaction.locale is discord.Locale.chinese and interaction.guild_locale is discord.Locale.american_english
        assert isinstance(interaction.user, discord.Member) and interaction.permissions.manage_messages
        assert interaction.channel is not None and interaction.channel.id == world.channel("general").id

        callback = await discord_.wait_for_request(
            "POST", rf"/interactions/{payload['id']}/[^/]+/callback", timeout=WAIT)
        assert callback.json == {"type": 5, "data": {"flags": EPHEMERAL}}
        followup = await discord_.wait_for_request(
            "POST", rf"/webhooks/{discord_.application_id}/[^/]+", timeout=WAIT)
        assert followup.json["content"] == "Status of noise: calm" and followup.json["flags"] == EPHEMERAL
        assert followup.query["wait"] == "1" and followup.status == 200
        assert "Authorization" not in followup.headers  # interaction webhooks are authorised by their token
        record = discord_.interactions[int(payload["id"])]
        assert record.original is not None and record.original["content"] == "Status of noise: calm"
        assert record.original["flags"] & EPHEMERAL


async def test_autocomplete_answers_with_choices(discord_: DiscordStandIn) -> None:
    async with running(discord_):
        payload = discord_.slash_command_payload("mediate admin status", {"topic": "no"}, focused="topic")
        assert payload["type"] == 4
        await discord_.dispatch("INTERACTION_CREATE", payload)
        callback = await discord_.wait_for_request("POST", rf"/interactions/{payload['id']}/.+/callback",
                                                          timeout=WAIT)
        assert callback.json["type"] == 8
        assert [c["value"] for c in callback.json["data"]["choices"]] == ["noise", "nosy neighbours"]


# -- (d) button and modal -----------------------------------------------------------------------------


async def test_button_click_and_modal_submit_reach_their_handlers(discord_: DiscordStandIn) -> None:
    async with running(discord_) as bot:
        ask = discord_.slash_command_payload("mediate ask", user="alice")
        await discord_.dispatch("INTERACTION_CREATE", ask)
        sent = await discord_.wait_for_request("POST", rf"/interactions/{ask['id']}/.+/callback", timeout=WAIT)
        assert sent.json["type"] == 4
        button = sent.json["data"]["components"][0]["components"][0]
        assert button["custom_id"] == "heyan:agree"
        message = sent.response["resource"]["message"]
        # the stand-in has answered, but discord.py stores the view only once it has read the answer
        await events_of(bot.cog, "completed")

        click = discord_.component_payload("heyan:agree", message=message, user="bob")
        await discord_.dispatch("INTERACTION_CREATE", click)
        clicked = (await events_of(bot.cog, "agree"))[0]
        assert clicked.user.id == discord_.user("bob").id and clicked.message.id == int(message["id"])
        update = await discord_.wait_for_request("POST", rf"/interactions/{click['id']}/.+/callback",
                                                        timeout=WAIT)
        assert update.json["type"] == 7 and update.json["data"]["content"] == "bob agreed"
        assert discord_.messages[int(message["id"])]["content"] == "bob agreed"

        ask_feedback = discord_.slash_command_payload("mediate feedback", user="bob")
        await discord_.dispatch("INTERACTION_CREATE", ask_feedback)
        modal = await discord_.wait_for_request("POST", rf"/interactions/{ask_feedback['id']}/.+/callback",
                                                       timeout=WAIT)
        assert modal.json["type"] == 9 and modal.json["data"]["custom_id"] == "heyan:feedback"
        await events_of(bot.cog, "completed", 2)
        submit = discord_.modal_submit_payload(
            "heyan:feedback", {"feedback:what": "They moved my bike"}, modal=modal.json["data"], user="bob")
        await discord_.dispatch("INTERACTION_CREATE", submit)
        assert (await events_of(bot.cog, "feedback")) == ["They moved my bike"]
        thanks = await discord_.wait_for_request("POST", rf"/interactions/{submit['id']}/.+/callback",
                                                        timeout=WAIT)
        assert thanks.json["type"] == 4 and thanks.json["data"]["flags"] == EPHEMERAL


async def test_late_first_response_is_an_unknown_interaction(discord_: DiscordStandIn) -> None:
    discord_.interaction_deadline = 0.0  # Discord allows 3 s; here every callback is late
    async with running(discord_):
        payload = discord_.slash_command_payload("mediate admin status", {"topic": "noise"})
        await discord_.dispatch("INTERACTION_CREATE", payload)
        late = await discord_.wait_for_request("POST", r"/interactions/.+/callback", timeout=WAIT)
        assert late.status == 404 and late.response["code"] == 10062
        assert not discord_.find_requests("POST", r"/webhooks/.+")


async def test_second_acknowledgement_is_rejected_like_discord(discord_: DiscordStandIn) -> None:
    async with running(discord_) as bot:
        payload = discord_.slash_command_payload("mediate admin status", {"topic": "noise"})
        await discord_.dispatch("INTERACTION_CREATE", payload)
        await events_of(bot.cog, "completed")
        url = f"{discord_.rest_base}/interactions/{payload['id']}/{payload['token']}/callback"
        async with aiohttp.ClientSession() as session, session.post(url, json={"type": 5}) as again:
            assert again.status == 400 and (await again.json())["code"] == 40060


# -- (e) rate limit: 429 then retry ----------------------------------------------------------------------


async def test_rate_limited_send_is_retried_and_succeeds(discord_: DiscordStandIn) -> None:
    discord_.inject("POST", r"/channels/\d+/messages", Fault.rate_limited(retry_after=0.2), times=1)
    async with running(discord_) as bot:
        await discord_.dispatch("MESSAGE_CREATE", discord_.message_payload("{bot} hello"))
        await wait_until(lambda: bot.cog.sent, timeout=WAIT, what="reply sent after the 429")
        posts = discord_.find_requests("POST", r"/channels/\d+/messages")
        assert [(p.status, p.faulted) for p in posts] == [(429, True), (200, False)]
        assert posts[0].response["retry_after"] == 0.2
        assert posts[0].json == posts[1].json
        assert bot.cog.sent[0].id == int(posts[1].response["id"])


async def test_rest_errors_map_to_discord_py_exceptions(discord_: DiscordStandIn) -> None:
    async with running(discord_) as bot:
        general = bot.get_channel(discord_.guild.channel("general").id)
        assert isinstance(general, discord.TextChannel)
        discord_.inject("POST", rf"/channels/{general.id}/messages", Fault.missing_permissions())
        with pytest.raises(discord.Forbidden) as forbidden:
            await general.send("hello")
        assert forbidden.value.code == 50013

        thread = await general.create_thread(name="dispute-42")
        discord_.inject("PUT", rf"/channels/{thread.id}/thread-members/\d+", Fault.thread_archived())
        with pytest.raises(discord.HTTPException) as archived:
            await thread.add_user(discord.Object(discord_.user("bob").id))
        assert archived.value.status == 400 and archived.value.code == 50083

        await discord_.delete_channel(thread.id)
        with pytest.raises(discord.NotFound) as gone:
            await thread.send("anyone there?")
        assert gone.value.code == 10003


# -- threads -----------------------------------------------------------------------------------------------


async def test_private_thread_creation_and_membership(discord_: DiscordStandIn) -> None:
    world = discord_.guild
    bob = world.member("bob").user
    async with running(discord_) as bot:
        general = bot.get_channel(world.channel("general").id)
        assert isinstance(general, discord.TextChannel)
        thread = await general.create_thread(name="mediation-bob", auto_archive_duration=60, invitable=False)
        assert thread.type is discord.ChannelType.private_thread and thread.parent_id == general.id
        created = await discord_.wait_for_request("POST", rf"/channels/{general.id}/threads", timeout=WAIT)
        assert created.json == {"name": "mediation-bob", "auto_archive_duration": 60, "type": PRIVATE_THREAD,
                                "invitable": False, "rate_limit_per_user": None}
        await thread.add_user(discord.Object(bob.id))
        await discord_.wait_for_request("PUT", rf"/channels/{thread.id}/thread-members/{bob.id}", timeout=WAIT)
        assert bob.id in world.channel(thread.id).member_ids
        assert (await events_of(bot.cog, "thread_create"))[0].id == thread.id  # THREAD_CREATE came back

        archived = await thread.edit(archived=True)
        assert archived.archived and world.channel(thread.id).archived
        # THREAD_UPDATE(archived) makes discord.py drop the thread from its cache; REST still finds it
        await wait_until(lambda: bot.get_channel(thread.id) is None, timeout=WAIT, what="archived thread uncached")
        fetched = await bot.fetch_channel(thread.id)
        assert isinstance(fetched, discord.Thread) and fetched.archived

        request = discord_.message_payload("{bot} please open a thread", author="bob")
        await discord_.dispatch("MESSAGE_CREATE", request)
        await wait_until(lambda: any(m.id == int(request["id"]) for m in bot.cog.of("message")), timeout=WAIT,
                         what="message received")
        source = next(m for m in bot.cog.of("message") if m.id == int(request["id"]))
        public = await source.create_thread(name="from-a-message")
        assert public.id == source.id and public.type is discord.ChannelType.public_thread

        user_thread = discord_.add_thread("general", "alice-started", owner="alice")
        await discord_.dispatch("THREAD_CREATE", discord_.thread_create_payload(user_thread))
        await events_of(bot.cog, "thread_create", 3)
        in_thread = discord_.message_payload("{bot} help in here", author="alice", channel=user_thread)
        await discord_.dispatch("MESSAGE_CREATE", in_thread)
        await discord_.wait_for_request("POST", rf"/channels/{user_thread.id}/messages", timeout=WAIT)
        received = next(m for m in bot.cog.of("message") if m.id == int(in_thread["id"]))
        assert isinstance(received.channel, discord.Thread) and received.channel.parent_id == general.id


# -- (f) start-up failures -------------------------------------------------------------------------------


async def start_expecting(bot: commands.Bot, token: str, error: type[BaseException]) -> BaseException:
    try:
        with pytest.raises(error) as raised:
            await asyncio.wait_for(bot.start(token), timeout=WAIT)
    finally:
        await bot.close()
    return raised.value


async def test_close_4014_raises_privileged_intents_required(discord_: DiscordStandIn) -> None:
    discord_.close_on_identify(4014)
    await start_expecting(HeyanTestBot(), discord_.token, discord.PrivilegedIntentsRequired)


async def test_message_content_intent_not_enabled_for_the_app_closes_4014() -> None:
    async with DiscordStandIn(privileged_intents_allowed=0) as standin:
        intents = MINIMAL_INTENTS | discord.Intents(message_content=True)
        await start_expecting(HeyanTestBot(intents=intents), standin.token, discord.PrivilegedIntentsRequired)
        assert standin.identify_payloads[0]["intents"] & MESSAGE_CONTENT


async def test_close_4004_and_bad_token(discord_: DiscordStandIn) -> None:
    discord_.close_on_identify(4004)
    closed = await start_expecting(HeyanTestBot(), discord_.token, discord.ConnectionClosed)
    assert isinstance(closed, discord.ConnectionClosed) and closed.code == 4004

    await start_expecting(HeyanTestBot(), "not-the-token", discord.LoginFailure)
    me = discord_.find_requests("GET", "/users/@me")[-1]
    assert me.status == 401 and me.headers["Authorization"] == "Bot not-the-token"


# -- (g) command sync ----------------------------------------------------------------------------------------


async def test_guild_command_sync_registers_commands_used_by_interactions(discord_: DiscordStandIn) -> None:
    world = discord_.guild
    async with running(discord_) as bot:
        bot.tree.copy_global_to(guild=discord.Object(world.id))
        synced = await bot.tree.sync(guild=discord.Object(world.id))
        put = await discord_.wait_for_request(
            "PUT", rf"/applications/{discord_.application_id}/guilds/{world.id}/commands", timeout=WAIT)
        assert [c["name"] for c in put.json] == ["mediate"]
        group = put.json[0]["options"]
        assert {o["name"]: o["type"] for o in group} == {"admin": 2, "ask": 1, "feedback": 1}
        assert [s.name for s in synced] == ["mediate"] and synced[0].id == int(put.response[0]["id"])

        payload = discord_.slash_command_payload("mediate admin status", {"topic": "noise"})
        assert payload["data"]["id"] == str(synced[0].id) and payload["data"]["guild_id"] == str(world.id)
        await discord_.dispatch("INTERACTION_CREATE", payload)
        await events_of(bot.cog, "status")


# -- gateway resilience, sharding, redirection ----------------------------------------------------------


async def test_joining_a_guild_at_runtime(discord_: DiscordStandIn) -> None:
    async with running(discord_) as bot:
        joined = asyncio.Event()

        async def on_guild_join(guild: discord.Guild) -> None:
            joined.set()

        bot.add_listener(on_guild_join)
        new = default_guild(discord_.ids, discord_.bot_user, name="Second", preferred_locale="zh-CN")
        await discord_.join_guild(new)
        await asyncio.wait_for(joined.wait(), timeout=WAIT)
        guild = bot.get_guild(new.id)
        assert guild is not None and guild.preferred_locale is discord.Locale.chinese
        assert [m.id for m in guild.members] == [discord_.bot_user.id]  # no GUILD_MEMBERS intent


async def test_reconnect_request_resumes_the_session(discord_: DiscordStandIn) -> None:
    async with running(discord_) as bot:
        resumed = asyncio.Event()

        async def on_resumed() -> None:
            resumed.set()

        bot.add_listener(on_resumed)
        await discord_.request_reconnect()
        await asyncio.wait_for(resumed.wait(), timeout=WAIT)
        assert [m["op"] for m in discord_.gateway_received if m["op"] in (2, 6)] == [2, 6]
        await discord_.dispatch("MESSAGE_CREATE", discord_.message_payload("{bot} still there?"))
        await wait_until(lambda: bot.cog.sent, timeout=WAIT, what="reply after resume")

        await discord_.invalidate_session(resumable=False)  # discord.py must IDENTIFY afresh
        await wait_until(lambda: len(discord_.identify_payloads) == 2, timeout=WAIT, what="second IDENTIFY")
        await wait_until(lambda: bot.is_ready() and bot.get_guild(discord_.guild.id) is not None, timeout=WAIT,
                         what="ready again")


async def test_auto_sharded_bot_gets_each_guild_on_its_shard() -> None:
    async with DiscordStandIn(shard_count=2) as standin:
        while len(standin.guilds) < 2 or len({(g.id >> 22) % 2 for g in standin.guilds}) < 2:
            standin.guilds.append(default_guild(standin.ids, standin.bot_user, name=f"guild-{len(standin.guilds)}"))

        class ShardedBot(commands.AutoShardedBot):
            async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
                return None  # discord.py waits 5 s between IDENTIFYs by default

        bot = ShardedBot(command_prefix="!", intents=MINIMAL_INTENTS, guild_ready_timeout=0.2)
        async with run_client(bot, standin.token, timeout=WAIT):
            assert sorted(s["shard"] for s in standin.identify_payloads) == [[0, 2], [1, 2]]
            assert {g.id for g in bot.guilds} == {g.id for g in standin.guilds}
            for guild in bot.guilds:
                assert guild.shard_id == (guild.id >> 22) % 2
            target = standin.guilds[-1]
            payload = standin.message_payload("hello", guild=target, channel="general",
                                              author=target.member("bob").user)
            assert await standin.dispatch("MESSAGE_CREATE", payload) == 1


def test_intent_bits_match_discord_py() -> None:
    assert discord.Intents(guilds=True).value == GUILDS
    assert discord.Intents(members=True).value == GUILD_MEMBERS
    assert discord.Intents(guild_messages=True).value == GUILD_MESSAGES
    assert discord.Intents(message_content=True).value == MESSAGE_CONTENT


async def test_urls_are_redirected_and_restored() -> None:
    original_base, original_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    async with DiscordStandIn() as standin:
        assert standin.rest_base == Route.BASE and Route.BASE.startswith("http://127.0.0.1:")
        assert str(DiscordWebSocket.DEFAULT_GATEWAY) == standin.gateway_url
        with pytest.raises(RuntimeError):
            async with DiscordStandIn():
                pass
    restored = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
    assert restored == (original_base, original_gateway)
