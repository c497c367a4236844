"""Reading a conversation back from Slack: the context of a mention, and catch-up after downtime.

``reader`` (a ``HistoryReader``) reads a thread's replies or the channel's recent history up to the
mention, as context for one reply, never stored; ``since`` reads everything after a ts, paged, up to
``CATCHUP_LIMIT``. Slack's refusals raise ``HistoryRefused`` for the caller to decide; rate limits are
not waited out. Only people's messages are read, as the live events are.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.context import HISTORY_LIMIT
from bot.models import Message
from bot.ports import HistoryReader
from memory.errors import HeyanError

__all__ = ["CATCHUP_LIMIT", "HistoryRefused", "SlackMessage", "before", "is_from_a_person", "reader", "since"]

log = logging.getLogger(__name__)

#: Messages read back per open dispute at start (older ones beyond it are left: say so in the log).
CATCHUP_LIMIT = 1000
#: Messages asked for per page (Slack's maximum for history is 999; smaller pages answer faster).
PAGE = 200
#: Pages (probes) of a long thread read to reach its latest replies before a mention.
MAX_PAGES = 5

SlackMessage = Mapping[str, Any]
#: Turns a Slack message (with its ``channel``) into a ``Message`` of the given session.
ToMessage = Callable[[SlackMessage, str], Awaitable[Message]]

_READABLE = (None, "thread_broadcast", "file_share")


class HistoryRefused(HeyanError, RuntimeError):
    """Slack refused a history read; ``error`` is Slack's (``not_in_channel``, ``missing_scope``,
    ``ratelimited``...), ``needed`` the scope it asked for."""

    def __init__(self, method: str, error: str, *, needed: str | None = None) -> None:
        super().__init__(f"{method}: {error}" + (f" (needs {needed})" if needed else ""))
        self.method = method
        self.error = error
        self.needed = needed


def is_from_a_person(message: SlackMessage) -> bool:
    """A person's message of a kind Heyan reads (not a bot's, not a join or a tombstone)."""
    return (isinstance(message.get("user"), str) and not message.get("bot_id")
            and message.get("subtype") in _READABLE and isinstance(message.get("ts"), str))


async def _call(client: AsyncWebClient, method: str, args: dict[str, Any]) -> Mapping[str, Any]:
    try:
        response = await client.api_call(method, http_verb="GET", params=args)
    except SlackApiError as exc:
        refused = exc.response.data if isinstance(exc.response.data, dict) else {}
        error = str(refused.get("error") or ("ratelimited" if exc.response.status_code == 429
                                             else f"HTTP {exc.response.status_code}"))
        raise HistoryRefused(method, error, needed=refused.get("needed")) from None
    except (SlackClientError, aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise HistoryRefused(method, f"unreachable ({type(exc).__name__})") from None
    data: Mapping[str, Any] = response.data if isinstance(response.data, dict) else {}
    return data


def _next(page: Mapping[str, Any]) -> str | None:
    cursor = (page.get("response_metadata") or {}).get("next_cursor")
    return str(cursor) if page.get("has_more") and cursor else None


async def replies(client: AsyncWebClient, channel: str, thread_ts: str, *, oldest: str | None = None,
                  latest: str | None = None, keep: int = CATCHUP_LIMIT, pages: int = 50) -> list[dict[str, Any]]:
    """A thread's messages (parent first, then replies oldest first), keeping the last ``keep``
    replies when there are more; ``oldest`` / ``latest`` bound the replies (exclusive)."""
    found, complete = await _replies(client, channel, thread_ts, oldest=oldest, latest=latest, keep=keep,
                                     pages=pages)
    if not complete:
        log.warning("thread %s/%s is longer than %d pages; its latest replies were not all read",
                    channel, thread_ts, pages)
    return found


async def _replies(client: AsyncWebClient, channel: str, thread_ts: str, *, oldest: str | None, latest: str | None,
                   keep: int, pages: int) -> tuple[list[dict[str, Any]], bool]:
    """``replies``, and whether every page of the range was read."""
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(pages):
        args: dict[str, Any] = {"channel": channel, "ts": thread_ts, "limit": PAGE}
        if oldest:
            args["oldest"] = oldest
        if latest:
            args["latest"], args["inclusive"] = latest, True
        if cursor:
            args["cursor"] = cursor
        page = await _call(client, "conversations.replies", args)
        found += [dict(m) for m in page.get("messages") or ()]
        cursor = _next(page)
        if cursor is None:
            break
    parent = [m for m in found if m.get("ts") == thread_ts][:1]
    rest = sorted({m["ts"]: m for m in found if m.get("ts") != thread_ts}.values(), key=lambda m: str(m["ts"]))
    if oldest:
        rest = [m for m in rest if str(m["ts"]) > oldest]
    return parent + rest[-keep:], cursor is None


async def before(client: AsyncWebClient, channel: str, thread_ts: str, latest: str, *, keep: int,
                 probes: int = MAX_PAGES) -> list[dict[str, Any]]:
    """The parent and the last (up to ``keep``) replies of a thread up to ``latest`` (a mention).

    Slack returns a thread earliest first, a page at a time, and a page may be smaller than asked
    (15 messages for a non-Marketplace app). One page holds most threads. For a longer one, reading
    on from the start would give its first pages, not what was said just before the mention; so the
    start of the range (``oldest``) is bisected in time, one page per probe, for the widest range
    ending at ``latest`` that one page holds: the replies nearest the mention."""
    found, complete = await _replies(client, channel, thread_ts, oldest=None, latest=latest, keep=keep, pages=1)
    if complete:
        return found
    parent = [m for m in found if m.get("ts") == thread_ts][:1]
    lo, hi = float(thread_ts), float(latest)
    best: list[dict[str, Any]] = []
    nearest: list[dict[str, Any]] = []  # the latest range too long for a page: its first page
    for _ in range(probes):
        mid = (lo + hi) / 2
        window, complete = await _replies(client, channel, thread_ts, oldest=f"{mid:.6f}", latest=latest, keep=keep,
                                          pages=1)
        rest = [m for m in window if m.get("ts") != thread_ts]
        if complete:  # every reply after ``mid``: widen while it holds fewer than ``keep``
            best, hi = rest, mid
            if len(rest) >= keep:
                break
        else:
            nearest, lo = rest, mid
    return parent + (best or nearest)[-keep:]


async def history(client: AsyncWebClient, channel: str, *, oldest: str | None = None, latest: str | None = None,
                  keep: int = CATCHUP_LIMIT) -> list[dict[str, Any]]:
    """The channel's top-level messages (threads by their parents) after ``oldest`` and up to
    ``latest``, oldest first: the newest ``keep`` of them."""
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    while len(found) < keep:
        args: dict[str, Any] = {"channel": channel, "limit": min(PAGE, keep - len(found))}
        if oldest:
            args["oldest"] = oldest
        if latest:
            args["latest"], args["inclusive"] = latest, True
        if cursor:
            args["cursor"] = cursor
        page = await _call(client, "conversations.history", args)
        found += [dict(m) for m in page.get("messages") or ()]  # newest first
        cursor = _next(page)
        if cursor is None:
            break
    if cursor is not None:
        log.warning("more than %d messages in %s since %s; the oldest of them were not read", keep, channel, oldest)
    return sorted(found[:keep], key=lambda m: str(m.get("ts")))


def reader(client: AsyncWebClient, channel: str, thread_ts: str | None, mention_ts: str, session: str,
           to_message: ToMessage, *, limit: int = HISTORY_LIMIT) -> HistoryReader:
    """The ``HistoryReader`` of a mention ``mention_ts`` in ``channel`` (in the thread ``thread_ts``)."""

    async def read() -> Sequence[Message]:
        if thread_ts and thread_ts != mention_ts:
            raw = await before(client, channel, thread_ts, mention_ts, keep=limit)
        else:
            raw = await history(client, channel, latest=mention_ts, keep=limit)
        return [await to_message({**m, "channel": channel}, session) for m in raw if is_from_a_person(m)]

    return read


async def since(client: AsyncWebClient, channel: str, thread_ts: str | None, oldest: str,
                threads: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every person's message after ``oldest``: in the thread ``thread_ts``, or in the channel —
    its top level, the threads of new parents, and the known ``threads`` — oldest first, bounded."""
    if thread_ts:
        found = [m for m in await replies(client, channel, thread_ts, oldest=oldest) if str(m["ts"]) > oldest]
    else:
        top = await history(client, channel, oldest=oldest)
        parents = {str(m["ts"]) for m in top if m.get("reply_count") or m.get("latest_reply")}
        found = list(top)
        for parent in sorted(parents | set(threads)):
            try:
                found += [m for m in await replies(client, channel, parent, oldest=oldest)
                          if str(m["ts"]) > oldest and m.get("ts") != parent]
            except HistoryRefused as exc:
                if exc.error != "thread_not_found":  # a parent deleted without replies: nothing to read
                    raise
    unique = {str(m["ts"]): {**m, "channel": channel} for m in found if is_from_a_person(m)}
    return [unique[ts] for ts in sorted(unique)][-CATCHUP_LIMIT:]
