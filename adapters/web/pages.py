"""The console's pages: server-rendered Jinja2 (autoescaped: member text is always text), htmx for
in-place updates (vendored under /static, no build step), plain forms that work without it.

Each page is one or two moderation-service calls as the signed-in moderator; each form posts back
with the session's CSRF token and is redirected to the page it came from (post/redirect/get).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from functools import partial
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from adapters.web.api import TENANT_PATTERN
from adapters.web.auth import SESSION_COOKIE, AuthError, check_change, console, principal_of, request_lang
from adapters.web.chart import weeks_svg
from adapters.web.gate import Principal
from adapters.web.heat_view import heat_chart, heat_spark, point_rows, when
from adapters.web.i18n import LANG_COOKIE, kind_label, stage_label, status_label, t
from adapters.web.links import message_link
from bot.actors import OPERATOR_ID, Actor, InvalidRequest
from bot.escalation import THRESHOLD
from bot.moderation.thread_heat import CLOSED_DAYS
from memory.models import Fact, FactStatus, Kind, utcnow

__all__ = ["error_page", "router"]

router = APIRouter(include_in_schema=False)

TenantId = Annotated[str, Path(pattern=TENANT_PATTERN)]
MemoryId = Annotated[str, Path(min_length=4, max_length=64)]
UserId = Annotated[str, Path(min_length=1, max_length=100)]
SessionId = Annotated[str, Path(min_length=1, max_length=200)]
REVIEW_PAGE = 20
SNOOZE_DAYS = (1, 3, 7, 14)


def render(request: Request, name: str, *, status: int = 200, headers: Mapping[str, str] | None = None,
           **values: Any) -> HTMLResponse:
    """A page in the request's language, with the signed-in caller and their CSRF token."""
    c = console(request)
    lang = request_lang(request)
    principal: Principal | None = getattr(request.state, "principal", None)
    tenant = values.get("tenant", "")
    context = {
        "lang": lang, "t": partial(t, lang), "kind_label": partial(kind_label, lang=lang),
        "status_label": partial(status_label, lang=lang), "when": when, "principal": principal,
        "csrf": principal.session.csrf if principal is not None and principal.session is not None else "",
        "tenant": tenant, "local": c.local, "kinds": [k.value for k in Kind],
        "statuses": [s.value for s in FactStatus], "switch": _switch_url(request, "en" if lang == "zh" else "zh"),
        "link": partial(_link, principal=principal), **values,
    }
    response = c.templates.TemplateResponse(request, name, context, status_code=status, headers=dict(headers or {}))
    chosen = request.query_params.get("lang")
    if chosen in ("zh", "en"):
        response.set_cookie(LANG_COOKIE, chosen, max_age=365 * 86400, samesite="lax", secure=True, httponly=True)
    new = getattr(request.state, "new_session", None)
    if new:
        set_session_cookie(response, new, c.sessions.hours)
    return response


def set_session_cookie(response: Response, raw: str, hours: float) -> None:
    response.set_cookie(SESSION_COOKIE, raw, max_age=int(hours * 3600), path="/", httponly=True, secure=True,
                        samesite="lax")


def _switch_url(request: Request, lang: str) -> str:
    query = {k: v for k, v in request.query_params.items() if k != "lang"}
    return f"{request.url.path}?{urlencode({**query, 'lang': lang})}"


def _slack_domain(principal: Principal | None) -> str:
    """The Slack workspace domain of a Slack sign-in (for message links)."""
    return principal.session.team_domain if principal is not None and principal.session is not None else ""


def _link(fact: Fact, message_id: str, *, principal: Principal | None) -> str | None:
    return message_link(fact.tenant, fact.session, message_id, slack_domain=_slack_domain(principal))


def error_page(request: Request, status: int, detail: str, *, headers: Mapping[str, str] | None = None) -> HTMLResponse:
    return render(request, "error.html", status=status, headers=headers, detail=detail, code=status)


