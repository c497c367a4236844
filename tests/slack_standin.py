"""An offline stand-in for Slack, for tests of a real slack-bolt ``AsyncApp`` (HTTP mode and Socket Mode).

What it is
----------
* ``SlackStandIn``: an aiohttp server on 127.0.0.1 (free port) playing Slack's side of the wire.

  - The Web API at ``slack.api_url`` (give it to ``AsyncWebClient(base_url=...)``) answers the methods in
    ``SlackStandIn.METHODS`` from a small configurable workspace (users, channels of the four kinds, user
    groups, granted scopes), checks the bearer token and the scopes, keeps posted messages, views and
    uploads, and records every call (``slack.calls``; ``await slack.wait_for_call(method)``).
  - Faults on demand per method: ``slack.fail(method, error, **extra)`` (``{"ok": false, ...}``) and
    ``slack.rate_limit(method, retry_after=...)`` (HTTP 429 with ``Retry-After``).
  - ``response_url`` endpoints (``slack.response_url()``) and the upload URLs of ``files_upload_v2``.
  - A Socket Mode server behind ``apps.connections.open``: it says ``hello``, sends envelopes
    (``slack.socket_event`` / ``socket_command`` / ``socket_interaction``) and collects the acks.
* ``PayloadFactory`` (``slack.payloads``): Events API envelopes and events, slash-command forms and
  interactivity payloads shaped like Slack's, with ids and timestamps that fit the stand-in's workspace.
* ``SlackSender`` (``slack.sender(url, signing_secret)``): signs (``X-Slack-Signature``,
  ``X-Slack-Request-Timestamp``) and POSTs those payloads to a bolt HTTP endpoint, with retry headers
  and tampering (bad signature, stale timestamp, unsigned) on demand.
* ``serve_bolt_app(app)``: serves an ``AsyncApp`` with uvicorn through bolt's ASGI adapter on a free
  loopback port for the duration of an ``async with``.

What it is not
--------------
Not a Slack emulator. Users and channels are shared by every workspace (``add_workspace``; OAuth
installs through ``approve`` + ``oauth.v2.access``, ``uninstall`` revokes); no rate-limit tiers (429
only when injected); no events of its own (posting a message does not emit a ``message`` event:
tests send events explicitly — but the messages events are about are kept, so
``conversations.history`` / ``replies`` read them back: ``tests/slack_standin_more.py``). What it does check as Slack does: ``response_url`` uses (5 within
30 minutes of the stand-in's clock, then a 404), Block Kit limits
(``tests/slack_blockkit.py``: ``invalid_blocks`` for messages and response URLs, ``invalid_arguments``
for views), message length (``msg_too_long``), trigger_ids (valid ``TRIGGER_SECONDS`` by the stand-in's
own clock — ``advance`` moves it, nobody sleeps — and once: ``expired_trigger_id`` /
``exchanged_trigger_id``), tokens (``invalid_auth``, ``token_revoked``, ``account_inactive`` after
``uninstall``), scopes (``missing_scope`` with
``needed`` / ``provided``), membership (``not_in_channel``). Unknown methods answer ``unknown_method``
so a test notices.

Usage::

    async with SlackStandIn() as slack:
        app = AsyncApp(signing_secret=SECRET,
                       client=AsyncWebClient(token=slack.workspace.bot_token, base_url=slack.api_url))
        ...register listeners...
        async with serve_bolt_app(app) as served:
            sender = slack.sender(served.events_url, SECRET)
            reply = await sender.event(slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="hi"))
            call = await slack.wait_for_call("chat.postMessage")

Set no ``HTTP(S)_PROXY`` in tests: slack_sdk picks it up from the environment and would route loopback
traffic through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeVar
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import aiohttp
import uvicorn
from aiohttp import web
from slack_bolt.adapter.asgi.async_handler import AsyncSlackRequestHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.signature import SignatureVerifier

from tests.slack_blockkit import TEXT_LIMIT, problems, view_problems
from tests.slack_standin_more import ApiError, StandInMore

__all__ = [
    "ALICE",
    "BOB",
    "CAROL",
    "DEFAULT_SCOPES",
    "DM_ALICE",
    "FILE_UPLOAD",
    "GENERAL",
    "GROUP_DM",
    "MODERATORS",
    "MODS",
    "RESPONSE_URL",
    "ChannelKind",
    "Fault",
    "PayloadFactory",
    "RecordedCall",
    "ServedApp",
    "SlackChannel",
    "SlackReply",
    "SlackSender",
    "SlackStandIn",
    "SlackUser",
    "SlackUserGroup",
    "SlackWorkspace",
    "Tamper",
    "serve_bolt_app",
]

# Pseudo-method names under which the non-Web-API endpoints are recorded.
RESPONSE_URL = "response_url"
FILE_UPLOAD = "file_upload"

DEFAULT_SCOPES: tuple[str, ...] = (
    "app_mentions:read",
    "channels:history",
    "channels:read",
    "chat:write",
    "commands",
    "files:write",
    "groups:history",
    "groups:read",
    "im:history",
    "im:read",
    "im:write",
    "mpim:history",
    "mpim:read",
    "usergroups:read",
    "users:read",
)

# The seeded workspace (``SlackStandIn(seed=True)``, the default).
ALICE = "U0ALICE001"
BOB = "U0BOB00001"
CAROL = "U0CAROL001"
GENERAL = "C0GENERAL1"
MODS = "C0MODS0001"
DM_ALICE = "D0ALICE001"
GROUP_DM = "G0MPIM0001"
MODERATORS = "S0MODS0001"

ChannelKind = Literal["public", "private", "im", "mpim"]
Tamper = Literal["bad_signature", "stale_timestamp", "unsigned"]

_CHANNEL_TYPE: dict[str, str] = {"public": "channel", "private": "group", "im": "im", "mpim": "mpim"}
_SCOPE_PREFIX: dict[str, str] = {"public": "channels", "private": "groups", "im": "im", "mpim": "mpim"}
_METHOD_SCOPES: dict[str, str] = {
    "chat.postMessage": "chat:write",
    "chat.postEphemeral": "chat:write",
    "chat.update": "chat:write",
    "chat.delete": "chat:write",
    "users.info": "users:read",
    "usergroups.users.list": "usergroups:read",
    "files.getUploadURLExternal": "files:write",
    "files.completeUploadExternal": "files:write",
    "conversations.open": "im:write",
    "usergroups.list": "usergroups:read",
}
_SLACK_ID = re.compile(r"<@([A-Z0-9]+)>")
_T = TypeVar("_T")


# --------------------------------------------------------------------------------------------------
# The workspace
# --------------------------------------------------------------------------------------------------


@dataclass
class SlackWorkspace:
    """The team the bot is installed in, its tokens and its granted bot scopes."""

    team_id: str = "T0HEYAN001"
    team_domain: str = "heyan-test"
    team_name: str = "Heyan Test"
    enterprise_id: str | None = None
    enterprise_name: str = "Heyan Org"
    app_id: str = "A0HEYAN001"
    bot_user_id: str = "U0HEYANBOT"
    bot_id: str = "B0HEYAN001"
    bot_name: str = "heyan"
    bot_token: str = "xoxb-1-heyan-standin"
    app_token: str = "xapp-1-A0HEYAN001-standin"
    verification_token: str = "standin-verification-token"
    scopes: list[str] = field(default_factory=lambda: list(DEFAULT_SCOPES))


@dataclass
class SlackUser:
    id: str
    name: str
    real_name: str = ""
    display_name: str = ""
    tz: str = "UTC"
    locale: str = "en-US"
    is_admin: bool = False
    is_owner: bool = False
    is_primary_owner: bool = False
    is_bot: bool = False
    deleted: bool = False

    def to_api(self, team_id: str, *, include_locale: bool) -> dict[str, Any]:
        now = datetime.now(ZoneInfo(self.tz))
        offset = now.utcoffset()
        real_name = self.real_name or self.name.title()
        display_name = self.display_name or self.name
        user: dict[str, Any] = {
            "id": self.id,
            "team_id": team_id,
            "name": self.name,
            "deleted": self.deleted,
            "real_name": real_name,
            "tz": self.tz,
            "tz_label": now.tzname() or self.tz,
            "tz_offset": int(offset.total_seconds()) if offset is not None else 0,
            "is_admin": self.is_admin,
            "is_owner": self.is_owner,
            "is_primary_owner": self.is_primary_owner,
            "is_restricted": False,
            "is_ultra_restricted": False,
            "is_bot": self.is_bot,
            "is_app_user": False,
            "updated": 1700000000,
            "profile": {
                "real_name": real_name,
                "real_name_normalized": real_name,
                "display_name": display_name,
                "display_name_normalized": display_name,
                "team": team_id,
            },
        }
        if include_locale:
            user["locale"] = self.locale
        return user


@dataclass
class SlackChannel:
    """A conversation. ``members=None`` means everybody (bot included, unless ``bot_is_member=False``)."""

    id: str
    name: str = ""
    kind: ChannelKind = "public"
    members: list[str] | None = None
    user: str | None = None  # the other party of an ``im``
    bot_is_member: bool = True
    is_archived: bool = False
    locale: str = "en-US"

    @property
    def channel_type(self) -> str:
        """The ``channel_type`` of message events: channel, group (private), im or mpim."""
        return _CHANNEL_TYPE[self.kind]

    def to_api(self, *, include_locale: bool, include_num_members: bool) -> dict[str, Any]:
        info: dict[str, Any] = {
            "id": self.id,
            "created": 1700000000,
            "is_channel": self.kind in ("public", "private"),
            "is_group": self.kind == "mpim",
            "is_im": self.kind == "im",
            "is_mpim": self.kind == "mpim",
            "is_private": self.kind != "public",
            "is_archived": self.is_archived,
            "is_general": self.name == "general",
            "is_shared": False,
            "is_ext_shared": False,
            "is_org_shared": False,
            "is_member": self.bot_is_member,
        }
        if self.kind == "im":
            info.update({"user": self.user, "is_user_deleted": False, "priority": 0})
        else:
            info.update(
                {
                    "name": self.name,
                    "name_normalized": self.name,
                    "topic": {"value": "", "creator": "", "last_set": 0},
                    "purpose": {"value": "", "creator": "", "last_set": 0},
                }
            )
        if include_locale:
            info["locale"] = self.locale
        if include_num_members and self.members is not None:
            info["num_members"] = len(self.members)
        return info


@dataclass
class SlackUserGroup:
    id: str
    handle: str
    users: list[str] = field(default_factory=list)
    name: str = ""


def seeded_users() -> list[SlackUser]:
    return [
        SlackUser(ALICE, "alice", tz="America/Los_Angeles", locale="en-US"),
        SlackUser(BOB, "bob", display_name="小波", tz="Asia/Shanghai", locale="zh-CN"),
        SlackUser(CAROL, "carol", tz="Europe/Paris", locale="fr-FR", is_admin=True, is_owner=True),
    ]


def seeded_channels() -> list[SlackChannel]:
    return [
        SlackChannel(GENERAL, "general", "public"),
        SlackChannel(MODS, "mods", "private", members=[ALICE, CAROL]),
        SlackChannel(DM_ALICE, "", "im", members=[ALICE], user=ALICE),
        SlackChannel(GROUP_DM, "mpdm-alice--bob--heyan-1", "mpim", members=[ALICE, BOB]),
    ]


def seeded_groups() -> list[SlackUserGroup]:
    return [SlackUserGroup(MODERATORS, "moderators", [CAROL, ALICE], name="Moderators")]


# --------------------------------------------------------------------------------------------------
# Records and faults
# --------------------------------------------------------------------------------------------------


@dataclass
class RecordedCall:
    """One request the stand-in received, with the answer it gave.

    ``params`` merges the query string and the form or JSON body, values as sent (form values are
    strings; JSON-typed form fields such as ``blocks``, ``view`` or ``files`` stay JSON strings: use
    ``json_param``). ``headers`` has lower-cased names; ``token`` is the bearer token (or ``token=``).
    """

    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    token: str | None
    http_method: str
    path: str
    body: bytes
    at: float = field(default_factory=time.monotonic)
    status: int = 0
    response: Any = None

    def json_param(self, name: str) -> Any:
        return _jsonish(self.params.get(name))


@dataclass
class Fault:
    """A canned failure for one method; ``times=None`` keeps it until ``clear_faults``."""

    error: str
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    times: int | None = 1

    def body(self) -> dict[str, Any]:
        return {"ok": False, "error": self.error, **self.extra}


_ApiError = ApiError
#: Seconds a trigger_id can be used for (views.open), as Slack documents.
TRIGGER_SECONDS = 3.0
#: A response_url takes this many messages, within this many seconds (Slack: "up to 5 times within 30 minutes").
RESPONSE_URL_USES = 5
RESPONSE_URL_SECONDS = 30 * 60.0


def _jsonish(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _truthy(value: Any) -> bool:
    return value is True or str(value).lower() in ("1", "true")


def _bind_loopback() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.setblocking(False)
    return sock


# --------------------------------------------------------------------------------------------------
# Payloads as Slack sends them
# --------------------------------------------------------------------------------------------------


class PayloadFactory:
    """Builds what Slack sends to an app, for the stand-in's workspace.

    Events (``app_mention``, ``message`` and its ``message_changed`` / ``message_deleted`` subtypes,
    ``app_home_opened``) are the inner ``event``; ``event_callback`` wraps one in the Events API envelope
    (``SlackSender.event`` and ``SlackStandIn.socket_event`` wrap bare events themselves). Slash
    commands are the form fields; interactivity payloads are the dict Slack JSON-encodes into ``payload=``.
    """

    def __init__(self, stand_in: SlackStandIn) -> None:
        self._slack = stand_in
        self._seq = 0

    @property
    def workspace(self) -> SlackWorkspace:
        return self._slack.workspace

    def next_ts(self) -> str:
        return self._slack.next_ts()

    def trigger_id(self) -> str:
        """A fresh trigger_id, valid for ``TRIGGER_SECONDS`` of the stand-in's clock, once."""
        self._seq += 1
        trigger = f"{self._seq}.{int(self._slack.now())}.{uuid.uuid4().hex[:16]}"
        self._slack.triggers[trigger] = self._slack.now()
        return trigger

    # -- events ------------------------------------------------------------------------------------

    def app_mention(
        self, *, user: str, channel: str, text: str, ts: str | None = None, thread_ts: str | None = None
    ) -> dict[str, Any]:
        """An ``app_mention``; ``text`` gets a leading ``<@bot>`` unless it already mentions the bot."""
        mention = f"<@{self.workspace.bot_user_id}>"
        if mention not in text:
            text = f"{mention} {text}"
        event = self._message_like("app_mention", user=user, channel=channel, text=text, ts=ts)
        if thread_ts is not None:
            event["thread_ts"] = thread_ts
        self._slack.keep(channel, event)
        return event

    def message(
        self,
        *,
        user: str,
        channel: str,
        text: str,
        ts: str | None = None,
        thread_ts: str | None = None,
        parent_user_id: str | None = None,
        channel_type: str | None = None,
    ) -> dict[str, Any]:
        """A ``message`` without subtype; ``channel_type`` defaults to the channel's kind. From the bot user
        it carries ``bot_id`` / ``app_id``, as the echo of the app's own post does."""
        event = self._message_like("message", user=user, channel=channel, text=text, ts=ts)
        if user == self.workspace.bot_user_id:
            event.pop("client_msg_id")
            event.update({"bot_id": self.workspace.bot_id, "app_id": self.workspace.app_id})
        if thread_ts is not None:
            event["thread_ts"] = thread_ts
            # the author of the thread's parent (api.slack.com/messaging/retrieving#finding_threads)
            event["parent_user_id"] = parent_user_id or self._slack.author_of(channel, thread_ts) or user
        event["channel_type"] = channel_type or self._slack.channel_type_of(channel)
        self._slack.keep(channel, event)
        return event

    def thread_broadcast(self, *, user: str, channel: str, thread_ts: str, text: str) -> dict[str, Any]:
        """A reply "also sent to the channel": ``message`` / ``thread_broadcast`` with ``thread_ts`` and the
        parent as ``root`` (api.slack.com/events/message/thread_broadcast). One message, one ``ts``: it
        shows in the thread (conversations.replies) and in the channel (conversations.history)."""
        event = self._message_like("message", user=user, channel=channel, text=text, ts=None)
        root = next((m for m in self._slack.messages.get(channel, []) if m["ts"] == thread_ts), None)
        event.update({"subtype": "thread_broadcast", "thread_ts": thread_ts,
                      "root": dict(root) if root is not None else {"ts": thread_ts},
                      "channel_type": self._slack.channel_type_of(channel)})
        self._slack.keep(channel, event)
        return event

    def message_changed(
        self, *, user: str, channel: str, ts: str, text: str, old_text: str = "", thread_ts: str | None = None
    ) -> dict[str, Any]:
        """``message`` / ``message_changed``: the message ``ts`` now reads ``text``."""
        event_ts = self.next_ts()
        message: dict[str, Any] = {
            "type": "message",
            "user": user,
            "text": text,
            "blocks": _rich_text(text),
            "ts": ts,
            "team": self.workspace.team_id,
            "client_msg_id": str(uuid.uuid4()),
            "edited": {"user": user, "ts": event_ts},
        }
        previous: dict[str, Any] = {"type": "message", "user": user, "text": old_text, "ts": ts}
        if thread_ts is not None:
            message["thread_ts"] = previous["thread_ts"] = thread_ts
        stored = next((m for m in self._slack.messages.get(channel, []) if m["ts"] == ts), None)
        if stored is not None:
            stored.update(text=text, edited=message["edited"])
        return {
            "type": "message",
            "subtype": "message_changed",
            "hidden": True,
            "message": message,
            "previous_message": previous,
            "channel": channel,
            "ts": event_ts,
            "event_ts": event_ts,
            "channel_type": self._slack.channel_type_of(channel),
        }

    def message_deleted(
        self, *, channel: str, ts: str, user: str, text: str = "", thread_ts: str | None = None
    ) -> dict[str, Any]:
        """``message`` / ``message_deleted`` of the message ``ts`` (``deleted_ts``). A thread parent with
        replies is not deleted this way: use ``tombstone`` (Slack keeps it as one)."""
        event_ts = self.next_ts()
        self._slack.delete_message(channel, ts)
        previous: dict[str, Any] = {"type": "message", "user": user, "text": text, "ts": ts}
        if thread_ts is not None:
            previous["thread_ts"] = thread_ts
        return {
            "type": "message",
            "subtype": "message_deleted",
            "hidden": True,
            "deleted_ts": ts,
            "previous_message": previous,
            "channel": channel,
            "ts": event_ts,
            "event_ts": event_ts,
            "channel_type": self._slack.channel_type_of(channel),
        }

    def tombstone(self, *, channel: str, ts: str, user: str, text: str = "") -> dict[str, Any]:
        """The thread parent ``ts`` (with replies) deleted by its author: Slack keeps a tombstone in
        its place and sends ``message`` / ``message_changed`` with it, as documented."""
        tomb = self._slack.delete_message(channel, ts)
        if tomb is None:
            raise ValueError("only a thread parent with replies becomes a tombstone")
        event_ts = self.next_ts()
        replies = [m for m in self._slack.messages.get(channel, []) if m.get("thread_ts") == ts and m["ts"] != ts]
        return {
            "type": "message", "subtype": "message_changed", "hidden": True,
            "message": {**tomb, "reply_count": len(replies), "replies": [{"user": m.get("user"), "ts": m["ts"]}
                                                                        for m in replies]},
            "previous_message": {"type": "message", "user": user, "text": text, "ts": ts, "thread_ts": ts},
            "channel": channel, "ts": event_ts, "event_ts": event_ts,
            "channel_type": self._slack.channel_type_of(channel),
        }

    def channel_event(self, kind: str, *, channel: str, user: str | None = None) -> dict[str, Any]:
        """``channel_archive`` / ``channel_deleted`` / ``group_archive`` / ``group_deleted``."""
        event: dict[str, Any] = {"type": kind, "channel": channel, "event_ts": self.next_ts()}
        if user is not None:
            event["user"] = user
        return event

    def bot_message(self, *, channel: str, text: str, bot_id: str = "B0GITHUB01", username: str = "github",
                    thread_ts: str | None = None) -> dict[str, Any]:
        """``message`` / ``bot_message``: a post by an integration (an incoming webhook, a legacy bot) —
        ``bot_id`` and ``username``, no ``user`` (api.slack.com/events/message/bot_message)."""
        ts = self.next_ts()
        event: dict[str, Any] = {"type": "message", "subtype": "bot_message", "text": text, "ts": ts,
                                 "bot_id": bot_id, "username": username, "icons": {}, "channel": channel,
                                 "event_ts": ts, "channel_type": self._slack.channel_type_of(channel)}
        if thread_ts is not None:
            event["thread_ts"] = thread_ts
        self._slack.keep(channel, event)
        return event

    def tokens_revoked(self, *, bot: Sequence[str] = (), oauth: Sequence[str] = ()) -> dict[str, Any]:
        """``tokens_revoked`` as documented (api.slack.com/events/tokens_revoked): the *user ids* whose
        tokens were revoked, by token kind — ``{"oauth": [...], "bot": [...]}`` — never the tokens."""
        return {"type": "tokens_revoked", "tokens": {"oauth": list(oauth), "bot": list(bot)},
                "event_ts": self.next_ts()}

    def app_home_opened(self, *, user: str, tab: str = "home", channel: str | None = None) -> dict[str, Any]:
        return {
            "type": "app_home_opened",
            "user": user,
            "channel": channel or self._slack.im_with(user).id,
            "tab": tab,
            "event_ts": self.next_ts(),
        }

    def event_callback(
        self, event: Mapping[str, Any], *, event_id: str | None = None, event_time: int | None = None,
        workspace: SlackWorkspace | None = None,
    ) -> dict[str, Any]:
        """The Events API envelope around ``event`` (as in HTTP mode and in ``events_api`` envelopes),
        from ``workspace`` (default: the stand-in's first)."""
        ws = workspace or self.workspace
        ts = str(event.get("event_ts") or event.get("ts") or time.time())
        envelope: dict[str, Any] = {
            "token": ws.verification_token,
            "team_id": ws.team_id,
            "context_team_id": ws.team_id,
            "context_enterprise_id": ws.enterprise_id,
            "api_app_id": ws.app_id,
            "event": dict(event),
            "type": "event_callback",
            "event_id": event_id or "Ev" + uuid.uuid4().hex[:10].upper(),
            "event_time": event_time if event_time is not None else int(float(ts)),
            "authorizations": [
                {
                    "enterprise_id": ws.enterprise_id,
                    "team_id": ws.team_id,
                    "user_id": ws.bot_user_id,
                    "is_bot": True,
                    "is_enterprise_install": False,
                }
            ],
            "is_ext_shared_channel": False,
            "event_context": "4-" + uuid.uuid4().hex,
        }
        if ws.enterprise_id is not None:
            envelope["enterprise_id"] = ws.enterprise_id
        return envelope

    def url_verification(self, challenge: str | None = None) -> dict[str, Any]:
        return {
            "token": self.workspace.verification_token,
            "challenge": challenge or uuid.uuid4().hex,
            "type": "url_verification",
        }

    # -- slash commands and interactivity ----------------------------------------------------------

    def slash_command(
        self,
        *,
        user: str,
        channel: str,
        text: str = "",
        command: str = "/heyan",
        response_url: str | None = None,
        trigger_id: str | None = None,
        workspace: SlackWorkspace | None = None,
    ) -> dict[str, str]:
        """The form fields of a slash command; ``response_url`` defaults to a fresh stand-in one.
        Slack sends no thread with a slash command, even one typed in a thread."""
        ws = workspace or self.workspace
        fields = {
            "token": ws.verification_token,
            "team_id": ws.team_id,
            "team_domain": ws.team_domain,
            "channel_id": channel,
            "channel_name": self._slack.channel_name_of(channel),
            "user_id": user,
            "user_name": self._slack.user_name_of(user),
            "command": command,
            "text": text,
            "api_app_id": ws.app_id,
            "is_enterprise_install": "false",
            "response_url": response_url or self._slack.response_url(),
            "trigger_id": trigger_id or self.trigger_id(),
        }
        if ws.enterprise_id is not None:
            fields.update({"enterprise_id": ws.enterprise_id, "enterprise_name": ws.enterprise_name})
        return fields

    def block_actions(
        self,
        *,
        user: str,
        action_id: str,
        value: str = "",
        block_id: str = "heyan_actions",
        channel: str | None = None,
        message_ts: str | None = None,
        view: Mapping[str, Any] | None = None,
        response_url: str | None = None,
    ) -> dict[str, Any]:
        """A button click, on a message (``channel`` + ``message_ts``) or in a ``view``."""
        action = {
            "type": "button",
            "action_id": action_id,
            "block_id": block_id,
            "value": value,
            "text": {"type": "plain_text", "text": action_id, "emoji": True},
            "action_ts": self.next_ts(),
        }
        payload = self._interaction_base("block_actions", user)
        payload.update({"trigger_id": self.trigger_id(), "actions": [action], "state": {"values": {}}})
        if view is not None:
            payload["container"] = {"type": "view", "view_id": view.get("id")}
            payload["view"] = dict(view)
        else:
            if channel is None:
                raise ValueError("block_actions needs a channel (message container) or a view")
            ts = message_ts or self.next_ts()
            payload["container"] = {
                "type": "message",
                "message_ts": ts,
                "channel_id": channel,
                "is_ephemeral": False,
            }
            payload["channel"] = {"id": channel, "name": self._slack.channel_name_of(channel)}
            payload["message"] = {"type": "message", "ts": ts, "user": self.workspace.bot_user_id, "text": ""}
            payload["response_url"] = response_url or self._slack.response_url()
        return payload

    def view_submission(
        self,
        *,
        user: str,
        callback_id: str,
        values: Mapping[str, Mapping[str, Any]],
        private_metadata: str = "",
        view: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A modal submitted. ``values`` is ``{block_id: {action_id: value}}``; a plain string value becomes
        a ``plain_text_input`` state. ``view`` (e.g. the ``view`` a ``views.open`` answered) is the base."""
        state = {
            block: {
                action: ({"type": "plain_text_input", "value": v} if isinstance(v, str) else dict(v))
                for action, v in actions.items()
            }
            for block, actions in values.items()
        }
        ws = self.workspace
        base: dict[str, Any] = dict(view) if view is not None else self._slack.new_view({"type": "modal"})
        base.update(
            {
                "callback_id": callback_id,
                "private_metadata": private_metadata or base.get("private_metadata", ""),
                "state": {"values": state},
                "team_id": ws.team_id,
                "app_id": ws.app_id,
                "bot_id": ws.bot_id,
            }
        )
        payload = self._interaction_base("view_submission", user)
        payload.update({"trigger_id": self.trigger_id(), "view": base, "response_urls": []})
        return payload

    # -- helpers -----------------------------------------------------------------------------------

    def _message_like(
        self, kind: str, *, user: str, channel: str, text: str, ts: str | None
    ) -> dict[str, Any]:
        ts = ts or self.next_ts()
        return {
            "client_msg_id": str(uuid.uuid4()),
            "type": kind,
            "text": text,
            "user": user,
            "ts": ts,
            "blocks": _rich_text(text),
            "team": self.workspace.team_id,
            "channel": channel,
            "event_ts": ts,
        }

    def _interaction_base(self, kind: str, user: str) -> dict[str, Any]:
        ws = self.workspace
        team: dict[str, Any] = {"id": ws.team_id, "domain": ws.team_domain}
        enterprise = None
        if ws.enterprise_id is not None:
            team["enterprise_id"] = ws.enterprise_id
            enterprise = {"id": ws.enterprise_id, "name": ws.enterprise_name}
        return {
            "type": kind,
            "user": {
                "id": user,
                "username": self._slack.user_name_of(user),
                "name": self._slack.user_name_of(user),
                "team_id": ws.team_id,
            },
            "api_app_id": ws.app_id,
            "token": ws.verification_token,
            "team": team,
            "enterprise": enterprise,
            "is_enterprise_install": False,
        }


def _rich_text(text: str) -> list[dict[str, Any]]:
    """A ``rich_text`` block of ``text``, ``<@U…>`` mentions as ``user`` elements (as Slack renders them)."""
    elements: list[dict[str, Any]] = []
    for i, part in enumerate(_SLACK_ID.split(text)):
        if i % 2:
            elements.append({"type": "user", "user_id": part})
        elif part:
            elements.append({"type": "text", "text": part})
    section = {"type": "rich_text_section", "elements": elements}
    return [{"type": "rich_text", "block_id": uuid.uuid4().hex[:5], "elements": [section]}]


# --------------------------------------------------------------------------------------------------
# The stand-in server
# --------------------------------------------------------------------------------------------------


class SlackStandIn(StandInMore):
    """Slack's Web API, ``response_url`` hooks, upload URLs and Socket Mode on one loopback port.

    Run it with ``async with SlackStandIn() as slack:``. ``seed=True`` (the default) adds alice, bob,
    carol (see the module constants), the channels ``GENERAL`` (public), ``MODS`` (private: alice,
    carol, the bot), ``DM_ALICE`` (im), ``GROUP_DM`` (mpim: alice, bob, the bot) and the user group
    ``MODERATORS``. The bot itself is always a user.
    """

    METHODS: tuple[str, ...] = (
        "auth.test",
        "users.info",
        "usergroups.users.list",
        "conversations.info",
        "conversations.history",
        "conversations.replies",
        "conversations.open",
        "usergroups.list",
        "oauth.v2.access",
        "chat.postMessage",
        "chat.postEphemeral",
        "chat.update",
        "chat.delete",
        "views.open",
        "views.update",
        "views.publish",
        "files.getUploadURLExternal",
        "files.completeUploadExternal",
        "apps.connections.open",
    )

    def __init__(
        self,
        *,
        workspace: SlackWorkspace | None = None,
        users: list[SlackUser] | None = None,
        channels: list[SlackChannel] | None = None,
        groups: list[SlackUserGroup] | None = None,
        seed: bool = True,
    ) -> None:
        self.workspace = workspace or SlackWorkspace()
        self.users: dict[str, SlackUser] = {}
        self.channels: dict[str, SlackChannel] = {}
        self.groups: dict[str, SlackUserGroup] = {}
        #: Bot tokens and their workspaces (``add_workspace``; OAuth installs add theirs).
        self.tokens: dict[str, SlackWorkspace] = {self.workspace.bot_token: self.workspace}
        self.revoked_tokens: set[str] = set()
        #: Bot tokens of workspaces that uninstalled the app (``uninstall``): ``account_inactive``.
        self.inactive_tokens: set[str] = set()
        #: response_url hook → [issued at (stand-in clock), times used] (``RESPONSE_URL_USES`` within
        #: ``RESPONSE_URL_SECONDS``, as Slack documents).
        self.response_hooks: dict[str, list[float]] = {}
        # the app's OAuth credentials (oauth.v2.access checks them) and the codes ``approve`` issued
        self.client_id = "1111.2222"
        self.client_secret = "standin-client-secret"
        self.redirect_uri = ""
        self.oauth_codes: dict[str, dict[str, Any]] = {}
        #: trigger_id → when it was issued (stand-in clock); used ones are removed.
        self.triggers: dict[str, float] = {}
        self._clock_offset = 0.0
        self._calling: SlackWorkspace | None = None
        self.calls: list[RecordedCall] = []
        self.messages: dict[str, list[dict[str, Any]]] = {}
        self.views: dict[str, dict[str, Any]] = {}
        self.uploads: dict[str, dict[str, Any]] = {}
        self.payloads = PayloadFactory(self)
        # Socket Mode: what the app sent back, by envelope id, and everything it sent.
        self.socket_acks: dict[str, dict[str, Any]] = {}
        self.socket_received: list[dict[str, Any]] = []
        self.socket_connections = 0

        self._faults: dict[str, deque[Fault]] = {}
        self._used_triggers: set[str] = set()
        self._ts_base = int(time.time())
        self._ts_seq = 0
        self._id_seq = 0
        self._sockets: list[web.WebSocketResponse] = []
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._port = 0

        self.add_user(SlackUser(self.workspace.bot_user_id, self.workspace.bot_name, is_bot=True))
        for user in [*(seeded_users() if seed else []), *(users or [])]:
            self.add_user(user)
        for channel in [*(seeded_channels() if seed else []), *(channels or [])]:
            self.add_channel(channel)
        for group in [*(seeded_groups() if seed else []), *(groups or [])]:
            self.add_group(group)

    # -- lifecycle -----------------------------------------------------------------------------------

    async def __aenter__(self) -> SlackStandIn:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._serve_api)
        app.router.add_post("/upload/{file_id}", self._serve_upload)
        app.router.add_post("/response/{hook}", self._serve_response_url)
        app.router.add_get("/socket-mode/link", self._serve_socket_mode)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=5.0)
        await self._runner.setup()
        sock = _bind_loopback()
        self._port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        for ws in list(self._sockets):
            await ws.close(code=aiohttp.WSCloseCode.GOING_AWAY, message=b"stand-in stopping")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    @property
    def api_url(self) -> str:
        """The Web API base for ``AsyncWebClient(base_url=...)`` (ends with a slash, as slack_sdk needs)."""
        return f"{self.base_url}/api/"

    # -- configuration -------------------------------------------------------------------------------

    def add_user(self, user: SlackUser) -> SlackUser:
        self.users[user.id] = user
        return user

    def add_channel(self, channel: SlackChannel) -> SlackChannel:
        self.channels[channel.id] = channel
        self.messages.setdefault(channel.id, [])
        return channel

    def add_group(self, group: SlackUserGroup) -> SlackUserGroup:
        self.groups[group.id] = group
        return group

    @property
    def valid_tokens(self) -> set[str]:
        return set(self.tokens) - self.revoked_tokens - self.inactive_tokens

    def add_workspace(self, workspace: SlackWorkspace) -> SlackWorkspace:
        """Another workspace the app is installed in (its bot token works from now on)."""
        self.tokens[workspace.bot_token] = workspace
        self.revoked_tokens.discard(workspace.bot_token)
        self.inactive_tokens.discard(workspace.bot_token)
        if workspace.bot_user_id not in self.users:
            self.add_user(SlackUser(workspace.bot_user_id, workspace.bot_name, is_bot=True))
        return workspace

    # -- the clock: trigger_ids expire by it ---------------------------------------------------------

    def now(self) -> float:
        """The stand-in's clock: wall time plus what ``advance`` added."""
        return time.time() + self._clock_offset

    def advance(self, seconds: float) -> None:
        """Move the stand-in's clock on (a trigger_id issued before is ``seconds`` older): no sleeping."""
        self._clock_offset += seconds

    def keep(self, channel: str, event: Mapping[str, Any]) -> None:
        """Keep a message an event is about in the channel's history (what Slack shows afterwards)."""
        message = {k: v for k, v in event.items() if k not in ("channel", "event_ts", "channel_type")}
        message["type"] = "message"
        history = self.messages.setdefault(channel, [])
        if not any(m["ts"] == message["ts"] for m in history):
            history.append(message)

    def author_of(self, channel: str, ts: str) -> str | None:
        """Who posted the message ``ts`` of ``channel`` (None when the stand-in does not keep it)."""
        found = next((m for m in self.messages.get(channel, []) if m["ts"] == ts), None)
        return str(found["user"]) if found is not None and found.get("user") else None

    def remove_scope(self, scope: str) -> None:
        """Revoke a bot scope: ``auth.test``'s ``x-oauth-scopes`` drops it and the methods needing it
        answer ``missing_scope`` with ``needed`` / ``provided``."""
        self.workspace.scopes = [s for s in self.workspace.scopes if s != scope]

    def add_message(self, channel: str, text: str, *, user: str, thread_ts: str | None = None) -> str:
        """Seed history (for ``conversations.replies``); returns the message ``ts``."""
        ts = self.next_ts()
        message: dict[str, Any] = {"type": "message", "user": user, "text": text, "ts": ts}
        if thread_ts is not None:
            message["thread_ts"] = thread_ts
        self._store_message(channel, message)
        return ts

    def im_with(self, user: str) -> SlackChannel:
        """The DM channel between the bot and ``user`` (opened on first use, as ``conversations.open``)."""
        for channel in self.channels.values():
            if channel.kind == "im" and channel.user == user:
                return channel
        return self.add_channel(SlackChannel("D" + user[1:], "", "im", members=[user], user=user))

    def response_url(self) -> str:
        """A fresh ``response_url`` served here; POSTs to it are recorded as ``RESPONSE_URL`` calls. It
        takes ``RESPONSE_URL_USES`` messages within ``RESPONSE_URL_SECONDS`` of the stand-in's clock."""
        hook = self._new_id("R")
        self.response_hooks[hook] = [self.now(), 0]
        return f"{self.base_url}/response/{hook}"

    def sender(self, url: str, signing_secret: str) -> SlackSender:
        """A ``SlackSender`` that POSTs signed payloads to a bolt endpoint (e.g. ``ServedApp.events_url``)."""
        return SlackSender(url, signing_secret, payloads=self.payloads)

    # -- fault injection -----------------------------------------------------------------------------

    def fail(
        self, method: str, error: str, *, times: int | None = 1, status: int = 200, **extra: Any
    ) -> None:
        """Answer the next ``times`` calls of ``method`` with ``{"ok": false, "error": error, **extra}``.

        E.g. ``not_in_channel``, ``channel_not_found``, ``is_archived``, ``missing_scope`` (``needed=``;
        ``provided`` defaults to the granted scopes). Works for ``RESPONSE_URL`` and ``FILE_UPLOAD`` too.
        """
        if error == "missing_scope":
            extra.setdefault("needed", _METHOD_SCOPES.get(method, ""))
            extra.setdefault("provided", ",".join(self.workspace.scopes))
        self._faults.setdefault(method, deque()).append(Fault(error, status=status, extra=extra, times=times))

    def rate_limit(self, method: str, *, retry_after: int = 1, times: int | None = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with HTTP 429 ``ratelimited`` and ``Retry-After``.

        slack_sdk's ``AsyncWebClient`` raises ``SlackApiError`` on it unless an
        ``AsyncRateLimitErrorRetryHandler`` is among its ``retry_handlers`` (it sleeps ``Retry-After``
        seconds, an integer, plus up to 1 s of jitter, then retries).
        """
        fault = Fault("ratelimited", status=429, headers={"Retry-After": str(int(retry_after))}, times=times)
        self._faults.setdefault(method, deque()).append(fault)

    def clear_faults(self, method: str | None = None) -> None:
        if method is None:
            self._faults.clear()
        else:
            self._faults.pop(method, None)

    # -- reading the record --------------------------------------------------------------------------

    def calls_to(self, method: str) -> list[RecordedCall]:
        return [c for c in self.calls if c.method == method]

    def methods_called(self) -> list[str]:
        return [c.method for c in self.calls]

    async def wait_for_call(
        self,
        method: str,
        *,
        timeout: float = 30.0,
        count: int = 1,
        where: Callable[[RecordedCall], bool] | None = None,
    ) -> RecordedCall:
        """The ``count``-th recorded call of ``method`` (matching ``where``), waiting up to ``timeout``.

        It wakes on every recorded request (no fixed sleeps), so a generous timeout costs nothing when
        the call comes quickly.
        """

        def found() -> RecordedCall | None:
            matching = [c for c in self.calls_to(method) if where is None or where(c)]
            return matching[count - 1] if len(matching) >= count else None

        return await self._wait(found, timeout, f"{count} call(s) of {method}")

    # -- Socket Mode ---------------------------------------------------------------------------------

    async def wait_for_socket(self, *, timeout: float = 30.0, connections: int = 1) -> None:
        """Wait until ``connections`` Socket Mode connections have been opened (and greeted)."""

        def connected() -> bool | None:
            return True if self.socket_connections >= connections and self._sockets else None

        await self._wait(connected, timeout, f"{connections} Socket Mode connection(s)")

    async def send_envelope(
        self,
        envelope_type: Literal["events_api", "slash_commands", "interactive"],
        payload: Mapping[str, Any],
        *,
        retry_attempt: int = 0,
        retry_reason: str = "",
        accepts_response_payload: bool | None = None,
    ) -> str:
        """Send an envelope on the newest Socket Mode connection; returns its ``envelope_id``.

        ``events_api`` envelopes carry ``retry_attempt`` / ``retry_reason`` (0 and "" on a first
        delivery, as Slack sends them); bolt turns them into ``x-slack-retry-num`` / ``-reason`` headers.
        """
        if not self._sockets:
            raise AssertionError("no Socket Mode connection (await slack.wait_for_socket() first)")
        if accepts_response_payload is None:
            accepts_response_payload = envelope_type == "slash_commands" or (
                envelope_type == "interactive"
                and payload.get("type") in ("view_submission", "block_suggestion")
            )
        envelope_id = str(uuid.uuid4())
        envelope: dict[str, Any] = {
            "envelope_id": envelope_id,
            "payload": dict(payload),
            "type": envelope_type,
            "accepts_response_payload": accepts_response_payload,
        }
        if envelope_type == "events_api":
            envelope.update({"retry_attempt": retry_attempt, "retry_reason": retry_reason})
        await self._sockets[-1].send_str(json.dumps(envelope))
        return envelope_id

    async def socket_event(self, event: Mapping[str, Any], **kwargs: Any) -> str:
        """An ``events_api`` envelope; a bare event is wrapped in ``event_callback`` first."""
        return await self.send_envelope("events_api", _as_envelope(self.payloads, event), **kwargs)

    async def socket_command(self, fields: Mapping[str, str]) -> str:
        return await self.send_envelope("slash_commands", fields)

    async def socket_interaction(self, payload: Mapping[str, Any]) -> str:
        return await self.send_envelope("interactive", payload)

    async def socket_disconnect(self, reason: str = "refresh_requested") -> None:
        """Ask the client to reconnect, as Slack does every few hours (it calls apps.connections.open)."""
        if self._sockets:
            await self._sockets[-1].send_str(json.dumps({"type": "disconnect", "reason": reason}))

    async def wait_for_ack(self, envelope_id: str, *, timeout: float = 30.0) -> dict[str, Any]:
        """The app's ack of an envelope (``{"envelope_id": ..., "payload"?: ...}``)."""
        return await self._wait(lambda: self.socket_acks.get(envelope_id), timeout, f"ack of {envelope_id}")

    # -- state helpers used by the payloads and the handlers -----------------------------------------

    def next_ts(self) -> str:
        """A new message ``ts``: the stand-in's clock in microseconds, always increasing (Slack's
        ``ts`` is the time the message was posted, unique per channel)."""
        self._ts_seq = max(self._ts_seq + 1, int(self.now() * 1_000_000))
        return f"{self._ts_seq // 1_000_000}.{self._ts_seq % 1_000_000:06d}"

    def new_view(self, view: Mapping[str, Any]) -> dict[str, Any]:
        view_id = self._new_id("V")
        stored = {
            "id": view_id,
            "team_id": self.workspace.team_id,
            "type": view.get("type", "modal"),
            "blocks": [],
            "private_metadata": "",
            "callback_id": "",
            "state": {"values": {}},
            "hash": f"{int(time.time())}.{uuid.uuid4().hex[:8]}",
            "clear_on_close": False,
            "notify_on_close": False,
            "root_view_id": view_id,
            "previous_view_id": None,
            "app_id": self.workspace.app_id,
            "external_id": "",
            "bot_id": self.workspace.bot_id,
            **dict(view),
        }
        self.views[view_id] = stored
        return stored

    def channel_type_of(self, channel: str) -> str:
        known = self.channels.get(channel)
        return known.channel_type if known is not None else "channel"

    def channel_name_of(self, channel: str) -> str:
        known = self.channels.get(channel)
        if known is None:
            return "unknown"
        return "directmessage" if known.kind == "im" else known.name

    def user_name_of(self, user: str) -> str:
        known = self.users.get(user)
        return known.name if known is not None else user.lower()

    # -- internals: waiting ----------------------------------------------------------------------------

    def _notify(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def _wait(self, probe: Callable[[], _T | None], timeout: float, what: str) -> _T:
        try:
            async with asyncio.timeout(timeout):
                while True:
                    changed = self._changed
                    result = probe()
                    if result is not None:
                        return result
                    await changed.wait()
        except TimeoutError:
            raise AssertionError(
                f"timed out after {timeout}s waiting for {what}; calls so far: {self.methods_called()}"
            ) from None

    def _new_id(self, prefix: str) -> str:
        self._id_seq += 1
        return f"{prefix}0{self._id_seq:08d}"

    # -- internals: HTTP -------------------------------------------------------------------------------

    async def _record(self, request: web.Request, method: str) -> RecordedCall:
        body = await request.read()
        params: dict[str, Any] = dict(request.query)
        content_type = request.headers.get("Content-Type", "")
        if body and content_type.startswith("application/json"):
            loaded = json.loads(body)
            if isinstance(loaded, dict):
                params.update(loaded)
        elif body and content_type.startswith("application/x-www-form-urlencoded"):
            params.update((await request.post()).items())
        headers = {k.lower(): v for k, v in request.headers.items()}
        auth = headers.get("authorization", "")
        token = auth.removeprefix("Bearer ").strip() if auth.startswith("Bearer ") else params.get("token")
        call = RecordedCall(method, params, headers, token, request.method, request.path, body)
        self.calls.append(call)
        return call

    def _respond(
        self, call: RecordedCall, body: Any, *, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> web.Response:
        call.status, call.response = status, body
        self._notify()
        if isinstance(body, str):
            return web.Response(status=status, text=body, headers=headers)
        return web.json_response(body, status=status, headers=headers)

    def _take_fault(self, method: str) -> Fault | None:
        queue = self._faults.get(method)
        if not queue:
            return None
        fault = queue[0]
        if fault.times is not None:
            fault.times -= 1
            if fault.times <= 0:
                queue.popleft()
        return fault

    async def _serve_api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        call = await self._record(request, method)
        self._calling = self.tokens.get(call.token or "")
        scope_headers = {"x-oauth-scopes": ",".join(self._ws.scopes)}
        fault = self._take_fault(method)
        if fault is not None:
            return self._respond(
                call, fault.body(), status=fault.status, headers={**scope_headers, **fault.headers}
            )
        handler = getattr(self, "_api_" + method.replace(".", "_"), None)
        if method not in self.METHODS or handler is None:
            return self._respond(call, {"ok": False, "error": "unknown_method", "req_method": method})
        try:
            if method == "apps.connections.open":
                self._check_app_token(call)
                return self._respond(call, handler(call))
            if method == "oauth.v2.access":  # client credentials, not a bot token
                return self._respond(call, handler(call))
            self._check_token(call)
            self._check_scope(_METHOD_SCOPES.get(method))
            body = handler(call)
        except _ApiError as e:
            return self._respond(call, {"ok": False, "error": e.error, **e.extra}, headers=scope_headers)
        accepted = _METHOD_SCOPES.get(method, "")
        return self._respond(call, body, headers={**scope_headers, "x-accepted-oauth-scopes": accepted})

    async def _serve_upload(self, request: web.Request) -> web.Response:
        call = await self._record(request, FILE_UPLOAD)
        fault = self._take_fault(FILE_UPLOAD)
        if fault is not None:
            return self._respond(call, fault.error, status=fault.status if fault.status != 200 else 500)
        upload = self.uploads.get(request.match_info["file_id"])
        if upload is None:
            return self._respond(call, "not found", status=404)
        upload["data"] = call.body
        return self._respond(call, f"OK - {len(call.body)}")

    async def _serve_response_url(self, request: web.Request) -> web.Response:
        call = await self._record(request, RESPONSE_URL)
        fault = self._take_fault(RESPONSE_URL)
        if fault is not None:
            return self._respond(call, fault.body(), status=fault.status, headers=fault.headers)
        hook = self.response_hooks.get(request.match_info["hook"])
        if hook is None:
            return self._respond(call, "invalid_url", status=404)
        # "use response_url up to 5 times within 30 minutes" (api.slack.com/interactivity/handling
        # #message_responses). Slack does not document the refusal's body; any non-2xx is what counts.
        if self.now() - hook[0] > RESPONSE_URL_SECONDS:
            return self._respond(call, "expired_url", status=404)
        if hook[1] >= RESPONSE_URL_USES:
            return self._respond(call, "used_url", status=404)
        hook[1] += 1
        try:
            self._check_message(call.params)
        except _ApiError as e:  # response_url answers a refused message with 400 and the error
            return self._respond(call, {"ok": False, "error": e.error, **e.extra}, status=400)
        return self._respond(call, {"ok": True})

    async def _serve_socket_mode(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._sockets.append(ws)
        self.socket_connections += 1
        await ws.send_json(
            {
                "type": "hello",
                "num_connections": len(self._sockets),
                "debug_info": {
                    "host": "applink-standin",
                    "build_number": 1,
                    "approximate_connection_time": 18060,
                },
                "connection_info": {"app_id": self.workspace.app_id},
            }
        )
        self._notify()
        try:
            async for message in ws:
                if message.type != aiohttp.WSMsgType.TEXT:
                    continue
                try:
                    data = json.loads(message.data)
                except ValueError:
                    data = {"raw": message.data}
                self.socket_received.append(data)
                if isinstance(data, dict) and data.get("envelope_id"):
                    self.socket_acks[data["envelope_id"]] = data
                self._notify()
        finally:
            self._sockets.remove(ws)
            self._notify()
        return ws

    # -- internals: checks ---------------------------------------------------------------------------

    def _check_token(self, call: RecordedCall) -> None:
        if not call.token:
            raise _ApiError("not_authed")
        if call.token in self.revoked_tokens:
            raise _ApiError("token_revoked")
        if call.token in self.inactive_tokens:
            raise _ApiError("account_inactive")
        if call.token not in self.tokens:
            raise _ApiError("invalid_auth")
        self._calling = self.tokens[call.token]

    def _check_app_token(self, call: RecordedCall) -> None:
        if not call.token:
            raise _ApiError("not_authed")
        if not call.token.startswith("xapp-"):
            raise _ApiError("not_allowed_token_type")
        if call.token != self.workspace.app_token:
            raise _ApiError("invalid_auth")

    @property
    def _ws(self) -> SlackWorkspace:
        """The workspace of the call being answered (its token's)."""
        return self._calling or self.workspace

    def _check_scope(self, needed: str | None) -> None:
        if needed and needed not in self._ws.scopes:
            raise _ApiError("missing_scope", needed=needed, provided=",".join(self._ws.scopes))

    def _channel(self, channel_id: Any, *, scope_suffix: str | None = None) -> SlackChannel:
        """The channel the bot may see (by id, ``#name`` or a user id for the DM), else Slack's error."""
        channel_id = str(channel_id or "")
        if channel_id in self.users:
            return self.im_with(channel_id)
        channel = self.channels.get(channel_id) or next(
            (c for c in self.channels.values() if c.name and c.name == channel_id.lstrip("#")), None
        )
        if channel is None or (channel.kind != "public" and not channel.bot_is_member):
            raise _ApiError("channel_not_found")
        if scope_suffix is not None:
            self._check_scope(f"{_SCOPE_PREFIX[channel.kind]}:{scope_suffix}")
        return channel

    def _user(self, user_id: Any) -> SlackUser:
        user = self.users.get(str(user_id or ""))
        if user is None:
            raise _ApiError("user_not_found")
        return user

    def _writable_channel(self, channel_id: Any) -> SlackChannel:
        channel = self._channel(channel_id)
        if channel.is_archived:
            raise _ApiError("is_archived")
        if not channel.bot_is_member:
            raise _ApiError("not_in_channel")
        return channel

    def _store_message(self, channel: str, message: dict[str, Any]) -> None:
        self.messages.setdefault(channel, []).append(message)

    def _find_message(self, channel: str, ts: Any) -> dict[str, Any]:
        for message in self.messages.get(channel, []):
            if message["ts"] == str(ts):
                return message
        raise _ApiError("message_not_found")

    # -- internals: Web API methods ------------------------------------------------------------------

    def _api_auth_test(self, call: RecordedCall) -> dict[str, Any]:
        ws = self._ws
        body: dict[str, Any] = {
            "ok": True,
            "url": f"https://{ws.team_domain}.slack.com/",
            "team": ws.team_name,
            "user": ws.bot_name,
            "team_id": ws.team_id,
            "user_id": ws.bot_user_id,
            "bot_id": ws.bot_id,
            "is_enterprise_install": False,
        }
        if ws.enterprise_id is not None:
            body["enterprise_id"] = ws.enterprise_id
        return body

    def _api_users_info(self, call: RecordedCall) -> dict[str, Any]:
        user = self._user(call.params.get("user"))
        include_locale = _truthy(call.params.get("include_locale"))
        return {"ok": True, "user": user.to_api(self.workspace.team_id, include_locale=include_locale)}

    def _api_usergroups_list(self, call: RecordedCall) -> dict[str, Any]:
        return {"ok": True, "usergroups": [{"id": g.id, "handle": g.handle, "name": g.name or g.handle,
                                            "team_id": self._ws.team_id} for g in self.groups.values()]}

    def _api_usergroups_users_list(self, call: RecordedCall) -> dict[str, Any]:
        group = self.groups.get(str(call.params.get("usergroup", "")))
        if group is None:
            raise _ApiError("no_such_subteam")
        return {"ok": True, "users": list(group.users)}

    def _api_conversations_info(self, call: RecordedCall) -> dict[str, Any]:
        channel = self._channel(call.params.get("channel"), scope_suffix="read")
        info = channel.to_api(
            include_locale=_truthy(call.params.get("include_locale")),
            include_num_members=_truthy(call.params.get("include_num_members")),
        )
        return {"ok": True, "channel": info}

    def _api_conversations_open(self, call: RecordedCall) -> dict[str, Any]:
        users = [u for u in str(call.params.get("users", "")).split(",") if u]
        if len(users) != 1:
            raise _ApiError("invalid_arguments")
        self._user(users[0])
        return {"ok": True, "channel": {"id": self.im_with(users[0]).id}}

    @staticmethod
    def _check_message(params: Mapping[str, Any]) -> None:
        """Slack's limits on a message: ``msg_too_long`` past 40,000 characters of text,
        ``invalid_blocks`` (with what broke) past the Block Kit limits."""
        if len(str(params.get("text") or "")) > TEXT_LIMIT:
            raise _ApiError("msg_too_long")
        if params.get("blocks"):
            found = problems(_jsonish(params["blocks"]))
            if found:
                raise _ApiError("invalid_blocks", errors=found,
                                response_metadata={"messages": [f"[ERROR] {m}" for m in found]})

    @staticmethod
    def _check_view(view: Any) -> None:
        found = view_problems(view)
        if found:
            raise _ApiError("invalid_arguments", response_metadata={"messages": [f"[ERROR] {m}" for m in found]})

    def _take_trigger(self, trigger_id: Any) -> None:
        """views.open's trigger: known, unused, and at most ``TRIGGER_SECONDS`` old (stand-in clock)."""
        issued = self.triggers.pop(str(trigger_id or ""), None)
        if issued is None:
            used = str(trigger_id or "") in self._used_triggers
            raise _ApiError("exchanged_trigger_id" if used else "invalid_trigger_id")
        self._used_triggers.add(str(trigger_id))
        if self.now() - issued > TRIGGER_SECONDS:
            raise _ApiError("expired_trigger_id")

    def _api_chat_postMessage(self, call: RecordedCall) -> dict[str, Any]:
        p = call.params
        channel = self._writable_channel(p.get("channel"))
        if not (p.get("text") or p.get("blocks") or p.get("attachments")):
            raise _ApiError("no_text")
        self._check_message(p)
        ts = self.next_ts()
        message: dict[str, Any] = {
            "type": "message",
            "user": self._ws.bot_user_id,
            "bot_id": self._ws.bot_id,
            "app_id": self._ws.app_id,
            "team": self._ws.team_id,
            "text": p.get("text") or "",
            "ts": ts,
        }
        if p.get("blocks"):
            message["blocks"] = _jsonish(p["blocks"])
        if p.get("thread_ts"):
            message["thread_ts"] = str(p["thread_ts"])
        self._store_message(channel.id, message)
        return {"ok": True, "channel": channel.id, "ts": ts, "message": message}

    def _api_chat_postEphemeral(self, call: RecordedCall) -> dict[str, Any]:
        channel = self._writable_channel(call.params.get("channel"))
        self._check_message(call.params)
        user = self._user(call.params.get("user"))
        if channel.members is not None and user.id not in channel.members:
            raise _ApiError("user_not_in_channel")
        return {"ok": True, "message_ts": self.next_ts()}

    def _api_chat_update(self, call: RecordedCall) -> dict[str, Any]:
        channel = self._writable_channel(call.params.get("channel"))
        message = self._find_message(channel.id, call.params.get("ts"))
        if message.get("user") != self._ws.bot_user_id:
            raise _ApiError("cant_update_message")
        self._check_message(call.params)
        if "text" in call.params:
            message["text"] = call.params["text"]
        if "blocks" in call.params:
            message["blocks"] = _jsonish(call.params["blocks"])
        message["edited"] = {"user": self.workspace.bot_user_id, "ts": self.next_ts()}
        return {
            "ok": True,
            "channel": channel.id,
            "ts": message["ts"],
            "text": message["text"],
            "message": message,
        }

    def _api_chat_delete(self, call: RecordedCall) -> dict[str, Any]:
        channel = self._writable_channel(call.params.get("channel"))
        message = self._find_message(channel.id, call.params.get("ts"))
        if message.get("user") != self.workspace.bot_user_id:
            raise _ApiError("cant_delete_message")
        self.messages[channel.id].remove(message)
        return {"ok": True, "channel": channel.id, "ts": message["ts"]}

    def _api_views_open(self, call: RecordedCall) -> dict[str, Any]:
        if not call.params.get("trigger_id"):
            raise _ApiError("invalid_arguments")
        view = _jsonish(call.params.get("view"))
        if not isinstance(view, dict):
            raise _ApiError("invalid_arguments")
        self._check_view(view)
        self._take_trigger(call.params["trigger_id"])
        return {"ok": True, "view": self.new_view(view)}

    def _api_views_update(self, call: RecordedCall) -> dict[str, Any]:
        view = _jsonish(call.params.get("view"))
        if not isinstance(view, dict):
            raise _ApiError("invalid_arguments")
        self._check_view(view)
        view_id, external_id = call.params.get("view_id"), call.params.get("external_id")
        stored = self.views.get(str(view_id)) if view_id else None
        if stored is None and external_id:
            stored = next((v for v in self.views.values() if v.get("external_id") == external_id), None)
        if stored is None:
            raise _ApiError("not_found")
        if call.params.get("hash") and call.params["hash"] != stored["hash"]:
            raise _ApiError("hash_conflict")
        stored.update(view)
        stored["hash"] = f"{int(time.time())}.{uuid.uuid4().hex[:8]}"
        return {"ok": True, "view": stored}

    def _api_views_publish(self, call: RecordedCall) -> dict[str, Any]:
        self._user(call.params.get("user_id"))
        view = _jsonish(call.params.get("view"))
        if not isinstance(view, dict) or view.get("type") != "home":
            raise _ApiError("invalid_arguments")
        self._check_view(view)
        return {"ok": True, "view": self.new_view(view)}

    def _api_files_getUploadURLExternal(self, call: RecordedCall) -> dict[str, Any]:
        filename, length = call.params.get("filename"), call.params.get("length")
        if not filename or length is None:
            raise _ApiError("invalid_arguments")
        file_id = self._new_id("F")
        self.uploads[file_id] = {"filename": filename, "length": int(length), "data": None}
        return {"ok": True, "upload_url": f"{self.base_url}/upload/{file_id}", "file_id": file_id}

    def _api_files_completeUploadExternal(self, call: RecordedCall) -> dict[str, Any]:
        files = call.json_param("files")
        if not isinstance(files, list) or not files:
            raise _ApiError("invalid_arguments")
        channel_id = call.params.get("channel_id")
        if channel_id:
            self._writable_channel(channel_id)
        completed = []
        for entry in files:
            upload = self.uploads.get(str(entry.get("id")))
            if upload is None or upload["data"] is None:
                raise _ApiError("file_not_found")
            completed.append(
                {
                    "id": entry["id"],
                    "name": upload["filename"],
                    "title": entry.get("title") or upload["filename"],
                    "size": len(upload["data"]),
                    "user": self.workspace.bot_user_id,
                    "created": int(time.time()),
                    "shares": {},
                }
            )
        return {"ok": True, "files": completed}

    def _api_apps_connections_open(self, call: RecordedCall) -> dict[str, Any]:
        ticket = uuid.uuid4().hex
        url = f"ws://127.0.0.1:{self._port}/socket-mode/link?ticket={ticket}&app_id={self.workspace.app_id}"
        return {"ok": True, "url": url}


def _as_envelope(payloads: PayloadFactory, event: Mapping[str, Any]) -> dict[str, Any]:
    if event.get("type") in ("event_callback", "url_verification"):
        return dict(event)
    return payloads.event_callback(event)


# --------------------------------------------------------------------------------------------------
# Signed requests to a bolt HTTP endpoint
# --------------------------------------------------------------------------------------------------


@dataclass
class SlackReply:
    """What the app answered to one signed request (``headers`` with lower-cased names), and the payload
    that was sent."""

    status: int
    headers: dict[str, str]
    text: str
    sent: dict[str, Any]

    def json(self) -> Any:
        return json.loads(self.text)


class SlackSender:
    """Plays Slack's side of HTTP mode: signs payloads and POSTs them to a bolt endpoint.

    Delivery options of every ``event`` / ``command`` / ``interaction`` / ``url_verification`` call:
    ``retry_num`` and ``retry_reason`` set ``X-Slack-Retry-Num`` / ``X-Slack-Retry-Reason`` (Slack
    resends an event, same ``event_id``, up to 3 times when not acked within 3 s);
    ``tamper="bad_signature"`` signs with another secret, ``"stale_timestamp"`` signs correctly a
    timestamp 10 minutes old (bolt refuses beyond 5), ``"unsigned"`` leaves both headers out.
    """

    def __init__(
        self, url: str, signing_secret: str, *, payloads: PayloadFactory | None = None, timeout: float = 30.0
    ) -> None:
        self.url = url
        self.signing_secret = signing_secret
        self.payloads = payloads
        self.timeout = timeout

    async def event(
        self,
        event: Mapping[str, Any],
        *,
        tamper: Tamper | None = None,
        retry_num: int | None = None,
        retry_reason: str | None = None,
    ) -> SlackReply:
        """POST an Events API request. ``event`` is a whole envelope (e.g. ``reply.sent`` of an earlier
        call, to resend it) or a bare event, then wrapped by ``payloads.event_callback``."""
        if event.get("type") in ("event_callback", "url_verification"):
            envelope = dict(event)
        elif self.payloads is not None:
            envelope = self.payloads.event_callback(event)
        else:
            raise ValueError("a bare event needs a SlackSender(payloads=...) to be wrapped in event_callback")
        body = json.dumps(envelope)
        return await self._post(body, "application/json", envelope, tamper, retry_num, retry_reason)

    async def url_verification(self, challenge: str, *, tamper: Tamper | None = None) -> SlackReply:
        token = self.payloads.workspace.verification_token if self.payloads else "verification-token"
        envelope = {"token": token, "challenge": challenge, "type": "url_verification"}
        return await self._post(json.dumps(envelope), "application/json", envelope, tamper, None, None)

    async def command(self, fields: Mapping[str, str], *, tamper: Tamper | None = None) -> SlackReply:
        """POST a slash command, form-encoded (``command=/heyan&text=...&response_url=...``)."""
        sent = dict(fields)
        return await self._post(
            urlencode(sent), "application/x-www-form-urlencoded", sent, tamper, None, None
        )

    async def interaction(self, payload: Mapping[str, Any], *, tamper: Tamper | None = None) -> SlackReply:
        """POST an interactivity payload (``block_actions``, ``view_submission``...) as ``payload=<json>``."""
        sent = dict(payload)
        body = urlencode({"payload": json.dumps(sent)})
        return await self._post(body, "application/x-www-form-urlencoded", sent, tamper, None, None)

    def signed_headers(self, body: str, *, tamper: Tamper | None = None) -> dict[str, str]:
        if tamper == "unsigned":
            return {}
        now = int(time.time())
        timestamp = str(now - 600 if tamper == "stale_timestamp" else now)
        secret = self.signing_secret + "-wrong" if tamper == "bad_signature" else self.signing_secret
        signature = SignatureVerifier(secret).generate_signature(timestamp=timestamp, body=body)
        return {"X-Slack-Request-Timestamp": timestamp, "X-Slack-Signature": signature or ""}

    async def _post(
        self,
        body: str,
        content_type: str,
        sent: dict[str, Any],
        tamper: Tamper | None,
        retry_num: int | None,
        retry_reason: str | None,
    ) -> SlackReply:
        headers = {
            "Content-Type": content_type,
            "User-Agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
            **self.signed_headers(body, tamper=tamper),
        }
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = retry_reason or "http_timeout"
        timeout = aiohttp.ClientTimeout(total=self.timeout)
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.post(self.url, data=body.encode(), headers=headers) as response,
        ):
            text = await response.text()
            answered = {k.lower(): v for k, v in response.headers.items()}
            return SlackReply(response.status, answered, text, sent)


# --------------------------------------------------------------------------------------------------
# Serving a bolt AsyncApp with uvicorn
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServedApp:
    base_url: str
    path: str

    @property
    def events_url(self) -> str:
        return self.base_url + self.path


class _TestServer(uvicorn.Server):
    """``uvicorn.Server`` that leaves the process's signal handlers to pytest."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.asynccontextmanager
async def serve_bolt_app(
    app: AsyncApp, *, path: str = "/slack/events", timeout: float = 30.0
) -> AsyncIterator[ServedApp]:
    """Serve ``app`` through ``AsyncSlackRequestHandler`` with uvicorn on a free loopback port, in this
    event loop, for the duration of the ``async with``; stops it (and waits) on the way out."""
    sock = _bind_loopback()
    config = uvicorn.Config(
        AsyncSlackRequestHandler(app, path=path),
        lifespan="off",
        log_config=None,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=5,
    )
    server = _TestServer(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(timeout):  # uvicorn offers a flag, not an event, for "started"
            while True:
                if server.started or task.done():
                    break
                await asyncio.sleep(0.01)
        if task.done():
            task.result()
            raise RuntimeError("uvicorn stopped before it started")
        port = sock.getsockname()[1]
        yield ServedApp(f"http://127.0.0.1:{port}", path)
    finally:
        server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            server.force_exit = True
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        finally:
            sock.close()
