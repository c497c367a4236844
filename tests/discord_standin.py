"""A loopback stand-in for Discord's gateway and REST API, for tests of the real ``discord.py``.

What it is: one aiohttp server on 127.0.0.1 (a free port) that speaks enough of Discord API v10 for
an unmodified ``discord.Client`` / ``commands.Bot`` / ``commands.AutoShardedBot`` to log in, connect
to the gateway, receive events and answer them. discord.py's own JSON parsing, caches, command tree,
views, modals, rate-limit handling and error mapping all run for real; only the far end is fake.

    async with DiscordStandIn() as discord_:            # patches discord.py's URLs, restores on exit
        bot = commands.Bot(command_prefix="!", intents=intents, guild_ready_timeout=0.5)
        async with run_client(bot, discord_.token):       # starts bot.start(), waits for on_ready
            await discord_.dispatch("MESSAGE_CREATE", discord_.message_payload("hi", author="alice"))
            sent = await discord_.wait_for_request("POST", r"/channels/\\d+/messages")

Where discord.py looks for Discord: ``discord.http.Route.BASE`` (REST, read when each ``Route`` is
built; the interaction/webhook adapter in ``discord/webhook/async_.py`` builds the same ``Route``
class, so one patch covers interaction callbacks and followups too) and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` (the websocket; ``Client.connect`` uses it
directly, ``AutoShardedClient`` uses the ``url`` of ``GET /gateway/bot``, and resumes use READY's
``resume_gateway_url``; all three point here). ``redirect_discord`` patches both and restores the
originals; ``DiscordStandIn`` uses it on enter/exit and refuses to nest.

The world (``tests/discord_standin_world.py``, the ``DiscordWorld`` base class): a bot user, its
application and guilds described by ``GuildSpec`` (roles with permissions, channels with overwrites,
threads, members, ``preferred_locale``). The default world has one guild with #general, #mediation,
an active public thread, and members alice (owner, Moderators), bob (client locale zh-CN) and carol.

API at a glance (``discord_`` is the stand-in):
  build    ``message_payload``, ``dm_message_payload``, ``message_update_payload``,
           ``message_delete_payload``, ``thread_create_payload`` (after ``add_thread``),
           ``guild_create_payload``, ``guild_delete_payload``, ``slash_command_payload`` (``focused=``
           for autocomplete), ``context_menu_payload``, ``component_payload``, ``modal_submit_payload``
  send     ``await dispatch(event, payload)``; ``join_guild``, ``remove_from_guild``, ``delete_channel``,
           ``request_reconnect``, ``invalidate_session``, ``close_gateway(code)``; ``post_offline(payload)``
           (a message only the channel's history holds), ``await reset_token()``
  faults   ``inject(method, path_regex, Fault.rate_limited() | .missing_permissions() | ...)``,
           ``close_on_identify(4014)``, ``privileged_intents_allowed=``, ``interaction_deadline=``,
           ``token_lifetime=``, ``expired_token=``; time: ``clock.advance(seconds)`` (``StandInClock``)
  observe  ``requests`` (``RecordedRequest``: method, path, query, headers, json, files, status,
           response), ``find_requests``, ``await wait_for_request``, ``intents``, ``identify_payloads``,
           ``messages``, ``interactions`` (``InteractionRecord``), ``commands``, ``undelivered``
  run      ``async with run_client(bot, discord_.token)``; ``await wait_until(predicate)``

``wait_for_request`` returns once the stand-in has answered, which can be before discord.py has
read the answer: wait for a client-side signal (``on_app_command_completion``, a handler's own
record) before dispatching an event that depends on it (e.g. a click on a view just sent).

Discord behaviour modelled here (so adapter tests see it): IDENTIFY closes with 4004 on a bad
token, 4014 for privileged intents the application may not use (``privileged_intents_allowed``) or
on demand (``close_on_identify``); REST answers 401 to a bad token (discord.py: ``LoginFailure``);
events are filtered by the intents the client sent, and without MESSAGE_CONTENT the content,
embeds, attachments and components of guild messages that do not mention the bot arrive empty;
GUILD_CREATE carries only the bot's own member unless GUILD_MEMBERS is requested; the bot's own
messages come back as MESSAGE_CREATE; mentions in sent messages obey ``allowed_mentions`` (with
Discord's default of "ping everything" when it is absent); a thread started from a message takes
the message's id; an interaction can be acknowledged once, followups need an acknowledged
interaction, and the first followup after a "thinking" defer completes the loading message and
inherits its ephemerality; a deferred update (type 6) makes ``@original`` the component's message.
Deadlines run on the stand-in's own clock (``StandInClock``, which moves only when a test advances
it): the first answer 3 s after the interaction is refused (404 / 10062), its token serves followups
and edits for 15 minutes, then answers 401 / 50027 (``expired_token=``: the docs name no code). Message bodies are checked against Discord's
documented limits (``tests/discord_standin_limits.py``: content, embeds and the 6,000 total,
components) and refused with 400 / 50035 naming the field. ``GET /channels/{id}/messages`` pages
newest first with ``limit`` 1-100 and one of ``before`` / ``after`` / ``around``, answers 403 / 50001
without View Channel and an empty list without Read Message History (as documented), and withholds
content from an application not allowed Message Content. Deleting a thread needs Manage Threads,
creating one Create Public / Private Threads, creating a message Send Messages (Send Messages in
Threads in a thread) and a reply also Read Message History (403 / 50013 otherwise; 50001 without
View Channel); a reply must point at a non-system message of that channel. ``allowed_mentions``
follows "Allowed Mentions Object": an interaction's or webhook's message without it pings users
only, ``parse`` excludes a list of the same type (400 / 50035). Interaction callbacks are checked for
their flags, modal limits and autocomplete limits (``callback_errors``); a followup always answers
with its message (``wait`` is always true). 429s carry ``Retry-After``, ``retry_after``, the scope and,
for a route's limit, the route headers, and a ``Via`` header (without ``Via`` discord.py takes a 429
for a Cloudflare ban and raises instead of retrying).

What it is not: Discord. No voice, presences, audit logs, invites, forum posts, stickers, polls,
rate-limit buckets (429s come only from ``inject``), permission enforcement on REST calls other than
the ones named above (inject ``Fault.missing_permissions()``), or ETF encoding. Responses are realistic in shape, not exhaustive.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import math
import re
import secrets
import socket
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
import yarl
from aiohttp import web
from discord.gateway import DiscordWebSocket
from discord.http import Route

from tests.discord_standin_limits import callback_errors, message_errors
from tests.discord_standin_world import (
    BOT_PERMISSIONS,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    DIRECT_MESSAGE_REACTIONS,
    DIRECT_MESSAGE_TYPING,
    DIRECT_MESSAGES,
    DM,
    EPHEMERAL,
    GUILD_MEMBERS,
    GUILD_MESSAGE_REACTIONS,
    GUILD_MESSAGE_TYPING,
    GUILD_MESSAGES,
    GUILD_NEWS,
    GUILD_PRESENCES,
    GUILD_TEXT,
    GUILDS,
    LOADING,
    MANAGE_CHANNELS,
    MANAGE_THREADS,
    MENTION_EVERYONE,
    MESSAGE_CONTENT,
    NEWS_THREAD,
    PRIVATE_THREAD,
    PRIVILEGED_INTENTS,
    PUBLIC_THREAD,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    THREAD_TYPES,
    VIEW_CHANNEL,
    ChannelSpec,
    DiscordWorld,
    GuildSpec,
    InteractionRecord,
    MemberSpec,
    Overwrite,
    Payload,
    RoleSpec,
    StandInClock,
    UserSpec,
    default_bot,
    default_guild,
    now_iso,
    unique_users,
)

__all__ = [
    "EPHEMERAL",
    "GUILDS",
    "GUILD_MEMBERS",
    "GUILD_MESSAGES",
    "LOADING",
    "MESSAGE_CONTENT",
    "PRIVATE_THREAD",
    "PUBLIC_THREAD",
    "ChannelSpec",
    "DiscordStandIn",
    "DiscordWorld",
    "Fault",
    "GuildSpec",
    "InteractionRecord",
    "MemberSpec",
    "Overwrite",
    "Payload",
    "RecordedFile",
    "RecordedRequest",
    "RoleSpec",
    "StandInClock",
    "UserSpec",
    "default_bot",
    "default_guild",
    "redirect_discord",
    "run_client",
    "wait_until",
]

# ---------------------------------------------------------------------------------------------
# Gateway constants: which intent each event needs, close codes
# ---------------------------------------------------------------------------------------------

# event -> (intent needed in a guild, intent needed in a DM); events not listed are always sent.
# GUILD_CREATE / GUILD_DELETE are always sent so that guild availability stays observable.
_EVENT_INTENTS: dict[str, tuple[int, int]] = {
    **{e: (GUILDS, GUILDS) for e in ("GUILD_UPDATE", "GUILD_ROLE_CREATE", "GUILD_ROLE_UPDATE", "GUILD_ROLE_DELETE",
                                    "CHANNEL_CREATE", "CHANNEL_UPDATE", "CHANNEL_DELETE", "THREAD_CREATE",
                                    "THREAD_UPDATE", "THREAD_DELETE", "THREAD_LIST_SYNC", "THREAD_MEMBER_UPDATE",
                                    "THREAD_MEMBERS_UPDATE")},
    **{e: (GUILD_MEMBERS, GUILD_MEMBERS) for e in ("GUILD_MEMBER_ADD", "GUILD_MEMBER_UPDATE", "GUILD_MEMBER_REMOVE")},
    **{e: (GUILD_MESSAGES, DIRECT_MESSAGES) for e in ("MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE",
                                                      "MESSAGE_DELETE_BULK")},
    **{e: (GUILD_MESSAGE_REACTIONS, DIRECT_MESSAGE_REACTIONS) for e in ("MESSAGE_REACTION_ADD",
                                                                        "MESSAGE_REACTION_REMOVE")},
    "TYPING_START": (GUILD_MESSAGE_TYPING, DIRECT_MESSAGE_TYPING),
}

#: Discord's deadlines: the first answer to an interaction within 3 s, followups and edits with its
#: token for 15 minutes (``developers/interactions/receiving-and-responding.mdx``).
INTERACTION_DEADLINE = 3.0
TOKEN_LIFETIME = 15 * 60.0
#: What a token past its 15 minutes is answered with. The documentation gives no code: Discord answers
#: 401 / 50027 "Invalid Webhook Token" in practice; ``expired_token=UNKNOWN_WEBHOOK_TOKEN`` (404 /
#: 10015) or ``UNKNOWN_INTERACTION_TOKEN`` (404 / 10062) model the other answers a client must survive.
EXPIRED_TOKEN = (401, 50027, "Invalid Webhook Token")
UNKNOWN_WEBHOOK_TOKEN = (404, 10015, "Unknown Webhook")
UNKNOWN_INTERACTION_TOKEN = (404, 10062, "Unknown interaction")
#: How long Discord remembers a nonce sent with enforce_nonce ("the past few minutes"; taken as 5).
NONCE_WINDOW_SECONDS = 300.0

#: Message types a reply may point at: "The referenced message must exist and cannot be a system
#: message" (``developers/resources/message.mdx``, Create Message > Limitations); DEFAULT, REPLY,
#: CHAT_INPUT_COMMAND and CONTEXT_MENU_COMMAND are the "basic messages" of that page.
_REPLYABLE_TYPES = frozenset({0, 19, 20, 23})

_ARCHIVE_MINUTES = (60, 1440, 4320, 10080)

CLOSE_REASONS = {
    4000: "Unknown error.", 4004: "Authentication failed.", 4009: "Session timed out.",
    4010: "Invalid shard.", 4011: "Sharding required.", 4013: "Invalid intent(s).", 4014: "Disallowed intent(s).",
}


# ---------------------------------------------------------------------------------------------
# Recording and fault injection
# ---------------------------------------------------------------------------------------------


@dataclass
class RecordedFile:
    field: str
    filename: str | None
    content_type: str
    data: bytes


@dataclass
class RecordedRequest:
    method: str
    path: str  # relative to /api/v10, e.g. "/channels/123/messages"
    query: dict[str, str]
    headers: dict[str, str]
    json: Any  # the JSON body, or the ``payload_json`` part of a multipart body; None if neither
    files: list[RecordedFile] = field(default_factory=list)
    status: int = 0  # what the stand-in answered
    response: Any = None
    faulted: bool = False  # answered by an injected fault


@dataclass
class Fault:
    """An error answer for ``DiscordStandIn.inject``; the constructors use Discord's real codes."""

    status: int
    body: Payload
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def error(cls, status: int, code: int, message: str) -> Fault:
        return cls(status, {"message": message, "code": code})

    @classmethod
    def rate_limited(cls, retry_after: float = 0.05, *, is_global: bool = False, scope: str | None = None) -> Fault:
        """A 429 as ``developers/topics/rate-limits.mdx`` ("Exceeding A Rate Limit") shows it: the body's
        ``retry_after`` a float of seconds, ``Retry-After`` whole seconds, ``X-RateLimit-Scope`` ``user``,
        ``global`` or ``shared``; a route's limit (not the global one) also carries the route headers."""
        scope = scope or ("global" if is_global else "user")
        headers = {"Retry-After": str(max(1, math.ceil(retry_after))), "Via": "1.1 google",
                   "X-RateLimit-Scope": scope}
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        else:  # "normal route rate-limiting headers will also be sent in this response"
            headers.update({"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0" if scope == "user" else "4",
                            "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
                            "X-RateLimit-Reset-After": f"{retry_after:.3f}", "X-RateLimit-Bucket": "standin0bucket"})
        message = "The resource is being rate limited." if scope == "shared" else "You are being rate limited."
        body = {"message": message, "retry_after": retry_after, "global": is_global}
        return cls(429, body, headers)

    @classmethod
    def unauthorized(cls) -> Fault:
        return cls.error(401, 0, "401: Unauthorized")

    @classmethod
    def missing_access(cls) -> Fault:
        return cls.error(403, 50001, "Missing Access")

    @classmethod
    def missing_permissions(cls) -> Fault:
        return cls.error(403, 50013, "Missing Permissions")

    @classmethod
    def unknown_channel(cls) -> Fault:
        return cls.error(404, 10003, "Unknown Channel")

    @classmethod
    def unknown_message(cls) -> Fault:
        return cls.error(404, 10008, "Unknown Message")

    @classmethod
    def thread_archived(cls) -> Fault:
        return cls.error(400, 50083, "Operation cannot be performed on an archived thread")

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        return cls.error(status, 0, "500: Internal Server Error")


