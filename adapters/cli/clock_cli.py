"""Which zone the console shows times in: each tenant's (``heyan tenant set-timezone``, default
``HEYAN_TIMEZONE``) — the zone replies use when the asker's own is not known — or the one ``--zone``
names. Tables name it in their headings, JSON beside each time (``bot.text.clock``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from adapters.cli.cli_common import fail
from bot.text.zones import is_zone

if TYPE_CHECKING:  # the CLI imports the runtime inside its commands (`heyan --help` stays light)
    from adapters.runtime.composition import Runtime

__all__ = ["ZONE_HELP", "checked_zone", "display_zones"]

ZONE_HELP = ("show times in this zone (an IANA name such as Asia/Shanghai, or an offset such as +08:00); "
             "default: each tenant's zone")


def checked_zone(zone: str | None) -> str | None:
    """``--zone`` as given, or a clear refusal naming the accepted forms."""
    if zone is not None and not is_zone(zone):
        raise fail(f"unknown zone {zone!r}: give an IANA name such as Asia/Shanghai or an offset such as +08:00")
    return zone


async def display_zones(rt: Runtime, tenants: Iterable[str], zone: str | None) -> dict[str, str]:
    """Tenant → the zone its times are shown in."""
    return {t: zone or (await rt.tenants.get(t)).timezone for t in tenants}
