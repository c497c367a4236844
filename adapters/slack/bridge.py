"""What the Slack listeners share: the runtime's services and the Slack-side helpers.

One ``Bridge`` per running ``SlackPlatform``. Listeners are thin — parse the payload, call the
engine or the moderation service, render — and reach their collaborators here. It also keeps the
small per-process state the adapter needs: which tenants have been seen since start (to cancel a
pending purge when Heyan is added back), and the outcome of recent deliveries.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from adapters.runtime import Runtime
from adapters.slack.dedupe import EventGate, Outcomes
from adapters.slack.mapping import People, tenant_from
from adapters.slack.sender import SlackSender
from bot.departures import tenant_returned

__all__ = ["Bridge"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Bridge:
    """The Slack adapter's collaborators (built by ``adapters.slack.app.build_app``)."""

    rt: Runtime
    client: AsyncWebClient
    people: People
    gate: EventGate
    sender: SlackSender
    bot_user_id: str
    outcomes: Outcomes = field(default_factory=Outcomes)
    _present: set[str] = field(default_factory=set)

    async def tenant(self, context: Mapping[str, Any], body: Mapping[str, Any]) -> str:
        """The request's tenant. The first request of a tenant since start cancels a purge that
        was pending because Heyan had been removed from it (it is back)."""
        tenant = tenant_from(context, body)
        if tenant not in self._present:
            self._present.add(tenant)
            if await tenant_returned(self.rt.redis, tenant):
                log.info("Heyan is back in %s: its pending purge is cancelled", tenant)
        return tenant

    def left(self, tenant: str) -> None:
        """Heyan was removed from ``tenant``: a later request means it came back."""
        self._present.discard(tenant)

    async def zone(self, tenant: str, user_id: str) -> str:
        """The zone to show times in for ``user_id``: their own Slack ``tz``, else the workspace's."""
        profile = await self.people.directory.user(user_id)
        return profile.tz or (await self.rt.tenants.get(tenant)).timezone
