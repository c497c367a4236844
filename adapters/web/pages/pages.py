"""The console's pages: server-rendered Jinja2 (autoescaped: member text is always text), htmx for
in-place updates (vendored under /static, no build step), plain forms that work without it.

Each page is one or two service calls as the signed-in caller; forms carry the CSRF token and
redirect back (post/redirect/get). Names not ids, times with their zone, statuses as of now, kinds from
``bot.text.kinds``, moderator forms only to moderators. ``member_pages`` and ``settings_page`` hold the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from functools import partial
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from adapters.web.access.auth import (
    SESSION_COOKIE,
    AuthError,
    check_change,
    console,
    counted,
    principal_of,
    request_lang,
)
from adapters.web.access.gate import Principal
from adapters.web.api.api import TENANT_PATTERN
from adapters.web.views.chart import weeks_svg
from adapters.web.views.explain import confirm_help, why_in_review
from adapters.web.views.heat_view import heat_chart, heat_spark, point_rows, stamp, when
from adapters.web.views.i18n import LANG_COOKIE, fact_kind, kind_label, stage_label, status_label, t
from adapters.web.views.links import message_link
from bot.actors import OPERATOR_ID, Actor, InvalidRequest
from bot.disputes.escalation import THRESHOLD
from bot.moderation.thread_heat import CLOSED_DAYS
from bot.moderation.views import commitment_line
from bot.text import kinds
from bot.text.clock import show_due
from bot.text.names import NameBook
from bot.text.zones import zone_label
from memory.models import Fact, FactStatus, Kind, utcnow

__all__ = ["Caller", "TenantId", "UserId", "Who", "back", "error_page", "form", "render", "router"]

router = APIRouter(include_in_schema=False)

TenantId = Annotated[str, Path(pattern=TENANT_PATTERN)]
MemoryId = Annotated[str, Path(min_length=4, max_length=64)]
UserId = Annotated[str, Path(min_length=1, max_length=100)]
SessionId = Annotated[str, Path(min_length=1, max_length=200)]
REVIEW_PAGE = 20
SNOOZE_DAYS = (1, 3, 7, 14)


def render(request: Request, name: str, *, status: int = 200, headers: Mapping[str, str] | None = None,
           **values: Any) -> HTMLResponse:
    """A page in the request's language, with the signed-in caller and their CSRF token; in a
    community, its name, its zone and whether the caller moderates it."""
    c = console(request)
    lang = request_lang(request)
    principal: Principal | None = getattr(request.state, "principal", None)
    actor: Actor | None = getattr(request.state, "actor", None)
    zone: str = getattr(request.state, "zone", "UTC")
    now = utcnow()
    names: NameBook = values.pop("names", None) or NameBook()
    tenant = values.get("tenant", "")
    context = {
        "lang": lang, "t": partial(t, lang), "kind_label": partial(kind_label, lang=lang),
        "fact_kind": partial(fact_kind, lang=lang), "status_label": partial(status_label, lang=lang),
        "when": partial(when, zone=zone, lang=lang), "stamp": partial(stamp, zone=zone),
        "due": lambda v: show_due(v, zone, lang) if v is not None else "", "zone": zone_label(zone),
        "status_of": lambda f: f.status_at(now).value,
        "commitment": lambda f: commitment_line(f, zone=zone, now=now, names=names),
        "person": lambda uid, fallback="": names.name(uid, fallback),
        "why": partial(why_in_review, lang=lang), "confirm_help": partial(confirm_help, lang=lang),
        "principal": principal, "moderator": actor.is_moderator if actor is not None else True,
        "csrf": principal.session.csrf if principal is not None and principal.session is not None else "",
        "tenant": tenant, "community": getattr(request.state, "community", tenant), "local": c.local,
        "kinds": list(kinds.LABELS), "store_kinds": [k.value for k in Kind],
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


def slack_domain(principal: Principal | None) -> str:
    """The Slack workspace domain of a Slack sign-in (for message links)."""
    return principal.session.team_domain if principal is not None and principal.session is not None else ""


def _link(fact: Fact, message_id: str, *, principal: Principal | None) -> str | None:
    return message_link(fact.tenant, fact.session, message_id, slack_domain=slack_domain(principal))


def error_page(request: Request, status: int, detail: str, *, headers: Mapping[str, str] | None = None) -> HTMLResponse:
    return render(request, "error.html", status=status, headers=headers, detail=detail, code=status)


async def signed_in(request: Request) -> Principal:
    """The caller of a page (sign-in page otherwise), counted against the console's view limit.
    ``--local``: the operator gets a session on the first page, so that its forms carry a CSRF token
    like everyone else's."""
    principal = await principal_of(request)
    if principal is None:
        raise AuthError(401, "auth.signin", "sign_in_required")
    c = console(request)
    if c.local and principal.kind == "operator" and principal.session is None and request.method == "GET":
        raw, session = await c.sessions.create("operator", OPERATOR_ID, "local operator")
        request.state.new_session = raw
        principal = Principal(kind="operator", user_id=OPERATOR_ID, name="local operator", session=session)
    request.state.principal = principal
    await counted(request, principal)
    return principal


Caller = Annotated[Principal, Depends(signed_in)]


