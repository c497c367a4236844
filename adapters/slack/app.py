"""The bolt ``AsyncApp`` for Heyan: listeners, the malformed-payload guard, and the HTTP entry point.

``build_app`` wires the listeners to a ``Bridge``. Request verification stays on (forged or replayed:
401). A signed but unreadable payload gets 400 and nothing is stored (``reject_malformed``, after
verification and before authorization; ``HeyanRequestHandler`` for bodies bolt cannot parse, which it
would answer 500, making Slack retry).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from slack_bolt.adapter.asgi.async_handler import AsyncSlackRequestHandler
from slack_bolt.adapter.asgi.http_request import AsgiHttpRequest
from slack_bolt.async_app import AsyncApp
from slack_bolt.oauth.async_callback_options import AsyncCallbackOptions, AsyncFailureArgs, AsyncSuccessArgs
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.signature import SignatureVerifier

from adapters.slack.bridge import Bridge, SlackStores
from adapters.slack.commands import actions, agreements, shortcuts, slash
from adapters.slack.connection.clients import make_client
from adapters.slack.connection.scopes import REQUIRED_SCOPES
from adapters.slack.connection.workspaces import WorkspaceAuthorize, Workspaces
from adapters.slack.events import lifecycle, listeners
from adapters.slack.events.mapping import tenant_of
from bot.platform_port import PlatformPort

__all__ = ["EVENTS_PATH", "INSTALL_PATH", "REDIRECT_PATH", "HeyanRequestHandler", "Identity", "OAuthConfig",
           "build_app", "problem", "reject_malformed"]

log = logging.getLogger(__name__)

#: Where HTTP mode receives events, slash commands and interactivity (the manifest's request URLs).
EVENTS_PATH = "/slack/events"
#: OAuth (many workspaces): where an admin starts installing Heyan, and where Slack sends them back.
INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"

_TS = re.compile(r"^\d+\.\d+$")
_INTERACTIVE = ("block_actions", "view_submission", "view_closed", "shortcut", "message_action")


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the bot is in the workspace, from ``auth.test`` at start-up."""

    team_id: str
    bot_user_id: str
    bot_id: str
    enterprise_id: str | None = None
    scopes: frozenset[str] = frozenset()


def _str(data: Mapping[str, Any], *keys: str) -> str | None:
    """The first of ``keys`` missing or not a non-empty string, else None."""
    for key in keys:
        value = data.get(key)
        if not isinstance(value, str) or not value:
            return key
    return None


def _event_problem(event: Mapping[str, Any]) -> str | None:
    kind, subtype = event.get("type"), event.get("subtype")
    if kind in ("app_mention", "message") and subtype in (None, "thread_broadcast", "file_share"):
        missing = _str(event, "channel", "ts")
        if missing:
            return f"{kind} without {missing}"
        if not _TS.match(str(event["ts"])) or ("thread_ts" in event and not _TS.match(str(event["thread_ts"]))):
            return f"{kind} with a malformed ts"
        if kind == "app_mention" and not isinstance(event.get("user"), str) and not event.get("bot_id"):
            return "app_mention without user"
    elif kind == "message" and subtype == "message_changed":
        inner = event.get("message")
        if _str(event, "channel") or not isinstance(inner, Mapping) or _str(inner, "ts"):
            return "message_changed without channel or message ts"
        if not _TS.match(str(inner["ts"])):
            return "message_changed with a malformed ts"
    elif kind == "message" and subtype == "message_deleted":
        if _str(event, "channel", "deleted_ts") or not _TS.match(str(event["deleted_ts"])):
            return "message_deleted without channel or deleted_ts"
    elif kind == "app_home_opened" and _str(event, "user"):
        return "app_home_opened without user"
    return None


def problem(body: Any) -> str | None:
    """What makes a verified payload unusable, or None. Only shapes Heyan handles are checked; any
    other payload goes on to bolt (which answers 404 when no listener wants it)."""
    if not isinstance(body, Mapping):
        return "the payload is not a JSON object"
    kind = body.get("type")
    if body.get("ssl_check") or kind == "url_verification":
        return None
    if kind == "event_callback":
        event = body.get("event")
        if not isinstance(event, Mapping) or not isinstance(event.get("type"), str):
            return "event_callback without an event"
        if _str(body, "team_id"):
            return "event_callback without team_id"
        return _event_problem(event)
    if "command" in body:
        missing = _str(body, "command", "user_id", "channel_id", "team_id")
        return f"slash command without {missing}" if missing else None
    if kind in _INTERACTIVE:
        user, team = body.get("user"), body.get("team")
        if not isinstance(user, Mapping) or _str(user, "id"):
            return f"{kind} without user"
        if not (isinstance(team, Mapping) and isinstance(team.get("id"), str)) and not body.get("enterprise"):
            return f"{kind} without team"
        if kind == "block_actions":
            acts = body.get("actions")
            if not isinstance(acts, list) or not acts or not all(
                    isinstance(a, Mapping) and isinstance(a.get("action_id"), str) for a in acts):
                return "block_actions without actions"
        if kind == "view_submission":
            view = body.get("view")
            if not isinstance(view, Mapping) or _str(view, "callback_id") or not isinstance(view.get("state"), Mapping):
                return "view_submission without a view"
    return None


