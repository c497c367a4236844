"""Communities and members as the operator types them on the command line: a tenant Heyan holds
nothing for is an error naming the closest known ones (``memory list --tenant typo`` never prints "0
memories"), and ``--user`` takes a member's name as well as their id (``member record --user Bob``),
refused with "did you mean …?" when nobody in the community goes by it (``bot.moderation.people``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the commands import the runtime where they run (`heyan --help` stays light)
    from adapters.runtime.composition import Runtime

__all__ = ["checked_tenants", "member_in", "members_in"]


async def checked_tenants(rt: Runtime, tenant: str | None) -> list[str]:
    """``[tenant]`` once Heyan is known to hold something for it (NotFound otherwise), or every tenant
    holding memories when none is given."""
    if tenant is not None:
        return [await rt.moderation.check_tenant(tenant.strip())]
    return await rt.store.tenants("facts")


async def member_in(rt: Runtime, tenant: str, text: str) -> str:
    """The user id ``text`` (a name or an id) names in ``tenant``."""
    return await rt.moderation.member_of(tenant, text)


async def members_in(rt: Runtime, tenants: Sequence[str], text: str) -> dict[str, str]:
    """Tenant → the user id ``text`` names there, for every tenant where it names someone; the first
    tenant's refusal (with its suggestions) when it names nobody in any."""
    from bot.actors import NotFound

    found: dict[str, str] = {}
    refusal: NotFound | None = None
    for tenant in tenants:
        try:
            found[tenant] = await member_in(rt, tenant, text)
        except NotFound as exc:
            refusal = refusal or exc
    if not found:
        if refusal is not None:
            raise refusal
        raise NotFound(f"no member named {text!r}: Heyan holds no records yet", f"没有叫“{text}”的成员：和言还没有任何记录")
    return found