async def signed_in(request: Request) -> Principal:
    """The caller of a page (sign-in page otherwise). ``--local``: the operator gets a session on
    the first page, so that its forms carry a CSRF token like everyone else's."""
    principal = await principal_of(request)
    if principal is None:
        raise AuthError(401, "auth.signin", "sign_in_required")
    c = console(request)
    if c.local and principal.kind == "operator" and principal.session is None and request.method == "GET":
        raw, session = await c.sessions.create("operator", OPERATOR_ID, "local operator")
        request.state.new_session = raw
        principal = Principal(kind="operator", user_id=OPERATOR_ID, name="local operator", session=session)
    request.state.principal = principal
    return principal


Caller = Annotated[Principal, Depends(signed_in)]


async def page_actor(tenant: TenantId, request: Request, principal: Caller) -> Actor:
    return await console(request).gate.actor(principal, tenant, request_lang(request))


Who = Annotated[Actor, Depends(page_actor)]


async def form(request: Request, principal: Principal) -> dict[str, str]:
    """The posted form, once its CSRF token (or the caller's right to change things) is checked."""
    data = await request.form()
    values = {k: v for k, v in data.items() if isinstance(v, str)}
    check_change(request, principal, values.get("csrf_token"))
    return values


def back(request: Request, fallback: str, values: Mapping[str, str]) -> RedirectResponse:
    """Where a form returns: its ``next`` when it is a page of this console, else ``fallback``."""
    target = values.get("next", "")
    if not (target.startswith("/t/") and "//" not in target and "\\" not in target):
        target = fallback
    return RedirectResponse(target, status_code=303)


def _base(tenant: str) -> str:
    return f"/t/{tenant}"


# --- communities, sign-in ------------------------------------------------------------------------


@router.get("/", response_class=HTMLResponse)
async def home(request: Request, principal: Caller) -> HTMLResponse:
    communities = await console(request).gate.communities(principal)
    return render(request, "communities.html", communities=communities)


@router.get("/t/{tenant}", response_class=HTMLResponse)
async def tenant_home(tenant: TenantId) -> RedirectResponse:
    return RedirectResponse(f"{_base(tenant)}/memories", status_code=303)


# --- memories --------------------------------------------------------------------------------------


def _choice(value: str | None, allowed: type[Kind] | type[FactStatus]) -> Any:
    if not value:
        return None
    try:
        return allowed(value)
    except ValueError:
        names = ", ".join(m.value for m in allowed)
        raise InvalidRequest(f"unknown value {value!r}; use one of: {names}", f"未知的值 {value!r}；可选：{names}") from None


@router.get("/t/{tenant}/memories", response_class=HTMLResponse)
async def memories(request: Request, who: Who, kind: str = "", status: str = "", user: str = "", session: str = "",
                   q: str = "") -> HTMLResponse:
    moderation = console(request).moderation
    chosen_kind, chosen_status = _choice(kind, Kind), _choice(status, FactStatus)
    member, thread = user.strip()[:100] or None, session.strip()[:200] or None
    if q.strip():
        facts = await moderation.memory_search(who, q, kind=chosen_kind, status=chosen_status, user=member,
                                               session=thread, limit=200)
    else:
        facts = await moderation.memory_list(who, user=member, kind=chosen_kind, status=chosen_status, session=thread)
        facts.sort(key=lambda f: (f.updated_at, f.id), reverse=True)
    filters = {"kind": kind, "status": status, "user": member or "", "session": thread or "", "q": q}
    return render(request, "memories.html", tenant=who.tenant, facts=facts[:500], total=len(facts), filters=filters)


@router.get("/t/{tenant}/memories/{memory}", response_class=HTMLResponse)
async def memory(request: Request, who: Who, memory: MemoryId) -> HTMLResponse:
    fact, entries = await console(request).moderation.memory_history(who, memory)
    return render(request, "memory.html", tenant=who.tenant, fact=fact, entries=entries)


