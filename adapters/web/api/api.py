"""The REST API under ``/api/v1``: one moderation-service call per route, its answer as JSON.

Every route names its tenant; the caller becomes its ``Actor`` through the gate and the service checks
and audits, as for every surface. Refusals: ``adapters.web.errors``. Changes with a session cookie
need ``X-CSRF-Token`` (not with an API token).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from adapters.web.access.auth import AuthError, check_change, console, counted, principal_of, request_lang
from adapters.web.access.gate import Principal
from adapters.web.api.schemas import (
    AuditOut,
    CommitmentsOut,
    DisputeOut,
    DisputesOut,
    EditIn,
    ErasedOut,
    ErasureOut,
    ErrorOut,
    MemberOut,
    MemberSummaryOut,
    MemoryDetail,
    MemoryList,
    MemoryOut,
    ReasonIn,
    ReviewOut,
    SettingsIn,
    SettingsOut,
    SnoozeIn,
    TemperatureOut,
    TenantOut,
    memory_out,
)
from adapters.web.headers import attachment
from adapters.web.views.i18n import t
from bot.actors import Actor, InvalidRequest
from bot.text import kinds
from bot.text.names import NameBook
from memory.models import FactStatus

__all__ = ["TENANT_PATTERN", "router"]

#: What a tenant id looks like (``discord:<guild>``, ``discord:dm:<user>``, ``slack:<team>``, ``console:<name>``).
TENANT_PATTERN = r"^[a-z]+:[A-Za-z0-9:_.\-]{1,120}$"
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 403, 404, 409, 422, 429, 500, 503)
}

router = APIRouter(prefix="/api/v1", responses=_ERRORS)

TenantId = Annotated[str, Path(pattern=TENANT_PATTERN, description="e.g. discord:<guild id> or slack:<team id>")]
MemoryId = Annotated[str, Path(min_length=4, max_length=64, description="a memory id or a unique prefix of one")]
UserId = Annotated[str, Path(min_length=1, max_length=100, description="the member's user id, or their name")]
SessionId = Annotated[str, Path(min_length=1, max_length=200, description="the thread's (or channel's) id")]


async def caller(request: Request) -> Principal:
    """The signed-in caller (401 without one); a request that changes something is checked too.
    Counted against the console's limits (reads and changes), never the chat commands'."""
    principal = await principal_of(request)
    if principal is None:
        raise AuthError(401, "auth.signin", "sign_in_required")
    check_change(request, principal)
    request.state.principal = principal
    await counted(request, principal)
    return principal


async def tenant_actor(tenant: TenantId, request: Request, principal: Annotated[Principal, Depends(caller)]) -> Actor:
    c = console(request)
    actor = await c.gate.actor(principal, tenant, request_lang(request))
    request.state.zone = (await c.moderation.tenants.get(tenant)).timezone
    return actor


Who = Annotated[Actor, Depends(tenant_actor)]


def _domain(request: Request) -> str:
    """The Slack workspace domain of a Slack sign-in (for message links)."""
    principal: Principal | None = getattr(request.state, "principal", None)
    return principal.session.team_domain if principal is not None and principal.session is not None else ""


def _zone(request: Request) -> str:
    """The community's zone (due times are shown in it)."""
    return str(getattr(request.state, "zone", "UTC"))


async def _member(request: Request, who: Actor, user: str | None) -> str | None:
    """The user id a name or id names (None for none); refused with the closest names otherwise."""
    return await console(request).moderation.resolve_member(who, user) if user and user.strip() else None


@router.get("/tenants", response_model=list[TenantOut], summary="The communities the caller moderates, by name")
async def tenants(request: Request, principal: Annotated[Principal, Depends(caller)]) -> list[TenantOut]:
    found = await console(request).gate.communities(principal, request_lang(request))
    return [TenantOut(id=c.id, name=c.name, platform=c.platform) for c in found]


