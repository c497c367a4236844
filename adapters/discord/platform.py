"""``DiscordPlatform``: Heyan's Discord connection in ``heyan run`` (``adapters.runtime.platforms.Platform``).

Discord's one composition module: the only one in ``adapters/discord`` that sees the runtime. Start-up
failures (401 or 4004 token, 4014 intents, 4011 sharding) become one-line ``StartupError``s.
``HEYAN_DISCORD_API_URL``/``_GATEWAY_URL`` point discord.py at a proxy or stand-in by setting its
process-wide class attributes, restored on ``stop()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import aiohttp
import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from adapters.discord.connection.bot import build_bot
from adapters.discord.connection.client import GUILD_READY_TIMEOUT, IDENTIFY_DELAY, AnyBot, Attached, Heyan
from adapters.discord.connection.sender import DiscordSender
from adapters.discord.connection.sharding import ShardPlan, plan, recommended_shards
from adapters.discord.events.catchup import SeenMarks
from adapters.discord.events.guilds import GuildRoster
from adapters.discord.events.notices import Notices
from adapters.runtime.startup import StartupError
from bot.config.settings import DiscordSettings, Settings
from bot.delivery.deliverer import PostSender

if TYPE_CHECKING:
    from adapters.runtime.composition import Runtime

__all__ = ["DiscordPlatform", "login", "redirect", "startup_error"]

log = logging.getLogger(__name__)

PORTAL = "https://discord.com/developers/applications"
_BAD_TOKEN = (f"Discord rejected HEYAN_DISCORD_TOKEN ({{why}}): in the developer portal ({PORTAL}) open your "
              "application → Bot → Reset Token, and put the new token in HEYAN_DISCORD_TOKEN")
_MESSAGE_CONTENT = (f"Discord refused the Message Content intent (close code 4014): in the developer portal "
                    f"({PORTAL}) open your application → Bot → Privileged Gateway Intents and turn on Message "
                    "Content Intent, or unset HEYAN_DISCORD_MESSAGE_CONTENT to run on mentions only")
_PRIVILEGED = (f"Discord refused a privileged intent (close code 4014): in the developer portal ({PORTAL}) "
               "check your application → Bot → Privileged Gateway Intents")
#: How long ``stop()`` waits for the gateway task after closing the client.
STOP_SECONDS = 10.0


def startup_error(exc: BaseException, settings: DiscordSettings) -> StartupError | None:
    """The one-line StartupError for a known log-in or gateway failure; None for anything else."""
    if isinstance(exc, discord.LoginFailure):
        return StartupError(_BAD_TOKEN.format(why="401 Unauthorized"))
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return StartupError(_MESSAGE_CONTENT if settings.message_content else _PRIVILEGED)
    if isinstance(exc, discord.ConnectionClosed):
        if exc.code == 4004:
            return StartupError(_BAD_TOKEN.format(why="gateway close code 4004, authentication failed"))
        if exc.code == 4014:
            return StartupError(_MESSAGE_CONTENT if settings.message_content else _PRIVILEGED)
        if exc.code == 4011:
            return StartupError("Discord requires sharding (gateway close code 4011): set HEYAN_DISCORD_SHARDS=-1 "
                                "(the default) for Discord's recommended shard count")
        if exc.code == 4010:
            return StartupError("Discord refused the shard (gateway close code 4010, invalid shard): check "
                                "HEYAN_DISCORD_SHARD_COUNT and HEYAN_DISCORD_SHARD_IDS")
        if exc.code == 4013:
            return StartupError("Discord rejected the gateway intents (close code 4013); this is a bug in Heyan's "
                                "Discord adapter, please report it")
        return StartupError(f"the Discord gateway closed the connection (close code {exc.code}"
                            f"{': ' + exc.reason if exc.reason else ''}); check HEYAN_DISCORD_GATEWAY_URL and "
                            "Discord's status page")
    if isinstance(exc, discord.GatewayNotFound):
        return StartupError(f"cannot find Discord's gateway through {Route.BASE}: check the network, or "
                            "HEYAN_DISCORD_API_URL if you use a proxy")
    if isinstance(exc, aiohttp.ClientError | OSError | TimeoutError):
        return StartupError(f"cannot reach Discord ({exc.__class__.__name__}: {exc}) at {Route.BASE}: check the "
                            "network, or HEYAN_DISCORD_API_URL / HEYAN_DISCORD_GATEWAY_URL if you use a proxy")
    return None


def redirect(settings: DiscordSettings) -> Callable[[], None]:
    """Point discord.py at ``api_url`` / ``gateway_url`` when set; returns the undo."""
    api, gateway = settings.api_url, settings.gateway_url
    if api and not api.startswith(("http://", "https://")):
        raise StartupError(f"HEYAN_DISCORD_API_URL must be an http(s) URL such as https://discord.com/api/v10 "
                           f"(got {api!r})")
    if gateway and not gateway.startswith(("ws://", "wss://")):
        raise StartupError(f"HEYAN_DISCORD_GATEWAY_URL must be a ws(s) URL such as wss://gateway.discord.gg "
                           f"(got {gateway!r})")
    old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    new_base = api.rstrip("/") if api else None
    new_gateway = yarl.URL(gateway) if gateway else None
    if new_base is not None:
        Route.BASE = new_base
    if new_gateway is not None:
        DiscordWebSocket.DEFAULT_GATEWAY = new_gateway

    def undo() -> None:
        if new_base is not None and new_base == Route.BASE:
            Route.BASE = old_base
        if new_gateway is not None and new_gateway == DiscordWebSocket.DEFAULT_GATEWAY:
            DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    return undo


async def login(bot: AnyBot, settings: DiscordSettings) -> None:
    """Log in over REST (which also runs ``setup_hook``: cogs, translator); StartupError on failure."""
    if settings.token is None:
        raise StartupError(f"HEYAN_DISCORD_TOKEN is not set: copy your bot's token from the developer portal "
                           f"({PORTAL}, your application → Bot)")
    try:
        await bot.login(settings.token.get_secret_value().strip())
    except (discord.DiscordException, aiohttp.ClientError, OSError, TimeoutError) as exc:
        mapped = startup_error(exc, settings)
        if mapped is None:
            raise
        raise mapped from exc


class DiscordPlatform:
    """The Discord connection of one Heyan process.

    ``guild_ready_timeout`` and ``identify_delay`` are discord.py's waits (after READY for the guilds,
    between shard IDENTIFYs); tests shorten them, production keeps discord.py's defaults.
    """

    name = "discord"

    def __init__(self, settings: Settings, *, guild_ready_timeout: float = GUILD_READY_TIMEOUT,
                 identify_delay: float = IDENTIFY_DELAY) -> None:
        self.settings = settings
        self.heyan = Heyan(settings)
        self.guild_ready_timeout = guild_ready_timeout
        self.identify_delay = identify_delay
        self.bot: AnyBot | None = None
        self._task: asyncio.Task[None] | None = None
        self._undo: Callable[[], None] | None = None

    def __repr__(self) -> str:
        state = "connected" if self.bot is not None and self.bot.is_ready() else "not connected"
        return f"DiscordPlatform({state}, shards={self.settings.discord.shards})"

    async def start(self, rt: Runtime) -> PostSender:
        d = self.settings.discord
        shards = plan(d)  # a bad shard setting stops here, before anything connects
        self._undo = redirect(d)
        # the composition: the core's port, and what Discord keeps in the process's Redis
        self.heyan.attach(Attached(port=rt.port, marks=SeenMarks(rt.redis), notices=Notices(rt.redis),
                                   guilds=GuildRoster(rt.redis)))
        try:
            shards = await self._decide(shards)
        except BaseException:
            await self.stop()
            raise
        bot = self.bot = build_bot(self.heyan, guild_ready_timeout=self.guild_ready_timeout,
                                   identify_delay=self.identify_delay, shards=shards)
        try:
            await login(bot, d)
            self._task = asyncio.create_task(bot.connect(reconnect=True), name="heyan-discord-gateway")
            await self._until_ready(bot, self._task)
        except BaseException:
            await self.stop()
            raise
        log.info("connected to Discord as %s in %d guild(s)", bot.user, len(bot.guilds))
        return DiscordSender(bot)

    async def _decide(self, shards: ShardPlan) -> ShardPlan:
        """Ask ``GET /gateway/bot`` when the plan leaves it to Discord: more than one recommended
        shard makes an ``AutoShardedBot`` of that many."""
        if not shards.ask:
            return shards
        d = self.settings.discord
        if d.token is None:
            return ShardPlan()  # login() says what to set
        try:
            count = await recommended_shards(d.token.get_secret_value().strip())
        except (discord.DiscordException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            mapped = startup_error(exc, d)
            if mapped is None:
                raise
            raise mapped from exc
        log.info("Discord recommends %d shard(s)%s", count, ": one connection" if count <= 1 else "")
        return ShardPlan(count=count) if count > 1 else ShardPlan()

    async def _until_ready(self, bot: AnyBot, gateway: asyncio.Task[None]) -> None:
        ready = asyncio.create_task(bot.wait_until_ready(), name="heyan-discord-ready")
        try:
            await asyncio.wait({gateway, ready}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not ready.done():
                ready.cancel()
        if ready.done() and not ready.cancelled():
            return
        failure = gateway.exception()
        if failure is None:
            raise StartupError("the Discord connection closed before it was ready")
        mapped = startup_error(failure, self.settings.discord)
        if mapped is None:
            raise failure
        raise mapped from failure

    async def serve(self) -> None:
        """Until the gateway connection ends (``stop()``, or a failure discord.py cannot recover from)."""
        if self._task is None:
            return
        try:
            await asyncio.shield(self._task)
        except (discord.DiscordException, aiohttp.ClientError, OSError) as exc:
            mapped = startup_error(exc, self.settings.discord)
            if mapped is None:
                raise
            raise mapped from exc

    async def stop(self) -> None:
        bot, task = self.bot, self._task
        if bot is not None and not bot.is_closed():
            for name in list(bot.cogs):  # their background work (the READY catch-up) ends first
                await bot.remove_cog(name)
            await bot.close()
        if task is not None:
            if not task.done():
                try:
                    await asyncio.wait_for(asyncio.shield(task), STOP_SECONDS)
                except TimeoutError:
                    task.cancel()
                    log.warning("the Discord gateway task did not end within %.0f s; cancelled it", STOP_SECONDS)
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                except Exception as exc:  # the failure is serve()'s or start()'s to report; stopping goes on
                    log.debug("gateway task ended with %r while stopping", exc)
            elif not task.cancelled() and task.exception() is not None:
                log.debug("gateway task had ended with %r", task.exception())
        self._task = None
        if self._undo is not None:
            self._undo()
            self._undo = None
