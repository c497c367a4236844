"""The stand-in's conversation history, OAuth install and Block Kit checks (mixed into ``SlackStandIn``).

As Slack documents them:

* ``conversations.history`` — a conversation's top-level messages (a thread by its parent, with
  ``reply_count`` / ``latest_reply``), newest first; ``oldest`` / ``latest`` bound it (exclusive
  unless ``inclusive``), ``limit`` (default 100, at most 999) and ``cursor`` page it.
  ``conversations.replies`` — a thread: the parent first, then its replies oldest first (``ts`` may be
  any message of the thread; ``thread_not_found`` otherwise), the same bounds on the replies,
  ``limit`` default 1000. Both need the bot in the conversation (``not_in_channel`` for a public
  channel it is not in, ``channel_not_found`` for a private one) and the ``*:history`` scope of
  its kind (``missing_scope`` with ``needed`` / ``provided``).
* A deleted message leaves the history; a deleted thread parent that has replies stays as a
  ``tombstone`` ("This message was deleted.", ``hidden``), and Slack tells the app with a
  ``message_changed`` carrying that tombstone.
* ``oauth.v2.access`` — exchanges a code issued by ``approve`` (the user clicking "Allow" on
  ``oauth/v2/authorize``) for the workspace's bot token: ``access_token``, ``token_type: bot``,
  ``scope``, ``bot_user_id``, ``app_id``, ``team``, ``enterprise``, ``authed_user``,
  ``is_enterprise_install``. A code works once (``invalid_code``); a wrong secret is
  ``bad_client_secret``, a wrong client id ``invalid_client_id``, a redirect URI other than the one
  the authorization asked for ``bad_redirect_uri``.
* Uninstalling (``uninstall``) deactivates the workspace's bot user: calls with its bot token answer
  ``account_inactive`` ("Authentication token is for a deleted user or workspace when using a bot
  token"; ``token_revoked`` is the user-token wording of the same table: "... or the app has been
  removed when using a user token") — Slack's common error table, on every method page.
  ``revoked_tokens`` (a token revoked on its own, ``tokens_revoked``) still answer ``token_revoked``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urlparse

__all__ = ["TOMBSTONE_TEXT", "ApiError", "StandInMore"]

TOMBSTONE_TEXT = "This message was deleted."


class ApiError(Exception):
    def __init__(self, error: str, **extra: Any) -> None:
        super().__init__(error)
        self.error = error
        self.extra = extra


def _ts_after(ts: str, bound: str | None, inclusive: bool) -> bool:
    return bound is None or float(ts) > float(bound) or (inclusive and float(ts) == float(bound))


def _ts_before(ts: str, bound: str | None, inclusive: bool) -> bool:
    return bound is None or float(ts) < float(bound) or (inclusive and float(ts) == float(bound))


def _truthy(value: Any) -> bool:
    return value is True or str(value).lower() in ("1", "true")


class StandInMore:
    """History, threads, tombstones and OAuth for ``SlackStandIn`` (which defines the state)."""

    messages: dict[str, list[dict[str, Any]]]
    #: At most this many messages per history/replies page whatever ``limit`` asks (None: ``limit``).
    #: Both method pages: "Fewer than the requested number of items may be returned, even if the end
    #: of the list hasn't been reached" — e.g. 15 for a non-Marketplace app distributed commercially
    #: (docs.slack.dev/changelog/2025/05/29/rate-limit-changes-for-non-marketplace-apps).
    page_cap: int | None = None

    # -- history ------------------------------------------------------------------------------------

    def _readable_channel(self, channel_id: Any) -> Any:
        channel = self._channel(channel_id, scope_suffix="history")  # type: ignore[attr-defined]
        if not channel.bot_is_member:
            raise ApiError("not_in_channel")
        return channel

    def _thread_of(self, channel: str, ts: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        history = self.messages.get(channel, [])
        message = next((m for m in history if m["ts"] == ts), None)
        # "thread_not_found ... can also apply to the channel_leave and channel_join message subtypes,
        # as these message subtypes cannot be threaded" (conversations.replies, usage info)
        if message is None or message.get("subtype") in ("channel_join", "channel_leave"):
            raise ApiError("thread_not_found")
        parent_ts = message.get("thread_ts") or ts
        parent = next((m for m in history if m["ts"] == parent_ts), None)
        if parent is None:
            raise ApiError("thread_not_found")
        replies = sorted((m for m in history if m.get("thread_ts") == parent_ts and m["ts"] != parent_ts),
                         key=lambda m: float(m["ts"]))
        return parent, replies

    def _with_thread_info(self, channel: str, message: dict[str, Any]) -> dict[str, Any]:
        replies = [m for m in self.messages.get(channel, []) if m.get("thread_ts") == message["ts"]
                   and m["ts"] != message["ts"]]
        if not replies:
            return dict(message)
        latest = max(replies, key=lambda m: float(m["ts"]))["ts"]
        return {**message, "thread_ts": message["ts"], "reply_count": len(replies),
                "reply_users": sorted({str(m.get("user")) for m in replies}), "latest_reply": latest}

    def _page(self, items: list[dict[str, Any]], params: Mapping[str, Any], default: int, maximum: int) -> dict[str, Any]:
        try:
            limit = min(maximum, self.page_cap or maximum, max(1, int(params.get("limit") or default)))
            start = int(params.get("cursor") or 0)
        except ValueError:
            raise ApiError("invalid_cursor") from None
        page = items[start:start + limit]
        more = start + limit < len(items)
        return {"ok": True, "messages": page, "has_more": more,
                "response_metadata": {"next_cursor": str(start + limit) if more else ""}}

    def _api_conversations_history(self, call: Any) -> dict[str, Any]:
        p = call.params
        channel = self._readable_channel(p.get("channel"))
        inclusive = _truthy(p.get("inclusive"))
        top = [self._with_thread_info(channel.id, m) for m in self.messages.get(channel.id, [])
               if not m.get("thread_ts") or m.get("thread_ts") == m["ts"] or m.get("subtype") == "thread_broadcast"]
        top = [m for m in top if _ts_after(m["ts"], p.get("oldest"), inclusive)
               and _ts_before(m["ts"], p.get("latest"), inclusive)]
        top.sort(key=lambda m: float(m["ts"]), reverse=True)
        return {**self._page(top, p, 100, 999), "pin_count": 0}

    def _api_conversations_replies(self, call: Any) -> dict[str, Any]:
        p = call.params
        channel = self._readable_channel(p.get("channel"))
        if not p.get("ts"):
            raise ApiError("invalid_arguments")
        parent, replies = self._thread_of(channel.id, str(p["ts"]))
        inclusive = _truthy(p.get("inclusive"))
        replies = [m for m in replies if _ts_after(m["ts"], p.get("oldest"), inclusive)
                   and _ts_before(m["ts"], p.get("latest"), inclusive)]
        return self._page([self._with_thread_info(channel.id, parent), *replies], p, 1000, 1000)

    # -- deleting ------------------------------------------------------------------------------------

    def delete_message(self, channel: str, ts: str) -> dict[str, Any] | None:
        """Delete a message as its author would. A thread parent with replies becomes a tombstone,
        which is returned (Slack sends it to apps as ``message_changed``); otherwise None."""
        history = self.messages.get(channel, [])
        message = next((m for m in history if m["ts"] == ts), None)
        if message is None:
            return None
        has_replies = any(m.get("thread_ts") == ts and m["ts"] != ts for m in history)
        if not has_replies:
            history.remove(message)
            return None
        tombstone = {"type": "message", "subtype": "tombstone", "hidden": True, "user": "USLACKBOT",
                     "text": TOMBSTONE_TEXT, "ts": ts, "thread_ts": ts}
        history[history.index(message)] = tombstone
        return tombstone

    # -- OAuth v2 ------------------------------------------------------------------------------------

    oauth_codes: dict[str, dict[str, Any]]

    def approve(self, authorize_url: str, workspace: Any, user: str, *, scopes: list[str] | None = None) -> str:
        """The installing ``user`` of ``workspace`` clicks "Allow" on Slack's authorize page for
        ``authorize_url`` (what the app's ``/slack/install`` pointed to): the app's redirect URL
        with ``code`` and ``state``, as Slack redirects the browser."""
        query = {k: v[0] for k, v in parse_qs(urlparse(authorize_url).query).items()}
        if query.get("client_id") != self.client_id:  # type: ignore[attr-defined]
            raise AssertionError(f"Slack would refuse client_id {query.get('client_id')!r}")
        asked = [s for s in (query.get("scope") or "").split(",") if s]
        code = f"code-{uuid.uuid4().hex[:12]}"
        self.oauth_codes[code] = {"workspace": workspace, "user": user, "scopes": scopes if scopes is not None else asked,
                                  "redirect_uri": query.get("redirect_uri")}
        redirect = query.get("redirect_uri") or self.redirect_uri  # type: ignore[attr-defined]
        state = query.get("state")
        return f"{redirect}?code={code}" + (f"&state={state}" if state else "")

    def _api_oauth_v2_access(self, call: Any) -> dict[str, Any]:
        p = call.params
        client_id, secret = p.get("client_id"), p.get("client_secret")
        auth = call.headers.get("authorization", "")
        if auth.startswith("Basic "):
            import base64

            client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
        if client_id != self.client_id:  # type: ignore[attr-defined]
            raise ApiError("invalid_client_id")
        if secret != self.client_secret:  # type: ignore[attr-defined]
            raise ApiError("bad_client_secret")
        grant = self.oauth_codes.pop(str(p.get("code") or ""), None)
        if grant is None:
            raise ApiError("invalid_code")
        if grant["redirect_uri"] and p.get("redirect_uri") != grant["redirect_uri"]:
            raise ApiError("bad_redirect_uri")
        ws = grant["workspace"]
        ws.scopes = list(grant["scopes"])
        self.add_workspace(ws)  # type: ignore[attr-defined]
        return {
            "ok": True, "app_id": ws.app_id, "access_token": ws.bot_token, "token_type": "bot",
            "scope": ",".join(ws.scopes), "bot_user_id": ws.bot_user_id,
            "team": {"id": ws.team_id, "name": ws.team_name},
            "enterprise": {"id": ws.enterprise_id, "name": ws.enterprise_name} if ws.enterprise_id else None,
            "is_enterprise_install": False,
            "authed_user": {"id": grant["user"], "scope": "", "access_token": None, "token_type": None},
        }

    def uninstall(self, team_id: str) -> dict[str, Any]:
        """The workspace removes the app: its bot user is deactivated, so its bot token answers
        ``account_inactive`` from now on. Returns the ``app_uninstalled`` event Slack sends."""
        for token, ws in list(self.tokens.items()):  # type: ignore[attr-defined]
            if ws.team_id == team_id:
                self.inactive_tokens.add(token)  # type: ignore[attr-defined]
        ws = next(w for w in self.tokens.values() if w.team_id == team_id)  # type: ignore[attr-defined]
        return self.payloads.event_callback({"type": "app_uninstalled", "event_ts": self.next_ts()},  # type: ignore[attr-defined]
                                            workspace=ws)