@router.get("/tenants/{tenant}/memories", response_model=MemoryList, summary="Memories, filtered or searched")
async def memories(
    request: Request, who: Who,
    kind: Annotated[str | None, Query(max_length=40, description="a kind as every surface names it: "
                                      + ", ".join(kinds.LABELS) + " (or consensus, or the store's names)")] = None,
    status: FactStatus | None = None,
    user: Annotated[str | None, Query(max_length=100, description="a member's name or user id")] = None,
    session: Annotated[str | None, Query(max_length=200)] = None,
    q: Annotated[str | None, Query(description="search words (hybrid, as recall searches)")] = None,
    offset: Annotated[int, Query(ge=0)] = 0, limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> MemoryList:
    moderation = console(request).moderation
    try:
        query = kinds.parse(kind) if kind else None
    except ValueError as exc:
        raise InvalidRequest(str(exc)) from None
    member = await _member(request, who, user)
    if q:
        stored = next(iter(query.stored)) if query is not None and len(query.stored) == 1 else None
        facts = await moderation.memory_search(who, q, kind=stored, status=status, user=member, session=session,
                                               limit=offset + limit)
        facts = query.only(facts) if query is not None else facts
    else:
        facts = await moderation.memory_list(who, user=member, kind=kind, status=status, session=session)
        facts.sort(key=lambda f: (f.updated_at, f.id), reverse=True)
    names = NameBook.of(facts)
    return MemoryList(total=len(facts), offset=offset,
                      items=[memory_out(f, _domain(request), _zone(request), names) for f in facts[offset:offset + limit]])


@router.get("/tenants/{tenant}/memories/{memory}", response_model=MemoryDetail,
            summary="One memory with its versions and every audit entry about it")
async def memory(request: Request, who: Who, memory: MemoryId) -> MemoryDetail:
    fact, entries = await console(request).moderation.memory_history(who, memory)
    return MemoryDetail(memory=memory_out(fact, _domain(request), _zone(request)), audit=[AuditOut.of(e) for e in entries])


@router.patch("/tenants/{tenant}/memories/{memory}", response_model=MemoryOut, summary="Correct what a memory says")
async def edit(request: Request, who: Who, memory: MemoryId, body: EditIn) -> MemoryOut:
    fact = await console(request).moderation.memory_edit(who, memory, body.value, body.reason)
    return memory_out(fact, _domain(request), _zone(request))


@router.post("/tenants/{tenant}/memories/{memory}/confirm", response_model=MemoryOut, summary="Confirm a memory")
async def confirm(request: Request, who: Who, memory: MemoryId,
                  body: Annotated[ReasonIn | None, Body()] = None) -> MemoryOut:
    fact = await console(request).moderation.memory_confirm(who, memory, body.reason if body else "")
    return memory_out(fact, _domain(request), _zone(request))


@router.post("/tenants/{tenant}/memories/{memory}/reject", response_model=MemoryOut, summary="Reject a memory")
async def reject(request: Request, who: Who, memory: MemoryId,
                 body: Annotated[ReasonIn | None, Body()] = None) -> MemoryOut:
    fact = await console(request).moderation.memory_reject(who, memory, body.reason if body else "")
    return memory_out(fact, _domain(request), _zone(request))


@router.delete("/tenants/{tenant}/memories/{memory}", response_model=MemoryOut,
               summary="Delete a memory everywhere it is stored (the audit keeps that it existed)")
async def delete(request: Request, who: Who, memory: MemoryId,
                 reason: Annotated[str, Query(max_length=500)] = "") -> MemoryOut:
    fact = await console(request).moderation.memory_delete(who, memory, reason)
    return memory_out(fact, _domain(request), _zone(request))


@router.get("/tenants/{tenant}/review", response_model=ReviewOut, summary="The review queue, newest change first")
async def review(request: Request, who: Who, offset: Annotated[int, Query(ge=0)] = 0,
                 limit: Annotated[int, Query(ge=1, le=200)] = 50) -> ReviewOut:
    page = await console(request).moderation.review_queue(who, offset=offset, limit=limit)
    return ReviewOut(total=page.total, offset=page.offset, items=[memory_out(f, _domain(request), _zone(request)) for f in page.items])


@router.get("/tenants/{tenant}/commitments", response_model=CommitmentsOut,
            summary="Commitments: open, overdue, done, and kept / overdue per week")
async def commitments(request: Request, who: Who, weeks: Annotated[int, Query(ge=1, le=52)] = 8) -> CommitmentsOut:
    return CommitmentsOut.of(await console(request).moderation.commitment_board(who, weeks=weeks), _domain(request),
                             _zone(request))


@router.post("/tenants/{tenant}/commitments/{memory}/done", response_model=MemoryOut, summary="Mark a commitment done")
async def done(request: Request, who: Who, memory: MemoryId,
               body: Annotated[ReasonIn | None, Body()] = None) -> MemoryOut:
    fact = await console(request).moderation.commitment_done(who, memory, body.reason if body else "")
    return memory_out(fact, _domain(request), _zone(request))


@router.post("/tenants/{tenant}/commitments/{memory}/snooze", response_model=MemoryOut,
             summary="Move a commitment's due time (its follow-up moves with it)")
async def snooze(request: Request, who: Who, memory: MemoryId, body: SnoozeIn) -> MemoryOut:
    fact = await console(request).moderation.commitment_snooze(who, memory, body.until, body.reason)
    return memory_out(fact, _domain(request), _zone(request))


@router.get("/tenants/{tenant}/disputes", response_model=DisputesOut,
            summary="Disputes with their temperature: open, threads that ran hot, recently closed")
async def disputes(request: Request, who: Who) -> DisputesOut:
    return DisputesOut(items=[DisputeOut.of(h) for h in await console(request).moderation.dispute_board(who)])


@router.get("/tenants/{tenant}/disputes/{session}/temperature", response_model=TemperatureOut,
            summary="A thread's temperature timeline with names and links, open commitments and card state")
async def temperature(request: Request, who: Who, session: SessionId) -> TemperatureOut:
    return TemperatureOut.of(await console(request).moderation.dispute_heat(who, session), _domain(request),
                             _zone(request))


@router.get("/tenants/{tenant}/members", response_model=list[MemberSummaryOut],
            summary="The members: everyone the records are about or from, by name (search with q)")
async def members(request: Request, who: Who,
                  q: Annotated[str, Query(max_length=100, description="a few letters of a name or an id")] = ""
                  ) -> list[MemberSummaryOut]:
    return [MemberSummaryOut.of(m) for m in await console(request).moderation.member_directory(who, q)]


@router.get("/tenants/{tenant}/members/{user}", response_model=MemberOut, summary="A member's records (name or id)")
async def member(request: Request, who: Who, user: UserId) -> MemberOut:
    moderation = console(request).moderation
    member_id = await moderation.resolve_member(who, user)
    return MemberOut.of(await moderation.member_records(who, member_id), _domain(request), _zone(request))


@router.get("/tenants/{tenant}/members/{user}/export", summary="Everything held about a member, as JSON (audited)")
async def export(request: Request, who: Who, user: UserId) -> JSONResponse:
    moderation = console(request).moderation
    member_id = await moderation.resolve_member(who, user)
    await moderation.member_records(who, member_id, audit_limit=1)  # 404 for someone this tenant holds nothing of
    # the header first: if it could not be made, nothing may have been exported (and audited)
    headers = {"Content-Disposition": attachment(f"heyan-export-{member_id}.json")}
    return JSONResponse(await moderation.export_member(who, member_id), headers=headers)


@router.delete("/tenants/{tenant}/members/{user}", response_model=ErasedOut,
               responses={428: {"model": ErasureOut, "description": "confirm with the token it returns"}},
               summary="Erase a member's data: call once for a token, again with ?confirm=<token>")
async def erase(request: Request, who: Who, user: UserId,
                confirm: Annotated[str | None, Query(max_length=100)] = None) -> Any:
    moderation = console(request).moderation
    if confirm:
        return ErasedOut(user=user, erased=await moderation.confirm_erasure(who, confirm, user))
    records = await moderation.member_records(who, user, audit_limit=1)
    req = await moderation.request_erasure(who, user)
    lang = request_lang(request)
    detail = t(lang, "erase.what", memories=req.facts, summaries=req.summaries, name=records.name)
    return JSONResponse(ErasureOut.of(req, detail + " DELETE again with ?confirm=<token>.").model_dump(),
                        status_code=428)


@router.get("/tenants/{tenant}/audit", response_model=list[AuditOut], summary="The audit trail, newest first")
async def audit(request: Request, who: Who,
                user: Annotated[str | None, Query(max_length=100, description="a member's name or user id")] = None,
                limit: Annotated[int, Query(ge=1, le=500)] = 50) -> list[AuditOut]:
    member = await _member(request, who, user)
    return [AuditOut.of(e) for e in await console(request).moderation.audit_log(who, user=member, limit=limit)]


@router.get("/tenants/{tenant}/settings", response_model=SettingsOut, summary="The community's settings")
async def settings(request: Request, who: Who) -> SettingsOut:
    return SettingsOut.of(who.tenant, await console(request).moderation.community_settings(who))


@router.patch("/tenants/{tenant}/settings", response_model=SettingsOut, summary="Change some settings (audited)")
async def change_settings(request: Request, who: Who, body: SettingsIn) -> SettingsOut:
    values = body.model_dump(exclude_unset=True, exclude={"reason"})
    updated = await console(request).moderation.update_community_settings(who, body.reason, **values)
    return SettingsOut.of(who.tenant, updated)
