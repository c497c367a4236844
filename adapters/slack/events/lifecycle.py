"""Workspace-level Slack events: Heyan uninstalled or its token revoked, channels archived or deleted.

Uninstalled or bot token revoked: the installation is deleted at once and the data purged after
``HEYAN_SLACK_LEAVE_PURGE_DAYS`` (``bot.privacy.departures``; cancelled on reinstall). Archived: the channel's
open disputes are closed (summary written, follow-ups withdrawn). Deleted: everything of the channel
is forgotten, as for a deleted message. All audited.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from slack_bolt.async_app import AsyncApp

from adapters.slack.bridge import Bridge
from adapters.slack.events.mapping import tenant_from
from bot.actors import Actor
from bot.sessions import SessionInfo

__all__ = ["channel_gone", "register"]

log = logging.getLogger(__name__)


def _of_channel(info: SessionInfo, channel: str) -> bool:
    return info.session == channel or info.session.startswith(channel + ":")


async def _close_channel(bridge: Bridge, tenant: str, channel: str) -> int:
    """Close the open disputes of an archived channel; returns how many."""
    closed = 0
    for info in await bridge.port.sessions.tenant_sessions(tenant):
        if info.is_open and _of_channel(info, channel):
            await bridge.port.moderation.dispute_close(Actor.operator(tenant), info.session,
                                                     reason="the Slack channel was archived")
            closed += 1
    return closed


async def channel_gone(bridge: Bridge, tenant: str, channel: str) -> int:
    """Forget every session of a deleted channel (the channel's own and its threads'): memories,
    summaries, window, unsent posts, open disputes closed (``bot.privacy.session_deletion``, as on Discord).
    Returns how many records went."""
    port = bridge.port
    removed = 0
    for info in await port.sessions.tenant_sessions(tenant):
        if not _of_channel(info, channel):
            continue
        gone = await port.deletions.forget(tenant, info.session)
        removed += gone.records if gone is not None else 0
    log.info("Slack channel %s of %s was deleted: %d records forgotten", channel, tenant, removed)
    return removed


def register(app: AsyncApp, bridge: Bridge) -> None:
    async def record(body: Mapping[str, Any], outcome: str) -> None:
        await bridge.outcomes.record(str(body.get("event_id") or ""), outcome)

    async def leave(body: dict[str, Any], context: Any) -> None:
        tenant = tenant_from(context, body)  # not bridge.tenant(): that would count as coming back
        await bridge.workspaces.forget(tenant)
        bridge.left(tenant)
        await bridge.port.departures.left(tenant, grace_seconds=bridge.leave_purge_days * 24 * 3600)
        await record(body, "left")

    @app.event("app_uninstalled")
    async def on_uninstalled(body: dict[str, Any], context: Any) -> None:
        await leave(body, context)

    @app.event("tokens_revoked")
    async def on_tokens_revoked(body: dict[str, Any], event: dict[str, Any], context: Any) -> None:
        if (event.get("tokens") or {}).get("bot"):
            await leave(body, context)
        else:
            await record(body, "ignored")  # user tokens only: Heyan has none

    async def archived(body: dict[str, Any], event: dict[str, Any], context: Any) -> None:
        tenant = await bridge.tenant(context, body)
        n = await _close_channel(bridge, tenant, str(event.get("channel") or ""))
        await record(body, "closed" if n else "ignored")

    async def deleted(body: dict[str, Any], event: dict[str, Any], context: Any) -> None:
        tenant = await bridge.tenant(context, body)
        await channel_gone(bridge, tenant, str(event.get("channel") or ""))
        await record(body, "forgotten")

    app.event("channel_archive")(archived)
    app.event("group_archive")(archived)
    app.event("channel_deleted")(deleted)
    app.event("group_deleted")(deleted)
