"""Gateway events in, engine calls out: messages, edits, deletions, and the catch-up at READY.

Thin listeners (parse, call, render): they decide only what Discord's events mean (a message
addresses Heyan by its user or managed-role mention, a reply to it, or a DM); whether a message is
answered, taken in or left alone is ``Engine.hear``'s. A reply Discord will not take goes to the
outbox at once. What members see: docs/DISCORD.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

import aiohttp
import discord
from discord.ext import commands

from adapters.discord.connection.client import AnyBot, Heyan
from adapters.discord.display.render import render, split_message
from adapters.discord.display.translate import permission_label, t
from adapters.discord.events.catchup import CatchUp, SeenMarks
from adapters.discord.events.guilds import forget_deleted
from adapters.discord.events.history import ConversationReader, conversation
from adapters.discord.events.mapping import (
    dm_tenant,
    guild_tenant,
    language,
    message_text,
    tenant_of_channel,
    to_message,
)
from adapters.discord.events.notices import Notices
from bot.delivery.posts import reply_post
from bot.models import Message, Reply
from memory.models import Lang, Scope, utcnow

__all__ = ["Listeners"]

log = logging.getLogger(__name__)


def _retry_after(exc: discord.HTTPException) -> float:
    """Seconds a 429 asked to wait (``Retry-After``, rate-limits.mdx); 0 for any other answer."""
    if exc.status != 429:
        return 0.0
    try:
        return float(exc.response.headers.get("Retry-After", 0))
    except (AttributeError, TypeError, ValueError):
        return 0.0


class Listeners(commands.Cog):
    """Messages, edits, deletions, and reading back open disputes at READY."""

    def __init__(self, bot: AnyBot, heyan: Heyan) -> None:
        self.bot = bot
        self.heyan = heyan
        self._catching_up: asyncio.Task[int] | None = None
        self._ready = False

    # --- what a message is -----------------------------------------------------------------------

    def _me(self) -> int:
        assert self.bot.user is not None, "events arrive only after log-in"
        return self.bot.user.id

    def _role_mentioned(self, message: discord.Message) -> bool:
        """A mention of Heyan's own managed role (which only Heyan holds)."""
        role = message.guild.self_role if message.guild is not None else None
        return role is not None and role.id in {r.id for r in message.role_mentions}

    def _replied_to_me(self, message: discord.Message) -> bool:
        ref = message.reference
        replied = ref.resolved if ref is not None else None
        if ref is not None and not isinstance(replied, discord.Message):
            replied = ref.cached_message
        return isinstance(replied, discord.Message) and replied.author.id == self._me()

    def _addressed(self, message: discord.Message) -> bool:
        if message.guild is None:
            return True  # a DM is said to Heyan
        return self._me() in message.raw_mentions or self._role_mentioned(message) or self._replied_to_me(message)

    def _readable(self, message: discord.Message) -> bool:
        """Discord sends the content of DMs and of messages whose mentions include the bot (a reply
        that pings it too); the rest needs the privileged intent."""
        me = self._me()
        return message.guild is None or self.heyan.reads_content or any(u.id == me for u in message.mentions)

    @staticmethod
    def _tenant(message: discord.Message) -> str:
        if message.guild is not None:
            return guild_tenant(message.guild.id)
        return dm_tenant(message.author.id)

    async def _lang(self, tenant: str, message: discord.Message) -> Lang:
        guild_locale = message.guild.preferred_locale if message.guild is not None else None
        return await language(self.heyan.port.tenants, tenant, None, guild_locale)

    @property
    def marks(self) -> SeenMarks:
        return self.heyan.marks  # on use: ``heyan discord sync`` has no port

    @property
    def notices(self) -> Notices:
        return self.heyan.notices

    # --- messages ----------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        await self.hear(message)

    async def hear(self, message: discord.Message, live: bool = True) -> None:
        """One message, live from the gateway or read back at READY (``live`` False: no typing
        indicator, no hints, and only recent mentions answered)."""
        if not conversation(message):
            return
        tenant = self._tenant(message)
        addressed = self._addressed(message)
        if not self._readable(message):
            if addressed and live:
                await self._hint(message, tenant)
            return
        text = message_text(message, self._me())
        if not text and not addressed:
            return
        if addressed and not live and not self.heyan.port.engine.answers_late(message.created_at,
                                                                             discord.utils.utcnow()):
            addressed = False  # asked long ago, while Heyan was away: taken in, not answered late
        msg = to_message(message, tenant=tenant, text=text, mention=addressed)
        if addressed:
            await self._answer(message, msg, tenant, live=live)
        else:
            await self.heyan.port.engine.hear(msg)
        if message.guild is not None:
            await self.marks.advance(tenant, msg.session, message.id)  # only moves for an open dispute

    async def _answer(self, message: discord.Message, msg: Message, tenant: str, *, live: bool) -> None:
        engine = self.heyan.port.engine
        reader = ConversationReader(message, tenant=tenant, me=self._me())
        async with contextlib.AsyncExitStack() as typing:
            if live:
                try:
                    await typing.enter_async_context(message.channel.typing())
                except (discord.HTTPException, discord.RateLimited) as exc:  # a courtesy; the reply matters
                    log.info("no typing indicator in %s: %s", message.channel.id, exc)
            reply = await engine.hear(msg, history=reader, confirm=True)
        if reply is not None and await self._reply(message, msg, reply, tenant, refused=reader.refused):
            await engine.answered(msg)  # only once it was posted: until then it is answered again later

    async def _reply(self, message: discord.Message, msg: Message, reply: Reply, tenant: str, *,
                     refused: str | None) -> bool:
        """Post the reply, its first piece as a Discord reply to the message (which needs Read
        Message History; without it, a plain message). True once the first piece is posted, queued
        in the outbox (Discord did not take it now), or when posting there is impossible and the
        member was told."""
        content, mentions = render(reply.body)

        async def noted(perm: str) -> str:
            if not await self.notices.first(tenant, f"history:{message.channel.id}:{perm}"):
                return content
            return content + "\n-# " + t(reply.lang, "history.refused", perm=permission_label(perm, reply.lang))

        if refused:
            content = await noted(refused)
        channel = message.channel
        posted = False
        try:
            pieces = split_message(content)
            try:
                await channel.send(pieces[0], allowed_mentions=mentions,
                                   reference=message.to_reference(fail_if_not_exists=False))
            except discord.Forbidden:
                # A reply needs Read Message History ("Create Message" > Limitations). Without it the
                # history read answered an empty list, not an error (as documented), when the cached
                # permissions did not know yet: this refusal is the first sign, so the note goes here.
                if not refused:
                    pieces = split_message(await noted("read_message_history"))
                await channel.send(pieces[0], allowed_mentions=mentions)
            posted = True
            for piece in pieces[1:]:
                await channel.send(piece, allowed_mentions=mentions)
        except discord.Forbidden as exc:
            log.warning("cannot reply in channel %s (%s): %s", channel.id, exc.code, exc.text)
            if not posted:
                await self._cannot_post(message, tenant, reply.lang)
            return True  # trying again would be refused again
        except discord.HTTPException as exc:
            log.warning("Discord did not take the reply in channel %s (%s, code %s)%s", channel.id, exc.status,
                        exc.code, "" if posted else "; it goes through the outbox")
            if not posted:
                return await self._queue(msg, reply, content, _retry_after(exc))
        except discord.RateLimited as exc:
            log.warning("Discord asked to wait %.0f s before replying in channel %s%s", exc.retry_after, channel.id,
                        "" if posted else "; it goes through the outbox")
            if not posted:
                return await self._queue(msg, reply, content, exc.retry_after)
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            log.warning("network error replying in channel %s: %r%s", channel.id, exc,
                        "" if posted else "; it goes through the outbox")
            if not posted:
                return await self._queue(msg, reply, content, 0.0)
        return True

    async def _queue(self, msg: Message, reply: Reply, content: str, wait: float) -> bool:
        """The reply Discord did not take now, into the outbox (the same post the runtime's
        answer-again loop would make, so only one of them is ever sent). True once queued."""
        post = reply_post(msg, reply)
        try:
            await self.heyan.port.outbox.append(post, not_before=utcnow() + timedelta(seconds=wait))
        except Exception:  # Redis down too: the claim lapses and the answer-again loop tries later
            log.exception("could not queue the reply to %s in the outbox", msg.id)
            return False
        return True

    async def _cannot_post(self, message: discord.Message, tenant: str, lang: Lang) -> None:
        """Heyan may not post where it was asked: tell the member, once a day per channel, by DM."""
        if not await self.notices.first(tenant, f"cannot-post:{message.channel.id}"):
            return
        perm = "send_messages_in_threads" if isinstance(message.channel, discord.Thread) else "send_messages"
        text = t(lang, "cannot_post", where=f"<#{message.channel.id}>", perm=permission_label(perm, lang))
        try:
            await message.author.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.warning("could not tell %s by DM that Heyan cannot post in %s: %s", message.author.id,
                        message.channel.id, exc)

    async def _hint(self, message: discord.Message, tenant: str) -> None:
        """Addressed, but Discord withheld the text: say how to reach Heyan (once a day per member)."""
        kind = "role" if self._role_mentioned(message) else "ping"
        if not await self.notices.first(tenant, f"hint:{kind}:{message.author.id}"):
            return
        lang = await self._lang(tenant, message)
        try:
            await message.channel.send(t(lang, f"hint.{kind}", me=f"<@{self._me()}>"),
                                       allowed_mentions=discord.AllowedMentions.none(),
                                       reference=message.to_reference(fail_if_not_exists=False), mention_author=False)
        except discord.HTTPException as exc:
            log.info("could not post the %s hint in %s: %s", kind, message.channel.id, exc)

    # --- READY: read back the open disputes -------------------------------------------------------

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Every READY (also after a session could not be resumed): read back open disputes, in the
        background — the gateway keeps delivering meanwhile, and the intake drops what comes twice."""
        self._ready = True
        self._start_catch_up(None)

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        """One shard of a sharded bot identified again after the first READY: read back its guilds."""
        if self._ready:
            self._start_catch_up(shard_id)

    def _start_catch_up(self, shard_id: int | None) -> None:
        if self._catching_up is not None and not self._catching_up.done():
            return
        catch_up = CatchUp(self.bot, self.heyan.port.sessions, self.marks, self.hear,
                           lambda tenant, session: forget_deleted(self.heyan, tenant, session))
        self._catching_up = asyncio.create_task(self._catch_up(catch_up, shard_id), name="heyan-discord-catch-up")

    async def _catch_up(self, catch_up: CatchUp, shard_id: int | None) -> int:
        try:
            return await catch_up.run(shard_id)
        except Exception:
            log.exception("catch-up after READY failed; it runs again at the next READY")
            return 0

    async def caught_up(self) -> int:
        """Wait for the running catch-up (tests, orderly starts); how many messages it read."""
        return await self._catching_up if self._catching_up is not None else 0

    async def cog_unload(self) -> None:
        if self._catching_up is not None and not self._catching_up.done():
            self._catching_up.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._catching_up

    # --- edits and deletions ------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        message = payload.message
        if not conversation(message) or message.edited_at is None:  # embeds unfurling are not edits
            return
        if not self._readable(message):
            return
        tenant = self._tenant(message)
        msg = to_message(message, tenant=tenant, text=message_text(message, self._me()),
                         mention=self._addressed(message))
        engine = self.heyan.port.engine
        if await engine.known(tenant, [msg.session]):  # a session Heyan never saw holds nothing of it
            await engine.revise(msg)  # the same text again (an unfurl, a pin) changes nothing there

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        cached = payload.cached_message
        if cached is not None and (cached.author.bot or cached.webhook_id is not None):
            return
        await self._retract(payload.guild_id, payload.channel_id, [payload.message_id])

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        await self._retract(payload.guild_id, payload.channel_id, sorted(payload.message_ids))

    async def _retract(self, guild_id: int | None, channel_id: int, message_ids: list[int]) -> None:
        tenant = guild_tenant(guild_id) if guild_id is not None else await self._dm_tenant(channel_id)
        if tenant is None:
            log.info("deleted message(s) in unknown DM channel %s: nothing to take back", channel_id)
            return
        engine = self.heyan.port.engine
        session = str(channel_id)
        if not await engine.known(tenant, [session]):
            return
        for message_id in message_ids:
            changed = await engine.retract(Scope(tenant=tenant, session=session), str(message_id))
            log.info("message %s deleted in %s: %d memories changed", message_id, session, changed)

    async def _dm_tenant(self, channel_id: int) -> str | None:
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except discord.HTTPException as exc:
                log.info("cannot resolve DM channel %s: %s", channel_id, exc)
                return None
        return tenant_of_channel(channel)