async def page_actor(tenant: TenantId, request: Request, principal: Caller) -> Actor:
    """The caller as the community's actor; the page learns the community's name and zone."""
    c = console(request)
    actor = await c.gate.actor(principal, tenant, request_lang(request))
    request.state.actor = actor
    request.state.zone = (await c.moderation.tenants.get(tenant)).timezone
    request.state.community = await c.gate.label(tenant, actor.lang)
    return actor


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


def base(tenant: str) -> str:
    return f"/t/{tenant}"


def names_of(facts: Iterable[Fact]) -> NameBook:
    """Everyone's latest name, from these records."""
    return NameBook.of(facts)


# --- communities, sign-in ------------------------------------------------------------------------


@router.get("/", response_class=HTMLResponse)
async def home(request: Request, principal: Caller) -> HTMLResponse:
    communities = await console(request).gate.communities(principal, request_lang(request))
    return render(request, "communities.html", communities=communities)


@router.get("/t/{tenant}", response_class=HTMLResponse)
async def tenant_home(tenant: TenantId) -> RedirectResponse:
    return RedirectResponse(f"{base(tenant)}/memories", status_code=303)


# --- memories --------------------------------------------------------------------------------------


def _kind(value: str) -> kinds.KindQuery | None:
    if not value:
        return None
    try:
        return kinds.parse(value)
    except ValueError as exc:
        raise InvalidRequest(str(exc), f"未知的类型 {value!r}；可选：{'、'.join(kinds.LABELS)}") from None


def _status(value: str) -> FactStatus | None:
    if not value:
        return None
    try:
        return FactStatus(value)
    except ValueError:
        names = ", ".join(m.value for m in FactStatus)
        raise InvalidRequest(f"unknown status {value!r}; use one of: {names}", f"未知的状态 {value!r}；可选：{names}") from None


@router.get("/t/{tenant}/memories", response_class=HTMLResponse)
async def memories(request: Request, who: Who, kind: str = "", status: str = "", user: str = "", session: str = "",
                   q: str = "") -> HTMLResponse:
    moderation = console(request).moderation
    query, chosen_status = _kind(kind), _status(status)
    thread = session.strip()[:200] or None
    member = await moderation.resolve_member(who, user) if user.strip() else None
    if q.strip():
        stored = next(iter(query.stored)) if query is not None and len(query.stored) == 1 else None
        facts = await moderation.memory_search(who, q, kind=stored, status=chosen_status, user=member,
                                               session=thread, limit=200)
        facts = query.only(facts) if query is not None else facts
    else:
        facts = await moderation.memory_list(who, user=member, kind=kind or None, status=chosen_status, session=thread)
        facts.sort(key=lambda f: (f.updated_at, f.id), reverse=True)
    filters = {"kind": kind, "status": status, "user": user.strip()[:100], "session": thread or "", "q": q}
    return render(request, "memories.html", tenant=who.tenant, facts=facts[:500], total=len(facts), filters=filters,
                  names=names_of(facts))


@router.get("/t/{tenant}/memories/{memory}", response_class=HTMLResponse)
async def memory(request: Request, who: Who, memory: MemoryId) -> HTMLResponse:
    fact, entries = await console(request).moderation.memory_history(who, memory)
    return render(request, "memory.html", tenant=who.tenant, fact=fact, entries=entries, names=names_of([fact]))


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
        return back(request, f"{base(who.tenant)}/memories", values)
    return back(request, f"{base(who.tenant)}/memories/{fact.id}", values)


# --- review, commitments ------------------------------------------------------------------------------


@router.get("/t/{tenant}/review", response_class=HTMLResponse)
async def review(request: Request, who: Who, offset: int = 0) -> HTMLResponse:
    page = await console(request).moderation.review_queue(who, offset=max(0, offset), limit=REVIEW_PAGE)
    return render(request, "review.html", tenant=who.tenant, page=page, step=REVIEW_PAGE, names=names_of(page.items))


@router.get("/t/{tenant}/commitments", response_class=HTMLResponse)
async def commitments(request: Request, who: Who) -> HTMLResponse:
    board = await console(request).moderation.commitment_board(who)
    lang = who.lang
    chart = weeks_svg(board.weeks, title=t(lang, "commitments.chart"), kept_label=t(lang, "commitments.done"),
                      overdue_label=t(lang, "commitments.overdue"), y_label=t(lang, "commitments.axis_y"),
                      x_label=t(lang, "commitments.axis_x"))
    return render(request, "commitments.html", tenant=who.tenant, board=board, chart=chart, snooze_days=SNOOZE_DAYS,
                  names=names_of((*board.open, *board.overdue, *board.done)))


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
    return back(request, f"{base(who.tenant)}/commitments", values)


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
    rows = point_rows(detail.heat, who.lang, slack_domain(principal))
    zone = getattr(request.state, "zone", "UTC")
    names = NameBook.of(detail.open_commitments, names=detail.heat.names)
    return render(request, "dispute.html", tenant=who.tenant, detail=detail, heat=detail.heat, rows=rows,
                  chart=heat_chart(detail.heat, rows, who.lang, zone), stage=stage_label(detail.stage, who.lang),
                  names=names)