async def reject_malformed(request: AsyncBoltRequest, next: Callable[[], Awaitable[Any]]) -> Any:
    """bolt middleware (before authorization): 400 for a verified payload Heyan cannot read. Over
    Socket Mode it is acked instead (an unacked envelope is only sent again) and dropped."""
    issue = problem(request.body)
    if issue is None:
        return await next()
    log.warning("refused a malformed Slack payload: %s", issue)
    if request.mode == "socket_mode":
        return BoltResponse(status=200, body="")
    return BoltResponse(status=400, body={"error": "malformed payload", "detail": issue})


class HeyanRequestHandler(AsyncSlackRequestHandler):
    """bolt's ASGI adapter, except that a body bolt cannot parse is answered 401 (unsigned or
    forged) or 400 (signed), never 500."""

    def __init__(self, app: AsyncApp, signing_secret: str, path: str = EVENTS_PATH) -> None:
        super().__init__(app, path)
        self.verifier = SignatureVerifier(signing_secret)

    async def dispatch(self, request: AsgiHttpRequest) -> BoltResponse:
        raw = bytearray()
        while True:
            chunk = await request.receive()
            if chunk["type"] != "http.request":
                return BoltResponse(status=400, body={"error": "the request body did not arrive"})
            raw.extend(chunk.get("body", b""))
            if not chunk.get("more_body", False):
                break
        headers = request.get_headers()
        try:
            bolt_request = AsyncBoltRequest(body=bytes(raw).decode("utf-8"), query=request.query_string,
                                            headers=headers)
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            timestamp = str(headers.get("x-slack-request-timestamp") or "0")
            signature = str(headers.get("x-slack-signature") or "")
            if not self.verifier.is_valid(bytes(raw), timestamp, signature):
                return BoltResponse(status=401, body={"error": "invalid request"})
            log.warning("refused an unreadable Slack payload: %s", exc)
            return BoltResponse(status=400, body={"error": "malformed payload", "detail": "unreadable body"})
        return await self.app.async_dispatch(bolt_request)


@dataclass(frozen=True, slots=True)
class OAuthConfig:
    """Many workspaces: the app's OAuth client, for bolt's install flow (HTTP mode)."""

    client_id: str
    client_secret: str = field(repr=False)
    redirect_uri: str | None = None


def build_app(port: PlatformPort, workspaces: Workspaces, stores: SlackStores, *, signing_secret: str = "",
              moderator_group: str | None = None, api_url: str | None = None, oauth: OAuthConfig | None = None,
              leave_purge_days: float = 7.0) -> tuple[AsyncApp, Bridge]:
    """The bolt app over the platform ``port`` and Slack's ``stores`` with every Heyan listener, and
    the ``Bridge`` they share.

    Authorization is ``WorkspaceAuthorize`` over ``workspaces`` (one bot token, or the installations
    in Redis); with ``oauth`` bolt's ``AsyncOAuthFlow`` serves ``/slack/install`` and
    ``/slack/oauth_redirect`` and saves each installation in ``workspaces.installations``."""
    bridge = Bridge(port=port, workspaces=workspaces, gate=stores.gate, places=stores.places, redo=stores.redo,
                    scopes=stores.scopes, api_url=api_url, moderator_group=moderator_group,
                    leave_purge_days=leave_purge_days)
    oauth_settings = None
    if oauth is not None:
        assert workspaces.installations is not None, "OAuth installs need an installation store"

        async def installed(args: AsyncSuccessArgs) -> BoltResponse:
            inst = args.installation
            tenant = tenant_of(inst.team_id or "", inst.enterprise_id)
            bridge.left(tenant)  # a reinstall: forget the old token's clients
            await bridge.arrived(tenant)  # back within the grace period: its purge is cancelled
            missing = sorted(set(REQUIRED_SCOPES) - set(inst.bot_scopes or ()))
            if missing:
                log.error("Heyan was installed in %s without the scopes %s", tenant, ", ".join(missing))
            return await args.default.success(args)

        async def failed(args: AsyncFailureArgs) -> BoltResponse:
            log.warning("a Slack install failed: %s", args.reason)
            return await args.default.failure(args)

        oauth_settings = AsyncOAuthSettings(
            client_id=oauth.client_id, client_secret=oauth.client_secret, scopes=list(REQUIRED_SCOPES),
            redirect_uri=oauth.redirect_uri, installation_store=workspaces.installations,
            state_store=stores.oauth_states, install_path=INSTALL_PATH, redirect_uri_path=REDIRECT_PATH,
            callback_options=AsyncCallbackOptions(success=installed, failure=failed),
        )
    app = AsyncApp(
        # bolt names its logger after the app and pins that logger's level to the root's at creation:
        # a name of its own keeps it from freezing the level of anything else logged as "heyan.*"
        name="heyan.slack",
        client=make_client(None, api_url),
        signing_secret=signing_secret,
        request_verification_enabled=True,
        process_before_response=False,  # ack first: Slack waits 3 s, the mediator may take longer
        before_authorize=reject_malformed,
        authorize=WorkspaceAuthorize(workspaces),  # type: ignore[arg-type]  # bolt accepts an AsyncAuthorize too
        oauth_settings=oauth_settings,
    )
    listeners.register(app, bridge)
    lifecycle.register(app, bridge)
    slash.register(app, bridge)
    shortcuts.register(app, bridge)
    actions.register(app, bridge, slash.page)
    agreements.register(app, bridge)
    return app, bridge
