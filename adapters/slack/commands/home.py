"""The App Home tab: a member's own memories and commitments, published with ``views.publish``.

Published when the member opens the tab and again after they press a button on it (Home has no
``response_url``, so a refusal or a result is shown as a notice at the top of the refreshed tab).
Its memories are paged (``offset``) to stay within a view's 100 blocks.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from slack_sdk.errors import SlackApiError

from adapters.slack.display.blocks import home_view
from bot.actors import Actor

if TYPE_CHECKING:
    from adapters.slack.bridge import Bridge, Here

__all__ = ["publish_home"]

log = logging.getLogger(__name__)


async def publish_home(bridge: Bridge, here: Here, actor: Actor, notice: str | None = None, *, offset: int = 0) -> None:
    """Publish ``actor``'s Home tab (their memories from ``offset``, their commitments, a notice)."""
    memories = await bridge.port.moderation.my_memories(actor)
    mine = [c for c in await bridge.port.moderation.commitments(actor) if c.subject == actor.user_id]
    zone = await bridge.zone(actor.tenant, actor.user_id)
    view = home_view(memories, mine, actor, zone, notice, offset=offset)
    try:
        await here.client.views_publish(user_id=actor.user_id, view=view)
    except SlackApiError as exc:
        log.error("views.publish for %s failed: %s", actor.user_id, exc.response.get("error"))
        raise