@dataclass
class FaultRule:
    method: str
    path: re.Pattern[str]
    fault: Fault
    remaining: int | None  # None: every matching request

    def matches(self, method: str, path: str) -> bool:
        return self.remaining != 0 and self.method in (method, "*") and self.path.fullmatch(path) is not None


class ApiError(Exception):
    def __init__(self, status: int, code: int, message: str, errors: Payload | None = None) -> None:
        super().__init__(message)
        self.body: Payload = {"message": message, "code": code}
        if errors:
            self.body["errors"] = errors
        self.status = status


def _check_limits(body: Payload) -> None:
    """400 / 50035 naming the field, as Discord answers a body over its documented limits."""
    if (errors := message_errors(body)) is not None:
        raise ApiError(400, 50035, "Invalid Form Body", errors)


def _form_error(field_name: str, code: str, message: str) -> ApiError:
    return ApiError(400, 50035, "Invalid Form Body", {field_name: {"_errors": [{"code": code, "message": message}]}})


def _check_allowed_mentions(allowed: Payload) -> None:
    """``parse`` is mutually exclusive with ``users`` / ``roles`` of the same type (an empty or null list
    is allowed); ``users`` and ``roles`` hold at most 100 ids (``developers/resources/message.mdx``)."""
    parse = allowed.get("parse") or []
    for kind in ("users", "roles"):
        listed = allowed.get(kind) or []
        if kind in parse and listed:
            raise ApiError(400, 50035, "Invalid Form Body", {"allowed_mentions": {"_errors": [{
                "code": "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                "message": f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.'}]}})
        if len(listed) > 100:
            raise ApiError(400, 50035, "Invalid Form Body", {"allowed_mentions": {kind: {"_errors": [{
                "code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 100 or fewer in length."}]}}})


@dataclass
class _Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# URL redirection
# ---------------------------------------------------------------------------------------------

_active_redirect: list[str] = []


@contextlib.contextmanager
def redirect_discord(rest_base: str, gateway_url: str) -> Iterator[None]:
    """Point discord.py's REST/webhook base and default gateway elsewhere; restore on exit."""
    if _active_redirect:
        raise RuntimeError(f"discord.py is already redirected to {_active_redirect[0]}")
    original_base, original_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    Route.BASE = rest_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    _active_redirect.append(rest_base)
    try:
        yield
    finally:
        Route.BASE = original_base
        DiscordWebSocket.DEFAULT_GATEWAY = original_gateway
        _active_redirect.clear()


# ---------------------------------------------------------------------------------------------
# Gateway connection
# ---------------------------------------------------------------------------------------------


def _zstd_stream() -> Callable[[bytes], bytes]:  # pragma: no cover - only when discord.py has zstd itself
    try:
        import zstandard

        cobj = zstandard.ZstdCompressor().compressobj()
        return lambda data: cobj.compress(data) + cobj.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)
    except ImportError:
        from compression import zstd

        comp = zstd.ZstdCompressor()
        return lambda data: comp.compress(data, mode=zstd.ZstdCompressor.FLUSH_BLOCK)


class GatewaySession:
    """One websocket: transport compression (``compress=zlib-stream`` as discord.py asks, or
    ``zstd-stream``), sequence numbers, and what the client identified with."""

    def __init__(self, ws: web.WebSocketResponse, compress: str | None) -> None:
        self.ws = ws
        self.compress = compress
        self._encode: Callable[[bytes], bytes] | None = None
        if compress == "zlib-stream":
            zctx = zlib.compressobj()
            self._encode = lambda data: zctx.compress(data) + zctx.flush(zlib.Z_SYNC_FLUSH)
        elif compress == "zstd-stream":
            self._encode = _zstd_stream()
        self._lock = asyncio.Lock()
        self.seq = 0
        self.session_id: str | None = None
        self.shard: tuple[int, int] = (0, 1)
        self.intents = 0
        self.identified = False

    async def send(self, op: int, d: Any, t: str | None = None) -> bool:
        async with self._lock:  # compression state and sequence numbers follow send order
            seq = None
            if op == 0:
                self.seq += 1
                seq = self.seq
            text = json.dumps({"op": op, "d": d, "s": seq, "t": t})
            try:
                if self._encode is None:
                    await self.ws.send_str(text)
                else:
                    await self.ws.send_bytes(self._encode(text.encode()))
            except (ConnectionResetError, RuntimeError):
                return False
            return True

    async def close(self, code: int) -> None:
        await self.ws.close(code=code, message=CLOSE_REASONS.get(code, "").encode())

    def wants(self, event: str, guild_id: int | None) -> bool:
        """Discord's routing: a guild's events go to shard (guild_id >> 22) % shards, DMs to shard 0."""
        shard_id, shard_count = self.shard
        if shard_id != ((guild_id >> 22) % shard_count if guild_id is not None else 0):
            return False
        needed = _EVENT_INTENTS.get(event)
        return needed is None or bool(self.intents & needed[0 if guild_id is not None else 1])


# ---------------------------------------------------------------------------------------------
# The stand-in
# ---------------------------------------------------------------------------------------------

RouteHandler = Callable[..., Any]


class DiscordStandIn(DiscordWorld):
    """Discord's gateway and REST API on loopback; see the module docstring."""
    def __init__(
        self,
        *,
        token: str = "standin-bot-token",
        bot: UserSpec | None = None,
        guilds: Sequence[GuildSpec] | None = None,
        application_id: int | None = None,
        shard_count: int = 1,
        heartbeat_interval_ms: int = 5_000,
        privileged_intents_allowed: int = PRIVILEGED_INTENTS,
        echo_own_messages: bool = True,
        interaction_deadline: float | None = INTERACTION_DEADLINE,
        token_lifetime: float = TOKEN_LIFETIME,
        expired_token: tuple[int, int, str] = EXPIRED_TOKEN,
        clock: StandInClock | None = None,
    ) -> None:
        super().__init__(bot=bot, guilds=guilds, application_id=application_id, clock=clock)
        self.token = token
        self.shard_count = shard_count  # what GET /gateway/bot recommends (AutoShardedClient uses it)
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.privileged_intents_allowed = privileged_intents_allowed  # as toggled in the developer portal
        self.echo_own_messages = echo_own_messages
        # seconds (on ``clock``) an interaction may wait for its first callback (Discord: 3); None: no limit
        self.interaction_deadline = interaction_deadline
        self.token_lifetime = token_lifetime  # seconds its token then serves followups and edits (Discord: 15 min)
        self.expired_token = expired_token  # (status, code, message) answered to a token past its lifetime

        self.requests: list[RecordedRequest] = []
        self.identify_payloads: list[Payload] = []
        self.gateway_received: list[Payload] = []  # every op the client sent, heartbeats included
        self.heartbeats = 0
        self.nonce_repeats = 0  # sends answered with the message an earlier one (same nonce) created
        self.undelivered: list[tuple[str, Payload]] = []  # dispatches no session wanted (intents, shard)
        self.attachments: dict[int, bytes] = {}
        self.faults: list[FaultRule] = []
        self.sessions: list[GatewaySession] = []  # open gateway connections
        self.connections: list[GatewaySession] = []  # every gateway connection, closed ones included
        self._resumable: dict[str, GatewaySession] = {}
        # nonce -> (time on ``clock``, message) of the bot's messages sent with enforce_nonce (Create Message)
        self._nonces: dict[str, tuple[float, Payload]] = {}
        self._identify_close_codes: list[int] = []
        self._recorded = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._redirect: contextlib.ExitStack | None = None
        self.port = 0
        self._routes: list[tuple[str, re.Pattern[str], RouteHandler]] = [
            (method, re.compile(pattern), handler) for method, pattern, handler in self._route_table()]

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def rest_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def __aenter__(self) -> DiscordStandIn:
        listener = socket.socket()  # bound here, so the port is ours and known before the URLs are patched
        listener.bind(("127.0.0.1", 0))
        self.port = listener.getsockname()[1]
        self._redirect = contextlib.ExitStack()
        self._redirect.callback(listener.close)
        try:
            self._redirect.enter_context(redirect_discord(self.rest_base, self.gateway_url))
            app = web.Application(client_max_size=64 * 1024 * 1024)
            app.router.add_get("/gateway", self._gateway)
            app.router.add_route("*", r"/api/v{version:\d+}/{tail:.*}", self._rest)
            app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._attachment)
            self._runner = web.AppRunner(app, handle_signals=False)
            await self._runner.setup()
            await web.SockSite(self._runner, listener).start()
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            for session in list(self.sessions):  # a client left running must not reconnect elsewhere
                await session.close(4004)
            if self._runner is not None:
                await self._runner.cleanup()
        finally:
            if self._redirect is not None:
                self._redirect.close()

    # -- test controls ---------------------------------------------------------------------------

    def inject(self, method: str, path: str, fault: Fault, *, times: int | None = 1) -> FaultRule:
        """Answer the next ``times`` (None: all) requests matching ``method`` ("*": any) and the regex
        ``path`` (full match against e.g. ``/channels/123/messages``) with ``fault``."""
        rule = FaultRule(method.upper(), re.compile(path), fault, times)
        self.faults.append(rule)
        return rule

    def clear_faults(self) -> None:
        self.faults.clear()

    def post_offline(self, payload: Payload) -> Payload:
        """A message written while no client is connected: it is in the channel's history (REST), and
        no gateway event ever announces it."""
        self._apply("MESSAGE_CREATE", payload)
        return payload

    async def reset_token(self) -> str:
        """The owner resets the bot token in the developer portal: the old one is refused from now on
        (REST 401, IDENTIFY 4004) and open gateway sessions are closed with 4004."""
        self.token = f"standin-bot-token-{secrets.token_hex(4)}"
        self._resumable.clear()
        for session in list(self.sessions):
            await session.close(4004)
        return self.token

    def close_on_identify(self, code: int) -> None:
        """Close the next IDENTIFY with ``code`` (4004 authentication failed, 4014 disallowed intents ...)."""
        self._identify_close_codes.append(code)

    @property
    def intents(self) -> int:
        """The intents of the latest IDENTIFY."""
        if not self.identify_payloads:
            raise AssertionError("no client has identified")
        return int(self.identify_payloads[-1].get("intents", 0))

    async def close_gateway(self, code: int = 4000) -> None:
        """Close every open gateway connection with ``code`` (4000: the client resumes)."""
        for session in list(self.sessions):
            await session.close(code)

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: discord.py closes and resumes on ``resume_gateway_url``."""
        for session in list(self.sessions):
            await session.send(7, None)

    async def invalidate_session(self, *, resumable: bool = False) -> None:
        """Send op 9 INVALID_SESSION; discord.py then resumes (True) or identifies afresh (False)."""
        for session in list(self.sessions):
            if not resumable and session.session_id:
                self._resumable.pop(session.session_id, None)
            await session.send(9, resumable)

    async def dispatch(self, event: str, payload: Payload) -> int:
        """Send a DISPATCH to every identified session that would get it from Discord (shard of the
        payload's guild, intents; content stripped without MESSAGE_CONTENT) and apply it to the world.
        Returns how many sessions it went to; events nobody got are kept in ``undelivered``."""
        sessions = [s for s in self.sessions if s.identified]
        if not sessions:
            raise RuntimeError(f"cannot dispatch {event}: no client has identified")
        self._apply(event, payload)
        guild_id = _guild_id_of(event, payload)
        delivered = 0
        for session in sessions:
            if not session.wants(event, guild_id):
                continue
            if await session.send(0, self._visible(event, payload, session.intents), event):
                delivered += 1
        if not delivered:
            self.undelivered.append((event, payload))
        return delivered

    def _visible(self, event: str, payload: Payload, intents: int) -> Payload:
        if event == "GUILD_CREATE" and not intents & GUILD_MEMBERS:
            bot_id = str(self.bot_user.id)
            return dict(payload, members=[m for m in payload.get("members", []) if m["user"]["id"] == bot_id])
        if event not in ("MESSAGE_CREATE", "MESSAGE_UPDATE") or intents & MESSAGE_CONTENT:
            return payload
        return self._without_content(payload, in_guild="guild_id" in payload)

    def _without_content(self, payload: Payload, *, in_guild: bool) -> Payload:
        """``developers/events/gateway.mdx``, "Message Content Intent": without it, user-inputted fields
        are empty except in messages the app sends, DMs, and messages mentioning the app. The message a
        reply quotes (``referenced_message``) follows the same rules on its own."""
        if isinstance(ref := payload.get("referenced_message"), dict):
            payload = dict(payload, referenced_message=self._without_content(ref, in_guild=in_guild))
        if not in_guild or payload.get("author", {}).get("id") == str(self.bot_user.id):
            return payload
        if any(u["id"] == str(self.bot_user.id) for u in payload.get("mentions", [])):
            return payload
        stripped = dict(payload, content="", embeds=[], attachments=[], components=[])
        stripped.pop("poll", None)
        return stripped

    async def delete_channel(self, channel: int | ChannelSpec) -> Payload:
        """A moderator deletes a channel or thread: THREAD_DELETE/CHANNEL_DELETE, then 404 10003 on use."""
        found = self.find_channel(channel.id if isinstance(channel, ChannelSpec) else channel)
        if found is None:
            raise KeyError(f"no channel {channel!r}")
        guild, spec = found
        if spec.is_thread:
            payload = {"id": str(spec.id), "guild_id": str(guild.id), "parent_id": str(spec.parent_id),
                       "type": spec.type}
            await self.dispatch("THREAD_DELETE", payload)
        else:
            payload = self.channel_payload(guild, spec)
            await self.dispatch("CHANNEL_DELETE", payload)
        return payload

    async def join_guild(self, guild: GuildSpec) -> None:
        """The bot is added to ``guild``: it joins the world and GUILD_CREATE goes out (discord.py: on_guild_join)."""
        self.guilds.append(guild)
        await self.dispatch("GUILD_CREATE", self.guild_create_payload(guild, joined=True))

    async def remove_from_guild(self, guild: GuildSpec | int) -> None:
        """The bot is kicked from (or leaves) ``guild``: GUILD_DELETE without ``unavailable``."""
        await self.dispatch("GUILD_DELETE", self.guild_delete_payload(guild))

    # -- waiting on recorded requests ----------------------------------------------------------

    def find_requests(self, method: str | None = None, path: str | None = None) -> list[RecordedRequest]:
        """Recorded requests, optionally filtered by method and a regex fully matching the path."""
        pattern = re.compile(path) if path else None
        return [r for r in self.requests if (method is None or r.method == method.upper())
                and (pattern is None or pattern.fullmatch(r.path))]

    async def wait_for_request(self, method: str, path: str, *, timeout: float = 30.0, since: int = 0,
                               predicate: Callable[[RecordedRequest], bool] | None = None) -> RecordedRequest:
        """The first recorded request at index >= ``since`` matching ``method``, the regex ``path`` (full
        match) and ``predicate``, waiting up to ``timeout`` seconds for it. ``since=len(discord_.requests)``
        taken before an action waits for a request made by that action."""
        pattern = re.compile(path)

        def match() -> RecordedRequest | None:
            for request in self.requests[since:]:
                if request.method == method.upper() and pattern.fullmatch(request.path) and (
                        predicate is None or predicate(request)):
                    return request
            return None

        try:
            async with asyncio.timeout(timeout), self._recorded:
                await self._recorded.wait_for(lambda: match() is not None)
        except TimeoutError:
            seen = "\n".join(f"  {r.method} {r.path} -> {r.status}" for r in self.requests[since:]) or "  (none)"
            raise AssertionError(f"no {method} {path} within {timeout}s; requests since {since}:\n{seen}") from None
        found = match()
        assert found is not None
        return found

    # -- gateway -------------------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        session = GatewaySession(ws, request.query.get("compress"))
        self.connections.append(session)
        if request.query.get("encoding", "json") != "json":
            await ws.close(code=4002, message=b"Error while decoding payload.")
            return ws
        self.sessions.append(session)
        try:
            await session.send(10, {"heartbeat_interval": self.heartbeat_interval_ms})
            async for message in ws:
                if message.type is not aiohttp.WSMsgType.TEXT:
                    continue
                await self._on_client_op(session, json.loads(message.data))
        finally:
            self.sessions.remove(session)
        return ws

    async def _on_client_op(self, session: GatewaySession, message: Payload) -> None:
        self.gateway_received.append(message)
        op, data = message.get("op"), message.get("d") or {}
        if op == 1:
            self.heartbeats += 1
            await session.send(11, None)
        elif op == 2:
            await self._identify(session, data)
        elif op == 6:
            await self._resume(session, data)
        elif op == 8:
            await self._request_members(session, data)

    async def _identify(self, session: GatewaySession, data: Payload) -> None:
        self.identify_payloads.append(data)
        intents = int(data.get("intents", 0))
        if data.get("token") != self.token:
            await session.close(4004)
            return
        if self._identify_close_codes:
            await session.close(self._identify_close_codes.pop(0))
            return
        if intents & PRIVILEGED_INTENTS & ~self.privileged_intents_allowed:
            await session.close(4014)
            return
        shard_id, shard_count = data.get("shard") or (0, 1)
        if not 0 <= shard_id < shard_count:
            await session.close(4010)
            return
        session.shard, session.intents = (shard_id, shard_count), intents
        session.session_id = secrets.token_hex(16)
        session.identified = True
        self._resumable[session.session_id] = session
        guilds = [g for g in self.guilds if (g.id >> 22) % shard_count == shard_id]
        ready = {
            "v": 10, "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0,
                              "email": None},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.session_id, "resume_gateway_url": self.gateway_url, "session_type": "normal",
            "shard": [shard_id, shard_count], "private_channels": [], "relationships": [], "presences": [],
            "application": {"id": str(self.application_id), "flags": self._application_flags()},
        }
        await session.send(0, ready, "READY")
        for guild in guilds:
            await session.send(0, self.guild_create_payload(guild, intents=intents), "GUILD_CREATE")

    async def _resume(self, session: GatewaySession, data: Payload) -> None:
        previous = self._resumable.get(str(data.get("session_id")))
        if previous is None or data.get("token") != self.token:
            await session.send(9, False)
            return
        session.shard, session.intents, session.seq = previous.shard, previous.intents, previous.seq
        session.session_id, session.identified = previous.session_id, True
        self._resumable[str(session.session_id)] = session
        await session.send(0, {}, "RESUMED")

    async def _request_members(self, session: GatewaySession, data: Payload) -> None:
        guild = next((g for g in self.guilds if g.id == int(data["guild_id"])), None)
        members = guild.members if guild else []
        if user_ids := data.get("user_ids"):
            wanted = {int(u) for u in (user_ids if isinstance(user_ids, list) else [user_ids])}
            members = [m for m in members if m.user.id in wanted]
        elif query := data.get("query"):
            members = [m for m in members if m.user.username.lower().startswith(query.lower())]
        chunk: Payload = {"guild_id": data["guild_id"], "members": [m.payload() for m in members],
                          "chunk_index": 0, "chunk_count": 1}
        if "nonce" in data:
            chunk["nonce"] = data["nonce"]
        await session.send(0, chunk, "GUILD_MEMBERS_CHUNK")

    def _application_flags(self) -> int:
        flags = 0
        for intent, flag in ((GUILD_PRESENCES, 1 << 13), (GUILD_MEMBERS, 1 << 15), (MESSAGE_CONTENT, 1 << 19)):
            if self.privileged_intents_allowed & intent:
                flags |= flag  # the *_LIMITED flags: allowed while the bot is in < 100 guilds
        return flags

    # -- REST ----------------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        recorded = await _record(request, "/" + request.match_info["tail"])
        try:
            reply = await self._answer(recorded)
        except ApiError as error:
            reply = _Reply(error.status, error.body)
        recorded.status, recorded.response = reply.status, reply.body
        async with self._recorded:
            self.requests.append(recorded)
            self._recorded.notify_all()
        if reply.body is None and reply.status == 200:
            reply.status = recorded.status = 204
        if reply.status == 204:
            return web.Response(status=204, headers=reply.headers)
        # discord.py only decodes a body whose Content-Type is exactly "application/json"
        return web.Response(status=reply.status, body=json.dumps(reply.body).encode(),
                            headers={"Content-Type": "application/json", **reply.headers})

    async def _answer(self, request: RecordedRequest) -> _Reply:
        token_route = request.path.startswith(("/interactions/", "/webhooks/"))
        if not token_route and request.headers.get("Authorization") != f"Bot {self.token}":
            return _Reply(401, Fault.unauthorized().body)
        for rule in self.faults:
            if rule.matches(request.method, request.path):
                if rule.remaining is not None:
                    rule.remaining -= 1
                request.faulted = True
                return _Reply(rule.fault.status, rule.fault.body, dict(rule.fault.headers))
        for method, pattern, handler in self._routes:
            if method == request.method and (match := pattern.fullmatch(request.path)):
                result: _Reply = await handler(request, **match.groupdict())
                return result
        return _Reply(404, {"message": "404: Not Found", "code": 0})

    async def _attachment(self, request: web.Request) -> web.Response:
        data = self.attachments.get(int(request.match_info["attachment_id"]))
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="application/octet-stream")

    def _route_table(self) -> list[tuple[str, str, RouteHandler]]:
        ch, msg, app, tok = r"(?P<channel_id>\d+)", r"(?P<message_id>\d+)", r"(?P<app_id>\d+)", r"(?P<token>[^/]+)"
        return [
            ("GET", r"/gateway/bot", self._get_gateway_bot),
            ("GET", r"/gateway", self._get_gateway),
            ("GET", r"/users/@me", self._get_me),
            ("GET", r"/users/(?P<user_id>\d+)", self._get_user),
            ("DELETE", r"/users/@me/guilds/(?P<guild_id>\d+)", self._leave_guild),
            ("POST", r"/users/@me/channels", self._create_dm),
            ("GET", r"/oauth2/applications/@me", self._get_application),
            ("GET", r"/applications/@me", self._get_application),
            ("PUT", rf"/applications/{app}/commands", self._put_commands),
            ("GET", rf"/applications/{app}/commands", self._get_commands),
            ("PUT", rf"/applications/{app}/guilds/(?P<guild_id>\d+)/commands", self._put_commands),
            ("GET", rf"/applications/{app}/guilds/(?P<guild_id>\d+)/commands", self._get_commands),
            ("GET", r"/guilds/(?P<guild_id>\d+)/members/(?P<user_id>\d+)", self._get_member),
            ("POST", rf"/channels/{ch}/messages", self._post_message),
            ("GET", rf"/channels/{ch}/messages", self._get_messages),
            ("GET", rf"/channels/{ch}/messages/{msg}", self._get_message),
            ("PATCH", rf"/channels/{ch}/messages/{msg}", self._patch_message),
            ("DELETE", rf"/channels/{ch}/messages/{msg}", self._delete_message),
            ("PUT", rf"/channels/{ch}/messages/{msg}/reactions/(?P<emoji>[^/]+)/@me", self._no_content),
            ("DELETE", rf"/channels/{ch}/messages/{msg}/reactions/(?P<emoji>[^/]+)/@me", self._no_content),
            ("POST", rf"/channels/{ch}/typing", self._typing),
            ("POST", rf"/channels/{ch}/threads", self._start_thread),
            ("POST", rf"/channels/{ch}/messages/{msg}/threads", self._start_thread),
            ("PUT", rf"/channels/{ch}/thread-members/(?P<user_id>\d+|@me)", self._add_thread_member),
            ("DELETE", rf"/channels/{ch}/thread-members/(?P<user_id>\d+|@me)", self._remove_thread_member),
            ("GET", rf"/channels/{ch}", self._get_channel),
            ("PATCH", rf"/channels/{ch}", self._patch_channel),
            ("DELETE", rf"/channels/{ch}", self._delete_channel),
            ("POST", rf"/interactions/(?P<interaction_id>\d+)/{tok}/callback", self._interaction_callback),
            ("POST", rf"/webhooks/{app}/{tok}", self._post_followup),
            ("GET", rf"/webhooks/{app}/{tok}/messages/(?P<message_id>\d+|@original)", self._get_webhook_message),
            ("PATCH", rf"/webhooks/{app}/{tok}/messages/(?P<message_id>\d+|@original)", self._patch_webhook_message),
            ("DELETE", rf"/webhooks/{app}/{tok}/messages/(?P<message_id>\d+|@original)",
             self._delete_webhook_message),
        ]

    # REST: identity and application ------------------------------------------------------------

    async def _get_gateway_bot(self, request: RecordedRequest) -> _Reply:
        return _Reply(body={"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": {
            "total": 1000, "remaining": 999, "reset_after": 86_400_000, "max_concurrency": 1}})

    async def _get_gateway(self, request: RecordedRequest) -> _Reply:
        return _Reply(body={"url": self.gateway_url})

    async def _get_me(self, request: RecordedRequest) -> _Reply:
        return _Reply(body={**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0,
                            "locale": "en-US", "email": None, "bio": ""})

    async def _get_user(self, request: RecordedRequest, user_id: str) -> _Reply:
        try:
            return _Reply(body=self.user(int(user_id)).payload())
        except KeyError:
            raise ApiError(404, 10013, "Unknown User") from None

    async def _get_member(self, request: RecordedRequest, guild_id: str, user_id: str) -> _Reply:
        guild = self._guild_or_404(int(guild_id))
        if not guild.has_member(int(user_id)):
            raise ApiError(404, 10007, "Unknown Member")
        return _Reply(body=guild.member(int(user_id)).payload())

    async def _create_dm(self, request: RecordedRequest) -> _Reply:
        try:
            recipient = self.user(int((request.json or {}).get("recipient_id", 0)))
        except (KeyError, ValueError):
            raise _form_error("recipient_id", "BASE_TYPE_REQUIRED", "This field is required") from None
        channel_id = self.dm_channel_id(recipient)
        return _Reply(body={"id": str(channel_id), "type": DM, "last_message_id": None,
                            "recipients": [recipient.payload()]})

    async def _leave_guild(self, request: RecordedRequest, guild_id: str) -> _Reply:
        guild = self._guild_or_404(int(guild_id))
        if self.sessions:
            await self.remove_from_guild(guild)
        else:
            self.guilds.remove(guild)
        return _Reply(204)

    async def _get_application(self, request: RecordedRequest) -> _Reply:
        owner = self.user(self.guilds[0].owner_id) if self.guilds else self.bot_user
        return _Reply(body={
            "id": str(self.application_id), "name": self.bot_user.username, "icon": None,
            "description": "Heyan test application", "summary": "", "verify_key": "0" * 64, "type": None,
            "bot_public": True, "bot_require_code_grant": False, "owner": owner.payload(),
            "flags": self._application_flags(), "interactions_endpoint_url": None, "redirect_uris": [],
            "tags": [], "bot": self.bot_user.payload(), "install_params": {"scopes": ["bot", "applications.commands"],
                                                                           "permissions": str(BOT_PERMISSIONS)},
        })

    async def _put_commands(self, request: RecordedRequest, app_id: str, guild_id: str | None = None) -> _Reply:
        scope = int(guild_id) if guild_id else None
        if scope is not None:
            self._guild_or_404(scope)
        previous = {(c["name"], c.get("type", 1)): c for c in self.commands.get(scope, [])}
        synced = []
        for command in request.json or []:
            old = previous.get((command["name"], command.get("type", 1)))
            entry = {"default_member_permissions": None, "type": 1, "nsfw": False, "description": "",
                     "options": [], **command, "id": old["id"] if old else str(self.ids.next()),
                     "application_id": app_id, "version": str(self.ids.next())}
            if scope is not None:
                entry["guild_id"] = str(scope)
            synced.append(entry)
        self.commands[scope] = synced
        return _Reply(body=synced)

    async def _get_commands(self, request: RecordedRequest, app_id: str, guild_id: str | None = None) -> _Reply:
        return _Reply(body=self.commands.get(int(guild_id) if guild_id else None, []))

    # REST: channels, messages, threads ------------------------------------------------------------

    def _guild_or_404(self, guild_id: int) -> GuildSpec:
        guild = next((g for g in self.guilds if g.id == guild_id), None)
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    def _channel_or_404(self, channel_id: int) -> tuple[GuildSpec | None, ChannelSpec | None]:
        if channel_id in self.dm_channels:
            return None, None
        found = self.find_channel(channel_id)
        if found is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return found

    def _message_or_404(self, channel_id: int, message_id: int) -> Payload:
        message = self.messages.get(message_id)
        if message is None or int(message["channel_id"]) != channel_id:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    def _files_to_attachments(self, request: RecordedRequest, channel_id: int, body: Payload) -> list[Payload]:
        described = {int(a["id"]): a for a in body.get("attachments") or [] if "id" in a}
        attachments = []
        for index, file in enumerate(f for f in request.files if f.field.startswith("files[")):
            attachment_id = self.ids.next()
            self.attachments[attachment_id] = file.data
            url = f"{self.base_url}/attachments/{channel_id}/{attachment_id}/{file.filename}"
            attachment: Payload = {"id": str(attachment_id), "filename": file.filename, "size": len(file.data),
                                   "url": url, "proxy_url": url, "content_type": file.content_type}
            if description := described.get(index, {}).get("description"):
                attachment["description"] = description
            attachments.append(attachment)
        return attachments

    def _bot_message(self, request: RecordedRequest, channel_id: int, guild: GuildSpec | None, *,
                     flags: int = 0, extra: Payload | None = None, body: Payload | None = None,
                     allow_empty: bool = False, webhook: bool = False) -> Payload:
        """A message the bot sends: validated like Discord, mentions filtered by ``allowed_mentions``."""
        body = body if body is not None else (request.json or {})
        content = body.get("content") or ""
        attachments = self._files_to_attachments(request, channel_id, body)
        _check_limits(body)
        if not allow_empty and not (content or body.get("embeds") or attachments or body.get("components") or body.get("sticker_ids")
                or body.get("poll")):
            raise ApiError(400, 50006, "Cannot send an empty message")
        referenced = None
        if (reference := body.get("message_reference")) is not None:
            # a reply's message must exist in the channel named (the current one when absent) and not be
            # a system message ("Create Message" > Limitations; "Message Reference Structure")
            referenced = self.messages.get(int(reference["message_id"]))
            where = int(reference.get("channel_id") or channel_id)
            if referenced is not None and (int(referenced["channel_id"]) != where
                                           or int(referenced.get("type") or 0) not in _REPLYABLE_TYPES):
                referenced = None
            if referenced is None and reference.get("fail_if_not_exists", True):
                raise _form_error("message_reference", "REPLIES_UNKNOWN_MESSAGE", "Unknown message")
        users, roles, everyone = self._allowed_mentions(guild, channel_id, content, body.get("allowed_mentions"),
                                                        referenced, webhook=webhook)
        return self._message(
            channel_id=channel_id, guild=guild, author=self.bot_user, content=content, mentions=users,
            mention_roles=roles, mention_everyone=everyone, referenced=referenced, embeds=body.get("embeds") or [],
            attachments=attachments, components=body.get("components") or [],
            flags=flags | int(body.get("flags") or 0), tts=bool(body.get("tts")), extra=extra)

    def _allowed_mentions(self, guild: GuildSpec | None, channel_id: int, content: str, allowed: Payload | None,
                          referenced: Payload | None, *, webhook: bool = False) -> tuple[list[UserSpec], list[int], bool]:
        """Who a message pings (``developers/resources/message.mdx``, "Allowed Mentions Object"): without
        ``allowed_mentions`` a regular message parses everything, an interaction's or webhook's only users;
        ``parse`` naming a type excludes a list of that type (400 / 50035); lists hold at most 100 ids."""
        if allowed is not None:
            _check_allowed_mentions(allowed)
        default = {"users"} if webhook else {"users", "roles", "everyone"}
        parse = set(allowed.get("parse", [])) if allowed is not None else default
        listed_users = {int(u) for u in (allowed or {}).get("users", [])}
        listed_roles = {int(r) for r in (allowed or {}).get("roles", [])}
        users, roles = self._content_mentions(guild, content)
        users = [u for u in users if "users" in parse or u.id in listed_users]
        roles = [r for r in roles if "roles" in parse or r in listed_roles]
        if referenced is not None and (allowed is None or allowed.get("replied_user")):
            with contextlib.suppress(KeyError):
                users.append(self.user(int(referenced["author"]["id"])))
        everyone = "everyone" in parse and ("@everyone" in content or "@here" in content) and (
            guild is None or bool(guild.permissions_for(self.bot_user.id, channel_id) & MENTION_EVERYONE))
        return users, roles, everyone

    async def _echo(self, event: str, payload: Payload) -> None:
        """Discord sends the bot its own messages too; keep the world in step either way."""
        if self.echo_own_messages and any(s.identified for s in self.sessions):
            await self.dispatch(event, payload)
        else:
            self._apply(event, payload)

    async def _post_message(self, request: RecordedRequest, channel_id: str) -> _Reply:
        guild, channel = self._channel_or_404(int(channel_id))
        body = request.json or {}
        nonce = str(body["nonce"]) if body.get("nonce") is not None else None
        if nonce is not None and len(nonce) > 25:
            raise _form_error("nonce", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        # enforce_nonce: "checked for uniqueness in the past few minutes. If another message was created by
        # the same author with the same nonce, that message will be returned and no new message created"
        if nonce is not None and body.get("enforce_nonce"):
            seen = self._nonces.get(nonce)  # the author is the bot
            if seen is not None and self.clock.now() - seen[0] < NONCE_WINDOW_SECONDS:
                self.nonce_repeats += 1
                return _Reply(body=seen[1])
        if guild is not None and channel is not None:
            # "Create Message" > Limitations: Send Messages in a channel (Send Messages in Threads in a
            # thread: ``developers/topics/threads.mdx``), Read Message History for a reply
            self._require(guild, channel, SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES)
            if body.get("message_reference") is not None:
                self._require(guild, channel, READ_MESSAGE_HISTORY)
        if channel is not None and channel.is_thread and channel.archived:
            if channel.locked:
                raise ApiError(400, 50083, "Operation cannot be performed on an archived thread")
            channel.archived = False  # a message unarchives an unlocked thread
            await self._echo("THREAD_UPDATE", self.channel_payload(guild, channel))  # type: ignore[arg-type]
        message = self._bot_message(request, int(channel_id), guild)
        if nonce is not None:
            message["nonce"] = nonce
            if body.get("enforce_nonce"):
                self._nonces[nonce] = (self.clock.now(), message)
        await self._echo("MESSAGE_CREATE", message)
        return _Reply(body=message)

    def _require(self, guild: GuildSpec, channel: ChannelSpec, permission: int, *, missing_access: bool = False) -> None:
        """403 as Discord answers a bot without ``permission`` in ``channel`` (50001 Missing Access when
        it cannot see the channel at all, else 50013 Missing Permissions)."""
        perms = guild.permissions_for(self.bot_user.id, channel.id)
        if not perms & VIEW_CHANNEL or (channel.type == PRIVATE_THREAD and self.bot_user.id not in channel.member_ids
                                         and not perms & MANAGE_THREADS):
            raise ApiError(403, 50001, "Missing Access")
        if not perms & permission:
            raise (ApiError(403, 50001, "Missing Access") if missing_access
                   else ApiError(403, 50013, "Missing Permissions"))

    def readable_by_app(self, message: Payload) -> Payload:
        """A message as a REST read returns it: without the Message Content intent allowed for the
        application, guild messages that neither the bot wrote nor mention it have no content."""
        return self._visible("MESSAGE_CREATE", message, self.privileged_intents_allowed & MESSAGE_CONTENT)

    async def _get_messages(self, request: RecordedRequest, channel_id: str) -> _Reply:
        """GET /channels/{id}/messages: newest first, ``limit`` 1-100 (default 50), one of ``before`` /
        ``after`` / ``around``; View Channel needed (403 50001), and without Read Message History the
        answer is empty (as documented)."""
        guild, channel = self._channel_or_404(int(channel_id))
        query = request.query
        try:
            limit = int(query.get("limit", "50"))
        except ValueError:
            raise _form_error("limit", "NUMBER_TYPE_COERCE", "Value is not int.") from None
        if limit < 1:
            raise _form_error("limit", "NUMBER_TYPE_MIN", "int value should be greater than or equal to 1.")
        if limit > 100:
            raise _form_error("limit", "NUMBER_TYPE_MAX", "int value should be less than or equal to 100.")
        anchors = [k for k in ("before", "after", "around") if k in query]
        if len(anchors) > 1:
            raise _form_error(anchors[1], "BASE_TYPE_BAD_REQUEST", "before, after and around are mutually exclusive.")
        if guild is not None and channel is not None:
            self._require(guild, channel, VIEW_CHANNEL, missing_access=True)
            if not guild.permissions_for(self.bot_user.id, channel.id) & READ_MESSAGE_HISTORY:
                return _Reply(body=[])
        cid = int(channel_id)
        held = sorted((m for m in self.messages.values()
                       if int(m["channel_id"]) == cid and not int(m.get("flags") or 0) & EPHEMERAL),
                      key=lambda m: int(m["id"]))
        if "after" in query:
            picked = [m for m in held if int(m["id"]) > int(query["after"])][:limit]
        elif "around" in query:
            pivot = int(query["around"])
            older = [m for m in held if int(m["id"]) < pivot]
            rest = [m for m in held if int(m["id"]) >= pivot]
            picked = older[-(limit // 2):] if limit // 2 else []
            picked += rest[: limit - len(picked)]
        else:
            if "before" in query:
                held = [m for m in held if int(m["id"]) < int(query["before"])]
            picked = held[-limit:]
        return _Reply(body=[self.readable_by_app(m) for m in reversed(picked)])

    async def _get_message(self, request: RecordedRequest, channel_id: str, message_id: str) -> _Reply:
        self._channel_or_404(int(channel_id))
        return _Reply(body=self._message_or_404(int(channel_id), int(message_id)))

    async def _patch_message(self, request: RecordedRequest, channel_id: str, message_id: str) -> _Reply:
        self._channel_or_404(int(channel_id))
        message = self._edit(self._message_or_404(int(channel_id), int(message_id)), request.json or {}, request)
        await self._echo("MESSAGE_UPDATE", message)
        return _Reply(body=message)

    def _edit(self, message: Payload, body: Payload, request: RecordedRequest) -> Payload:
        edited = copy.deepcopy(message)
        for key in ("content", "embeds", "components", "flags"):
            if key in body and body[key] is not None:
                edited[key] = body[key]
        if "content" in body:
            guild = self._guild_of(message)
            users, roles, everyone = self._allowed_mentions(guild, int(message["channel_id"]), edited["content"],
                                                            body.get("allowed_mentions"), None)
            edited.update(mentions=[self._mentioned_user(guild, u) for u in unique_users(users)],
                          mention_roles=[str(r) for r in roles], mention_everyone=everyone)
        if new_files := self._files_to_attachments(request, int(message["channel_id"]), body):
            edited["attachments"] = [*edited.get("attachments", []), *new_files]
        _check_limits(edited)
        edited["flags"] = int(edited.get("flags", 0)) & ~LOADING
        edited["edited_timestamp"] = now_iso()
        self.messages[int(edited["id"])] = edited
        return edited

    async def _delete_message(self, request: RecordedRequest, channel_id: str, message_id: str) -> _Reply:
        self._channel_or_404(int(channel_id))
        message = self._message_or_404(int(channel_id), int(message_id))
        await self._echo("MESSAGE_DELETE", self.message_delete_payload(message))
        return _Reply(204)

    async def _no_content(self, request: RecordedRequest, **params: str) -> _Reply:
        self._channel_or_404(int(params["channel_id"]))
        return _Reply(204)

    async def _typing(self, request: RecordedRequest, channel_id: str) -> _Reply:
        self._channel_or_404(int(channel_id))
        return _Reply(204)

    async def _start_thread(self, request: RecordedRequest, channel_id: str, message_id: str | None = None) -> _Reply:
        guild, parent = self._channel_or_404(int(channel_id))
        if guild is None or parent is None or parent.type not in (GUILD_TEXT, GUILD_NEWS):
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        body = request.json or {}
        if message_id is not None:
            source = self._message_or_404(int(channel_id), int(message_id))
            if any(c.id == int(message_id) for c in guild.channels):
                raise ApiError(400, 160004, "A thread has already been created for this message")
            thread_type = NEWS_THREAD if parent.type == GUILD_NEWS else PUBLIC_THREAD
            thread_id = int(source["id"])  # a thread started from a message shares the message's id
        else:
            thread_type = int(body.get("type") or PRIVATE_THREAD)  # "currently defaults to PRIVATE_THREAD"
            thread_id = self.ids.next()
            # "Channel Types": an ANNOUNCEMENT_THREAD is within a GUILD_ANNOUNCEMENT channel, a PUBLIC or
            # PRIVATE_THREAD within a GUILD_TEXT channel
            fits = (NEWS_THREAD,) if parent.type == GUILD_NEWS else (PUBLIC_THREAD, PRIVATE_THREAD)
            if thread_type not in fits:
                raise _form_error("type", "BASE_TYPE_CHOICES", f"Value must be one of {fits}.")
        if thread_type not in THREAD_TYPES:
            raise _form_error("type", "BASE_TYPE_CHOICES", f"Value must be one of {THREAD_TYPES}.")
        # ``developers/resources/channel.mdx``, "Start Thread from Message" / "without Message": a name of
        # 1-100 characters; auto_archive_duration one of 60, 1440, 4320, 10080
        name = body.get("name")
        if not isinstance(name, str) or not name.strip():
            raise _form_error("name", "BASE_TYPE_REQUIRED", "This field is required")
        if len(name) > 100:
            raise _form_error("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        if body.get("auto_archive_duration") is not None and int(body["auto_archive_duration"]) not in _ARCHIVE_MINUTES:
            raise _form_error("auto_archive_duration", "BASE_TYPE_CHOICES",
                              f"Value must be one of {_ARCHIVE_MINUTES}.")
        self._require(guild, parent, CREATE_PRIVATE_THREADS if thread_type == PRIVATE_THREAD else CREATE_PUBLIC_THREADS)
        thread = ChannelSpec(
            thread_id, str(body.get("name", "thread")), thread_type, parent_id=parent.id, owner_id=self.bot_user.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440), member_ids={self.bot_user.id},
            invitable=bool(body.get("invitable", True)))
        guild.channels.append(thread)
        await self._echo("THREAD_CREATE", self.thread_create_payload(thread))
        return _Reply(201, self.channel_payload(guild, thread))

    def _thread_or_404(self, channel_id: str) -> tuple[GuildSpec, ChannelSpec]:
        guild, thread = self._channel_or_404(int(channel_id))
        if guild is None or thread is None or not thread.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        return guild, thread

    async def _add_thread_member(self, request: RecordedRequest, channel_id: str, user_id: str) -> _Reply:
        guild, thread = self._thread_or_404(channel_id)
        member_id = self.bot_user.id if user_id == "@me" else int(user_id)
        if not guild.has_member(member_id):
            raise ApiError(404, 10007, "Unknown Member")
        if thread.archived and thread.locked:
            raise ApiError(400, 50083, "Operation cannot be performed on an archived thread")
        thread.member_ids.add(member_id)
        return _Reply(204)

    async def _remove_thread_member(self, request: RecordedRequest, channel_id: str, user_id: str) -> _Reply:
        _, thread = self._thread_or_404(channel_id)
        thread.member_ids.discard(self.bot_user.id if user_id == "@me" else int(user_id))
        return _Reply(204)

    async def _get_channel(self, request: RecordedRequest, channel_id: str) -> _Reply:
        guild, channel = self._channel_or_404(int(channel_id))
        if guild is None or channel is None:
            recipient = self.dm_channels[int(channel_id)]
            return _Reply(body={"id": channel_id, "type": DM, "last_message_id": None,
                                "recipients": [recipient.payload()]})
        return _Reply(body=self.channel_payload(guild, channel))

    async def _patch_channel(self, request: RecordedRequest, channel_id: str) -> _Reply:
        guild, channel = self._channel_or_404(int(channel_id))
        if guild is None or channel is None:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        body = request.json or {}
        editing_archived = channel.is_thread and channel.archived and body.get("archived") is not False
        if editing_archived and set(body) - {"archived", "locked"}:
            raise ApiError(400, 50083, "Operation cannot be performed on an archived thread")
        for key in ("name", "topic", "archived", "locked", "invitable", "auto_archive_duration", "position"):
            if key in body and body[key] is not None:
                setattr(channel, key, body[key])
        if "archived" in body:
            channel.archive_timestamp = now_iso()
        payload = self.channel_payload(guild, channel)
        await self._echo("THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE", payload)
        return _Reply(body=payload)

    async def _delete_channel(self, request: RecordedRequest, channel_id: str) -> _Reply:
        guild, channel = self._channel_or_404(int(channel_id))
        if guild is None or channel is None:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        self._require(guild, channel, MANAGE_THREADS if channel.is_thread else MANAGE_CHANNELS)
        payload = self.channel_payload(guild, channel)
        if any(s.identified for s in self.sessions):
            await self.delete_channel(channel)
        else:
            guild.channels.remove(channel)
        return _Reply(body=payload)

    # REST: interactions and their webhooks ---------------------------------------------------------

    def _interaction_or_404(self, interaction_id: int, token: str) -> InteractionRecord:
        record = self.interactions.get(interaction_id)
        if record is None or record.token != token:
            raise ApiError(404, 10062, "Unknown interaction")
        return record

    def _webhook_or_404(self, app_id: str, token: str) -> InteractionRecord:
        record = next((r for r in self.interactions.values() if r.token == token), None)
        if record is None or int(app_id) != self.application_id or record.callback_type is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        started = record.dispatched_at
        if started is not None and self.clock.now() - started >= self.token_lifetime:
            raise ApiError(*self.expired_token)  # the token lived its 15 minutes
        return record

    def _interaction_message(self, record: InteractionRecord, request: RecordedRequest, body: Payload, *,
                             allow_empty: bool = False) -> Payload:
        guild = next((g for g in self.guilds if g.id == record.guild_id), None)
        owner = record.guild_id or self.application_id
        extra: Payload = {
            "webhook_id": str(self.application_id), "application_id": str(self.application_id),
            "interaction_metadata": {"id": str(record.id), "type": record.type, "user": record.user.payload(),
                                     "authorizing_integration_owners": {"0": str(owner)}},
        }
        return self._bot_message(request, record.channel_id, guild, extra=extra, body=body, allow_empty=allow_empty,
                                 webhook=True)

    async def _publish(self, event: str, message: Payload) -> None:
        """Ephemeral messages exist only for the interaction's user: stored here, never sent to the bot."""
        if int(message.get("flags") or 0) & EPHEMERAL:
            if event == "MESSAGE_DELETE":
                self.messages.pop(int(message["id"]), None)
            else:
                self.messages[int(message["id"])] = message
        else:
            await self._echo(event, self.message_delete_payload(message) if event == "MESSAGE_DELETE" else message)

    async def _interaction_callback(self, request: RecordedRequest, interaction_id: str, token: str) -> _Reply:
        record = self._interaction_or_404(int(interaction_id), token)
        started = record.dispatched_at
        if self.interaction_deadline is not None and started is not None and (
                self.clock.now() - started >= self.interaction_deadline):
            raise ApiError(404, 10062, "Unknown interaction")
        if record.callback_type is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        body = request.json or {}
        kind, data = int(body.get("type", 0)), body.get("data") or {}
        allowed = {2: {4, 5, 9}, 4: {8}, 3: {4, 5, 6, 7, 9}, 5: {4, 5, 6, 7}}.get(record.type, set())
        if kind not in allowed:
            raise _form_error("type", "INTERACTION_RESPONSE_TYPE_INVALID",
                              f"Callback type {kind} is not valid for interaction type {record.type}.")
        if (errors := callback_errors(kind, data)) is not None:
            raise ApiError(400, 50035, "Invalid Form Body", errors)
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        message: Payload | None = None
        if kind == 4:  # CHANNEL_MESSAGE_WITH_SOURCE
            message = record.original = self._interaction_message(record, request, data)
            await self._publish("MESSAGE_CREATE", message)
        elif kind == 5:  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: a "thinking" placeholder
            loading = {"flags": LOADING | (EPHEMERAL if ephemeral else 0)}
            record.original = self._interaction_message(record, request, loading, allow_empty=True)
            await self._publish("MESSAGE_CREATE", record.original)
        elif kind == 7:  # UPDATE_MESSAGE: edits the message the component is on
            if record.message is None:
                raise _form_error("type", "INTERACTION_RESPONSE_TYPE_INVALID", "No message to update.")
            current = self.messages.get(int(record.message["id"]), record.message)
            message = record.original = self._edit(current, data, request)
            await self._publish("MESSAGE_UPDATE", message)
        elif kind == 6:  # DEFERRED_UPDATE_MESSAGE: no visible change; @original is the component's message
            if record.message is None:
                raise _form_error("type", "INTERACTION_RESPONSE_TYPE_INVALID", "No message to update.")
            record.original = self.messages.get(int(record.message["id"]), record.message)
        record.callback_type, record.callback_data = kind, data
        if request.query.get("with_response") not in ("1", "true", "True"):
            return _Reply(204)
        interaction: Payload = {"id": interaction_id, "type": record.type}
        if kind in (4, 5):
            assert record.original is not None
            interaction.update(response_message_id=record.original["id"], response_message_loading=kind == 5,
                               response_message_ephemeral=ephemeral)
        resource: Payload = {"type": kind}
        if message is not None:
            resource["message"] = message
        return _Reply(200, {"interaction": interaction, "resource": resource})

    async def _post_followup(self, request: RecordedRequest, app_id: str, token: str) -> _Reply:
        record = self._webhook_or_404(app_id, token)
        body = request.json or {}
        if record.loading and record.original is not None:
            # the first followup after a "thinking" defer completes the placeholder and keeps its ephemerality
            keep = int(record.original["flags"]) & EPHEMERAL
            message = self._interaction_message(record, request, {**body, "flags": keep})
            message.update(id=record.original["id"], timestamp=record.original["timestamp"],
                           edited_timestamp=now_iso())
            record.original = message
            await self._publish("MESSAGE_UPDATE", message)
        else:
            message = self._interaction_message(record, request, body)
            record.followups.append(message)
            await self._publish("MESSAGE_CREATE", message)
        # "Create Followup Message": functions the same as Execute Webhook, "but `wait` is always true"
        return _Reply(200, message)

    def _webhook_message(self, record: InteractionRecord, message_id: str) -> Payload:
        if message_id == "@original":
            if record.original is None:
                raise ApiError(404, 10008, "Unknown Message")
            return record.original
        message = next((m for m in record.followups if m["id"] == message_id), None)
        if message is None:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    async def _get_webhook_message(self, request: RecordedRequest, app_id: str, token: str,
                                   message_id: str) -> _Reply:
        return _Reply(body=self._webhook_message(self._webhook_or_404(app_id, token), message_id))

    async def _patch_webhook_message(self, request: RecordedRequest, app_id: str, token: str,
                                     message_id: str) -> _Reply:
        record = self._webhook_or_404(app_id, token)
        old = self._webhook_message(record, message_id)
        edited = self._edit(old, request.json or {}, request)
        if message_id == "@original":
            record.original = edited
        else:
            record.followups = [edited if m["id"] == old["id"] else m for m in record.followups]
        await self._publish("MESSAGE_UPDATE", edited)
        return _Reply(body=edited)

    async def _delete_webhook_message(self, request: RecordedRequest, app_id: str, token: str,
                                      message_id: str) -> _Reply:
        record = self._webhook_or_404(app_id, token)
        message = self._webhook_message(record, message_id)
        if message_id == "@original":
            record.original = None
        else:
            record.followups.remove(message)
        await self._publish("MESSAGE_DELETE", message)
        return _Reply(204)


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------

def _guild_id_of(event: str, payload: Payload) -> int | None:
    if event.startswith("GUILD_") and event not in ("GUILD_MEMBERS_CHUNK",) and "guild_id" not in payload:
        return int(payload["id"])
    return int(payload["guild_id"]) if payload.get("guild_id") else None


async def _record(request: web.Request, path: str) -> RecordedRequest:
    recorded = RecordedRequest(request.method, path, dict(request.query), dict(request.headers), None)
    if request.content_type == "multipart/form-data":
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if not isinstance(part, aiohttp.BodyPartReader):
                continue
            data = await part.read()
            if part.name == "payload_json":
                recorded.json = json.loads(data)
            else:
                content_type = part.headers.get("Content-Type", "application/octet-stream")
                recorded.files.append(RecordedFile(part.name or "", part.filename, content_type, bytes(data)))
    elif request.can_read_body:
        raw = await request.read()
        if raw:
            try:
                recorded.json = json.loads(raw)
            except ValueError:
                recorded.json = raw.decode(errors="replace")
    return recorded


async def wait_until(predicate: Callable[[], object], *, timeout: float = 30.0, interval: float = 0.02,
                     what: str = "condition") -> None:
    """Poll ``predicate`` until it is truthy; AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not met within {timeout}s")
        await asyncio.sleep(interval)


@contextlib.asynccontextmanager
async def run_client(client: discord.Client, token: str, *, timeout: float = 30.0) -> AsyncIterator[asyncio.Task[None]]:
    """Run ``client.start(token)`` in a task until the client is ready and every guild is available;
    on exit close it and await the task. If start-up fails first, its exception is raised here."""
    task = asyncio.create_task(client.start(token), name="discord-standin-client")
    try:
        deadline = time.monotonic() + timeout
        while not (client.is_ready() and not any(g.unavailable for g in client.guilds)):
            if task.done():
                task.result()
                raise AssertionError("client.start() returned before the client became ready")
            if time.monotonic() > deadline:
                raise AssertionError(f"client not ready within {timeout}s")
            await asyncio.sleep(0.02)
        yield task
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(task, timeout)
