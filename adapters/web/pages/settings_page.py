"""The settings page: every community setting as a form field, each number read as the CLI and the
platforms' commands read it (``bot.config.tenants.parse_days``: finite, within its range; "nan", "inf" and
"1e999" refused by name), then changed together through the moderation service, which validates and
audits them — only what changed, and only when something did."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from adapters.web.access.auth import console
from adapters.web.pages.pages import Caller, Who, base, form, render
from bot.actors import InvalidRequest
from bot.config.tenants import TenantSettingError, TenantSettings, parse_days
from memory.models import Kind

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.get("/t/{tenant}/settings", response_class=HTMLResponse)
async def settings(request: Request, who: Who, saved: bool = False) -> HTMLResponse:
    values = await console(request).moderation.community_settings(who)
    return render(request, "settings.html", tenant=who.tenant, values=values, saved=saved)


def _changes(values: dict[str, str], current: TenantSettings) -> dict[str, Any]:
    """The settings the form changes (a blank timezone or language keeps its value)."""
    changes: dict[str, Any] = {}
    for name in ("timezone", "language", "dispute_openers", "digest_schedule"):
        value = values.get(name, "").strip()
        if value and value != getattr(current, name):
            changes[name] = value
    if "digest_channel" in values and values["digest_channel"].strip() != current.digest_channel:
        changes["digest_channel"] = values["digest_channel"].strip()
    purge = values.get("closed_purge_days", "").strip()
    if purge:
        days = parse_days(purge, "days before a closed dispute is purged")
        if days != current.closed_purge_days:
            changes["closed_purge_days"] = days
    if "forget_after_days" in values:
        raw = values["forget_after_days"].strip()
        after = parse_days(raw, "days before forgetting") if raw else None
        if after != current.forget_after_days:
            changes["forget_after_days"] = after
    below = values.get("forget_below", "").strip()
    if below:
        weight = parse_days(below, "the forgetting weight", top=1.0, unit="")
        if weight != current.forget_below:
            changes["forget_below"] = weight
    retention = dict(current.retention_days)
    for kind in Kind:
        raw = values.get(f"retention_{kind.value}", "").strip()
        if raw:
            retention[kind.value] = parse_days(raw, f"retention for {kind.value}", keep=("keep",), zero=False)
        else:
            retention.pop(kind.value, None)
    if retention != current.retention_days:
        changes["retention_days"] = retention
    for name in ("moderator_roles", "dispute_channels"):
        listed = [v for v in (x.strip() for x in values.get(name, "").replace("\n", ",").split(",")) if v]
        if listed != getattr(current, name):
            changes[name] = listed
    return changes


@router.post("/t/{tenant}/settings")
async def settings_save(request: Request, who: Who, principal: Caller) -> Response:
    values = await form(request, principal)
    moderation = console(request).moderation
    current = await moderation.community_settings(who)
    try:
        changes = _changes(values, current)
    except TenantSettingError as exc:
        raise InvalidRequest(str(exc), f"设置无效：{exc}") from None
    if changes:
        await moderation.update_community_settings(who, values.get("reason", "")[:500], **changes)
    return RedirectResponse(f"{base(who.tenant)}/settings?saved=1", status_code=303)
