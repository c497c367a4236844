"""The console's pages about people: the member directory (search by name or id), a member's records
(reached by name or id: a name nobody goes by is refused with the closest ones), their export (a
download whose name may hold any alphabet) and erasure, and the audit log — every person and
community named by name (``bot.text.names``), not by id."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from adapters.web.access.auth import console
from adapters.web.headers import attachment
from adapters.web.pages.pages import Caller, UserId, Who, base, form, names_of, render
from bot.actors import Actor
from bot.privacy.audit import AuditEntry
from bot.text.names import NameBook

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


async def _tenant_names(request: Request, who: Actor, entries: list[AuditEntry] | tuple[AuditEntry, ...] = ()
                        ) -> NameBook:
    """Everyone's latest name in the community (from its records), and the audit's actors'."""
    members = await console(request).moderation.member_directory(who)
    return NameBook.of(names={**{e.actor_id: e.actor_name for e in entries if e.actor_name},
                              **{m.user: m.name for m in members}})


def member_url(tenant: str, user: str) -> str:
    return f"{base(tenant)}/members/{quote(user, safe='')}"


@router.get("/t/{tenant}/members", response_class=HTMLResponse)
async def members(request: Request, who: Who, q: str = "", user: str = "") -> Response:
    """The directory, searched by ``q``; ``user`` (the old lookup form) opens that member's page."""
    moderation = console(request).moderation
    if user.strip():
        return RedirectResponse(member_url(who.tenant, await moderation.resolve_member(who, user)), status_code=303)
    found = await moderation.member_directory(who, q)
    return render(request, "members.html", tenant=who.tenant, members=found, q=q.strip()[:100])


@router.get("/t/{tenant}/members/{user}", response_class=HTMLResponse)
async def member(request: Request, who: Who, user: UserId) -> Response:
    moderation = console(request).moderation
    member_id = await moderation.resolve_member(who, user)
    if member_id != user:  # reached by name: the page's address is the member's id
        return RedirectResponse(member_url(who.tenant, member_id), status_code=303)
    records = await moderation.member_records(who, user)
    names = names_of(records.facts)
    names.add(user, records.name)
    for e in records.audit:
        names.add(e.actor_id, e.actor_name)
    return render(request, "member.html", tenant=who.tenant, records=records, names=names)


@router.get("/t/{tenant}/members/{user}/export")
async def member_export(request: Request, who: Who, user: UserId) -> JSONResponse:
    moderation = console(request).moderation
    await moderation.member_records(who, user, audit_limit=1)
    # the header first: if it could not be made, nothing may have been exported (and audited)
    headers = {"Content-Disposition": attachment(f"heyan-export-{user}.json")}
    return JSONResponse(await moderation.export_member(who, user), headers=headers)


@router.post("/t/{tenant}/members/{user}/erase", response_class=HTMLResponse)
async def member_erase(request: Request, who: Who, principal: Caller, user: UserId) -> Response:
    """Step one: what would go, and a form to confirm it (nothing is erased yet)."""
    await form(request, principal)
    moderation = console(request).moderation
    records = await moderation.member_records(who, user, audit_limit=1)
    req = await moderation.request_erasure(who, user)
    return render(request, "erase.html", tenant=who.tenant, records=records, req=req)


@router.post("/t/{tenant}/members/{user}/erase/confirm", response_class=HTMLResponse)
async def member_erase_confirm(request: Request, who: Who, principal: Caller, user: UserId) -> Response:
    values = await form(request, principal)
    moderation = console(request).moderation
    name = (await moderation.member_records(who, user, audit_limit=1)).name  # named before the name goes too
    erased = await moderation.confirm_erasure(who, values.get("token", "")[:100], user)
    return render(request, "erased.html", tenant=who.tenant, user=user, member_name=name, erased=erased)


@router.get("/t/{tenant}/audit", response_class=HTMLResponse)
async def audit(request: Request, who: Who, user: str = "") -> HTMLResponse:
    moderation = console(request).moderation
    member = await moderation.resolve_member(who, user) if user.strip() else None
    entries = await moderation.audit_log(who, user=member, limit=200)
    return render(request, "audit.html", tenant=who.tenant, entries=entries, user=user.strip()[:100],
                  names=await _tenant_names(request, who, entries))