@router.post("/t/{tenant}/memories/{memory}/{action}")
async def memory_action(request: Request, who: Who, principal: Caller, memory: MemoryId,
                        action: Annotated[str, Path(pattern="^(confirm|reject|correct|delete)$")]) -> Response:
    values = await form(request, principal)
    moderation = console(request).moderation
    reason = values.get("reason", "")[:500]
    if action == "confirm":
        fact = await moderation.memory_confirm(who, memory, reason)
    elif action == "reject":
        fact = await moderation.memory_reject(who, memory, reason)
    elif action == "correct":
        fact = await moderation.memory_edit(who, memory, values.get("value", "")[:2000], reason)
    else:
        await moderation.memory_delete(who, memory, reason)
        return back(request, f"{_base(who.tenant)}/memories", values)
    return back(request, f"{_base(who.tenant)}/memories/{fact.id}", values)


# --- review, commitments ------------------------------------------------------------------------------


@router.get("/t/{tenant}/review", response_class=HTMLResponse)
async def review(request: Request, who: Who, offset: int = 0) -> HTMLResponse:
    page = await console(request).moderation.review_queue(who, offset=max(0, offset), limit=REVIEW_PAGE)
    return render(request, "review.html", tenant=who.tenant, page=page, step=REVIEW_PAGE)


@router.get("/t/{tenant}/commitments", response_class=HTMLResponse)
async def commitments(request: Request, who: Who) -> HTMLResponse:
    board = await console(request).moderation.commitment_board(who)
    lang = who.lang
    chart = weeks_svg(board.weeks, title=t(lang, "commitments.chart"), kept_label=t(lang, "commitments.done"),
                      overdue_label=t(lang, "commitments.overdue"))
    return render(request, "commitments.html", tenant=who.tenant, board=board, chart=chart, snooze_days=SNOOZE_DAYS)


@router.post("/t/{tenant}/commitments/{memory}/{action}")
async def commitment_action(request: Request, who: Who, principal: Caller, memory: MemoryId,
                            action: Annotated[str, Path(pattern="^(done|snooze)$")]) -> Response:
    values = await form(request, principal)
    moderation = console(request).moderation
    reason = values.get("reason", "")[:500]
    if action == "done":
        await moderation.commitment_done(who, memory, reason)
    else:
        days = values.get("days", "")
        if not days.isdigit() or int(days) not in SNOOZE_DAYS:
            raise InvalidRequest(f"snooze by one of {SNOOZE_DAYS} days", f"请选择推迟 {SNOOZE_DAYS} 天之一")
        await moderation.commitment_snooze(who, memory, utcnow() + timedelta(days=int(days)), reason)
    return back(request, f"{_base(who.tenant)}/commitments", values)


# --- disputes and their temperature ------------------------------------------------------------------


@router.get("/t/{tenant}/disputes", response_class=HTMLResponse)
async def disputes(request: Request, who: Who) -> HTMLResponse:
    board = await console(request).moderation.dispute_board(who)
    sparks = {h.session: heat_spark(h, who.lang) for h in board}
    return render(request, "disputes.html", tenant=who.tenant, board=board, sparks=sparks, threshold=THRESHOLD,
                  closed_days=f"{CLOSED_DAYS:g}")


@router.get("/t/{tenant}/disputes/{session}", response_class=HTMLResponse)
async def dispute(request: Request, who: Who, principal: Caller, session: SessionId) -> HTMLResponse:
    detail = await console(request).moderation.dispute_heat(who, session)
    rows = point_rows(detail.heat, who.lang, _slack_domain(principal))
    return render(request, "dispute.html", tenant=who.tenant, detail=detail, heat=detail.heat, rows=rows,
                  chart=heat_chart(detail.heat, rows, who.lang), stage=stage_label(detail.stage, who.lang))


