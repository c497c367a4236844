"""What the Slack listeners share: the core's platform port and the Slack-side helpers.

One ``Bridge`` per ``SlackPlatform``; thin listeners reach their collaborators here.
``bridge.at(tenant)`` is one workspace's ``Here`` (its clients, bot user, people), the same for a live
request, a re-queued event, catch-up and the outbox. It also keeps the tenants seen since start (to
cancel a pending purge) and recent delivery outcomes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.connection.clients import make_client
from adapters.slack.connection.scopes import ScopeNotices
from adapters.slack.connection.sender import SlackSender
from adapters.slack.connection.workspaces import NotInstalled, RedisOAuthStateStore, Workspace, Workspaces
from adapters.slack.events.dedupe import EventGate, Outcomes
from adapters.slack.events.mapping import Directory, People, tenant_from
from adapters.slack.events.places import Places
from adapters.slack.events.redo import EventRedo
from bot.platform_port import PlatformPort

__all__ = ["Bridge", "Here", "NotInstalled", "SlackStores"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Here:
    """One workspace as the listeners use it."""

    tenant: str
    workspace: Workspace
    #: Posts, lookups and views (waits out one rate limit).
    client: AsyncWebClient
    #: History reads (does not wait: a refused read is answered from memory at once).
    reads: AsyncWebClient
    people: People

    @property
    def bot_user_id(self) -> str:
        return self.workspace.bot_user_id


@dataclass(frozen=True, slots=True)
class SlackStores:
    """What Slack keeps in the process's Redis for its own wire, built by ``adapters.slack.platform``
    (the one Slack module that sees the runtime)."""

    #: Each event delivery handled once (``dedupe``).
    gate: EventGate
    #: Where a message belongs (``places``): dispute threads, catch-up marks.
    places: Places
    #: Deliveries that failed after the ack, re-run as jobs (``redo``).
    redo: EventRedo
    #: Missing-scope notices, once per workspace and scope (``scopes``).
    scopes: ScopeNotices
    #: OAuth install states (HTTP mode's install flow).
    oauth_states: RedisOAuthStateStore


@dataclass(slots=True)
class Bridge:
    """The Slack adapter's collaborators (built by ``adapters.slack.app.build_app``)."""

    port: PlatformPort
    workspaces: Workspaces
    gate: EventGate
    places: Places
    redo: EventRedo
    scopes: ScopeNotices
    api_url: str | None = None
    moderator_group: str | None = None
    #: Days after an uninstall before the workspace's data is purged (``HEYAN_SLACK_LEAVE_PURGE_DAYS``).
    leave_purge_days: float = 7.0
    outcomes: Outcomes = field(default_factory=Outcomes)
    sender: SlackSender = field(init=False)
    _present: set[str] = field(default_factory=set)
    _here: dict[str, Here] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.sender = SlackSender(self)

    async def tenant(self, context: Mapping[str, Any], body: Mapping[str, Any]) -> str:
        """The request's tenant. The first request of a tenant since start cancels a purge that
        was pending because Heyan had been removed from it (it is back)."""
        tenant = tenant_from(context, body)
        await self.arrived(tenant)
        return tenant

    async def arrived(self, tenant: str) -> None:
        if tenant not in self._present:
            self._present.add(tenant)
            if await self.port.departures.returned(tenant):
                log.info("Heyan is back in %s: its pending purge is cancelled", tenant)

    def left(self, tenant: str) -> None:
        """Heyan was removed from ``tenant``: a later request means it came back."""
        self._present.discard(tenant)
        self._here.pop(tenant, None)

    async def at(self, tenant: str) -> Here:
        """The workspace ``tenant`` (NotInstalled when Heyan is not installed there)."""
        ws = await self.workspaces.get(tenant)
        if ws is None:
            self._here.pop(tenant, None)
            raise NotInstalled(f"Heyan is not installed in {tenant}")
        here = self._here.get(tenant)
        if here is None or here.workspace != ws:  # first use, or reinstalled with a new token
            client = make_client(ws.bot_token, self.api_url)
            people = People(Directory(client), self.port.tenants, tenant=tenant, bot_user_id=ws.bot_user_id,
                            moderator_group=self.moderator_group)
            here = Here(tenant, ws, client, make_client(ws.bot_token, self.api_url, wait_rate_limit=False), people)
            self._here[tenant] = here
        return here

    async def zone(self, tenant: str, user_id: str) -> str:
        """The zone to show times in for ``user_id``: their own Slack ``tz``, else the workspace's."""
        profile = await (await self.at(tenant)).people.directory.user(user_id)
        return profile.tz or (await self.port.tenants.get(tenant)).timezone