# --- members -------------------------------------------------------------------------------------------


@router.get("/t/{tenant}/members", response_class=HTMLResponse)
async def member_lookup(request: Request, who: Who, user: str = "") -> Response:
    if user.strip():
        return RedirectResponse(f"{_base(who.tenant)}/members/{user.strip()[:100]}", status_code=303)
    return render(request, "member_lookup.html", tenant=who.tenant)


@router.get("/t/{tenant}/members/{user}", response_class=HTMLResponse)
async def member(request: Request, who: Who, user: UserId) -> HTMLResponse:
    records = await console(request).moderation.member_records(who, user)
    return render(request, "member.html", tenant=who.tenant, records=records)


@router.get("/t/{tenant}/members/{user}/export")
async def member_export(request: Request, who: Who, user: UserId) -> JSONResponse:
    moderation = console(request).moderation
    await moderation.member_records(who, user, audit_limit=1)
    data = await moderation.export_member(who, user)
    return JSONResponse(data, headers={"Content-Disposition": f'attachment; filename="heyan-export-{user}.json"'})


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
    erased = await console(request).moderation.confirm_erasure(who, values.get("token", "")[:100], user)
    return render(request, "erased.html", tenant=who.tenant, user=user, erased=erased)


# --- audit, settings -------------------------------------------------------------------------------------


@router.get("/t/{tenant}/audit", response_class=HTMLResponse)
async def audit(request: Request, who: Who, user: str = "") -> HTMLResponse:
    entries = await console(request).moderation.audit_log(who, user=user.strip()[:100] or None, limit=200)
    return render(request, "audit.html", tenant=who.tenant, entries=entries, user=user)


@router.get("/t/{tenant}/settings", response_class=HTMLResponse)
async def settings(request: Request, who: Who, saved: bool = False) -> HTMLResponse:
    values = await console(request).moderation.community_settings(who)
    return render(request, "settings.html", tenant=who.tenant, values=values, saved=saved)


@router.post("/t/{tenant}/settings")
async def settings_save(request: Request, who: Who, principal: Caller) -> Response:
    values = await form(request, principal)
    changes: dict[str, Any] = {}
    current = await console(request).moderation.community_settings(who)
    if values.get("timezone", "").strip() and values["timezone"].strip() != current.timezone:
        changes["timezone"] = values["timezone"].strip()
    if values.get("language") and values["language"] != current.language:
        changes["language"] = values["language"]
    purge = values.get("closed_purge_days", "").strip()
    if purge:
        try:
            if float(purge) != current.closed_purge_days:
                changes["closed_purge_days"] = float(purge)
        except ValueError:
            raise InvalidRequest(f"days must be a number; got {purge!r}", f"天数必须是数字；收到 {purge!r}") from None
    retention = dict(current.retention_days)
    for kind in Kind:
        raw = values.get(f"retention_{kind.value}", "").strip()
        try:
            days = float(raw) if raw else None
        except ValueError:
            raise InvalidRequest(f"days for {kind.value} must be a number; got {raw!r}",
                                 f"{kind.value} 的天数必须是数字；收到 {raw!r}") from None
        if days is None:
            retention.pop(kind.value, None)
        else:
            retention[kind.value] = days
    if retention != current.retention_days:
        changes["retention_days"] = retention
    if values.get("dispute_openers") and values["dispute_openers"] != current.dispute_openers:
        changes["dispute_openers"] = values["dispute_openers"]
    for name in ("moderator_roles", "dispute_channels"):
        listed = [v for v in (x.strip() for x in values.get(name, "").replace("\n", ",").split(",")) if v]
        if listed != getattr(current, name):
            changes[name] = listed
    if changes:
        await console(request).moderation.update_community_settings(who, values.get("reason", "")[:500], **changes)
    return RedirectResponse(f"{_base(who.tenant)}/settings?saved=1", status_code=303)
