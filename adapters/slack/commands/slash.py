"""``/heyan``: disputes, memory review, a member's own data and commitments, mirroring Discord.

Acked at once; the answer goes back ephemeral through ``response_url``; the one public effect (a
dispute's opening or closing) goes through the outbox. Each subcommand is one moderation-service call
with the caller as ``Actor``. Slack sends no thread with a command, so ``dispute open`` opens the whole
channel (a thread: the message shortcut, ``adapters.slack.commands.shortcuts``), and only with Heyan in it.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError

from adapters.slack.bridge import Bridge, Here, NotInstalled
from adapters.slack.commands import agreements, settings_cmd
from adapters.slack.commands.invocation import Answer, Handler, Invocation
from adapters.slack.display.blocks import (
    REVIEW_PAGE,
    Block,
    Paging,
    commitments_blocks,
    memory_card,
    memory_list_blocks,
    review_blocks,
    section,
)
from adapters.slack.display.render import escape
from adapters.slack.display.texts import t
from adapters.slack.events.mapping import mentioned_users, readable
from bot.actors import Actor, InvalidRequest, ModerationError
from bot.delivery.reminders import format_when
from bot.limits import SlowDown
from bot.text import kinds
from bot.text.richtext import Mention
from memory.models import FactStatus, Lang

__all__ = ["Answer", "Invocation", "can_open_in", "open_dispute", "page", "register", "run"]

log = logging.getLogger(__name__)

_USER_TOKEN = r"<@[UW][A-Z0-9]+(?:\|[^<>]*)?>"




def _help(actor: Actor, unknown: str | None = None) -> Answer:
    lang = actor.lang
    parts = [t("help.unknown", lang, what=escape(unknown))] if unknown is not None else []
    parts += [t("help.head", lang), t("help.member", lang)]
    if actor.is_moderator:
        parts.append(t("help.moderator", lang, hint=escape(actor.moderator_hint)))
    text = "\n\n".join(parts)
    return Answer(text, [section(p) for p in parts])


def _one_user(inv: Invocation, tokens: list[str]) -> str | None:
    users = [u for u in mentioned_users(" ".join(tokens)) if u != inv.here.bot_user_id]
    return users[0] if users else None


def _need(words: list[str], sub: str) -> str:
    if not words:
        raise InvalidRequest(t("memory.usage.id", "en", sub=sub), t("memory.usage.id", "zh", sub=sub))
    return words[0]


# --- disputes -----------------------------------------------------------------------------------


async def can_open_in(bridge: Bridge, here: Here, channel: str, lang: Lang) -> str | None:
    """Why a dispute cannot be opened in ``channel`` (Heyan is not a member, it is archived), as
    the answer to give; None when it can. Asked fresh (``conversations.info``), never cached."""
    bot = escape((await here.people.directory.user(here.bot_user_id)).name)
    try:
        info = (await here.client.conversations_info(channel=channel))["channel"]
    except SlackApiError as exc:
        error = str(exc.response.get("error") or "")
        if error in ("channel_not_found", "not_in_channel"):  # a private channel Heyan is not in
            return t("dispute.invite", lang, bot=bot)
        if error == "missing_scope" and exc.response.get("needed"):
            await bridge.scopes.missing(here, str(exc.response["needed"]))
        return t("dispute.cannot_check", lang, error=escape(error), bot=bot)
    if info.get("is_archived"):
        return t("dispute.archived", lang)
    if not info.get("is_member", False) and not info.get("is_im"):
        return t("dispute.invite", lang, bot=bot)
    return None


async def open_dispute(inv: Invocation, session: str, *, title: str, members: list[str], channel: str) -> str:
    """Open a dispute titled ``title`` with ``members`` in ``session`` (the channel, or a thread of
    it); the answer's text. Refused (nothing recorded) where Heyan cannot hear."""
    refusal = await can_open_in(inv.bridge, inv.here, channel, inv.lang)
    if refusal is not None:
        return refusal
    people = inv.here.people
    members = [u for u in dict.fromkeys(members) if u not in (people.bot_user_id, inv.actor.user_id)]
    names = await people.directory.names(members)
    info = await inv.bridge.port.moderation.dispute_open(
        inv.actor, session, title=title, members=[Mention(u, names[u]) for u in members],
        visibility=await people.directory.visibility(channel), channel=channel,
    )
    key = "dispute.opened.thread" if session != channel else "dispute.opened"
    return t(key, inv.lang, title=escape(info.title))


async def dispute_open(inv: Invocation) -> Answer:
    title = readable(re.sub(_USER_TOKEN, " ", inv.rest))
    text = await open_dispute(inv, inv.channel, title=title, members=mentioned_users(inv.rest), channel=inv.channel)
    if await inv.bridge.port.sessions.is_open(inv.tenant, inv.channel):
        text += "\n\n" + t("dispute.thread_hint", inv.lang)
    return Answer(text)


async def dispute_status(inv: Invocation) -> Answer:
    st = await inv.bridge.port.moderation.dispute_status(inv.actor, await inv.dispute())
    lang = inv.lang
    if st.info is None or not st.info.opened_at:
        head = t("dispute.none", lang)
    else:
        state = t(f"dispute.state.{st.info.state.value}", lang)
        opener = (await inv.here.people.directory.user(st.info.opened_by)).name if st.info.opened_by else "?"
        head = t("dispute.status", lang, title=escape(st.info.title), state=state, opener=escape(opener),
                 when=format_when(st.info.opened_at, inv.zone, lang), stage=st.stage, turns=st.turns)
    blocks = [section(head)]
    if st.open_commitments:
        blocks += [section(t("dispute.commitments", lang)),
                   *commitments_blocks(list(st.open_commitments), inv.actor, inv.zone, inv.paging("commitments"))[1:]]
    if st.summary is not None:
        blocks.append(section(t("dispute.summary", lang, text=escape(st.summary.text))))
    return Answer(head, blocks)


async def dispute_summary(inv: Invocation) -> Answer:
    summary = await inv.bridge.port.moderation.dispute_summary(inv.actor, await inv.dispute())
    if summary is None:
        return Answer(t("dispute.no_summary", inv.lang))
    return Answer(t("dispute.summary", inv.lang, text=escape(summary.text)))


async def dispute_close(inv: Invocation) -> Answer:
    session = await inv.dispute()
    closed = await inv.bridge.port.moderation.dispute_close(inv.actor, session, reason=await inv.plain(inv.rest))
    return await agreements.closed_answer(inv, session, closed)


# --- memories -----------------------------------------------------------------------------------


async def memory_list(inv: Invocation) -> Answer:
    user = kind = status = session = None
    for word in inv.words():
        low = word.lower()
        if mentioned_users(word):
            user = mentioned_users(word)[0]
        elif low in kinds.vocabulary():
            kind = low
        elif low in {s.value for s in FactStatus}:
            status = FactStatus(low)
        elif low == "here":
            session = inv.channel
        else:
            names, statuses = ", ".join(kinds.LABELS), ", ".join(s.value for s in FactStatus)
            raise InvalidRequest(f"I don't understand “{word}”: give @member, a kind ({names}), a status "
                                 f"({statuses}) or here",
                                 f"看不懂“{word}”：可以给出 @成员、类型（{names}）、状态（{statuses}）或 here")
    facts = await inv.bridge.port.moderation.memory_list(inv.actor, user=user, kind=kind, status=status,
                                                       session=session)
    if not facts:
        return Answer(t("memory.none", inv.lang))
    head = t("memory.count", inv.lang, n=len(facts))
    return Answer(head, memory_list_blocks(facts, inv.actor, inv.zone, head, inv.paging("list")))


async def memory_show(inv: Invocation) -> Answer:
    fact = await inv.bridge.port.moderation.memory_show(inv.actor, _need(inv.words(), "show"))
    return Answer(f"{fact.attribute}: {escape(fact.value)}", memory_card(fact, inv.actor, inv.zone))


async def memory_edit(inv: Invocation) -> Answer:
    words = inv.words(1)
    if len(words) < 2:
        raise InvalidRequest(t("memory.usage.edit", "en"), t("memory.usage.edit", "zh"))
    fact = await inv.bridge.port.moderation.memory_edit(inv.actor, words[0], await inv.plain(words[1]))
    text = t("memory.edited", inv.lang, id=fact.id[:8], version=fact.version)
    return Answer(text, [section(text), *memory_card(fact, inv.actor, inv.zone)])


async def memory_delete(inv: Invocation) -> Answer:
    words = inv.words(1)
    ref = _need(words, "delete")
    reason = await inv.plain(words[1]) if len(words) > 1 else ""
    fact = await inv.bridge.port.moderation.memory_delete(inv.actor, ref, reason)
    return Answer(t("memory.deleted", inv.lang, id=fact.id[:8], what=escape(f"{fact.kind.value}: {fact.attribute}")))


async def memory_confirm(inv: Invocation) -> Answer:
    words = inv.words(1)
    ref = _need(words, "confirm")
    reason = await inv.plain(words[1]) if len(words) > 1 else ""
    fact = await inv.bridge.port.moderation.memory_confirm(inv.actor, ref, reason)
    text = t("memory.confirmed", inv.lang, id=fact.id[:8], status=fact.status.value)
    return Answer(text, [section(text), *memory_card(fact, inv.actor, inv.zone)])


async def memory_review(inv: Invocation) -> Answer:
    words = inv.words()
    page = int(words[0]) if words and words[0].isdigit() and int(words[0]) > 0 else 1
    result = await inv.bridge.port.moderation.review_queue(inv.actor, offset=(page - 1) * REVIEW_PAGE,
                                                         limit=REVIEW_PAGE)
    blocks = review_blocks(result, inv.actor, inv.zone)
    return Answer(blocks[0]["text"]["text"], blocks)


async def _export(inv: Invocation, user: str | None) -> Answer:
    """Export a member's data and send it as a JSON file in the caller's DM (never in a channel)."""
    data = await inv.bridge.port.moderation.export_member(inv.actor, user)
    who = (await inv.here.people.directory.user(data["user"])).name
    client = inv.here.client
    try:
        dm = (await client.conversations_open(users=inv.actor.user_id))["channel"]["id"]
        await client.files_upload_v2(
            channel=dm, content=json.dumps(data, ensure_ascii=False, indent=1),
            filename=f"heyan-export-{data['user']}.json", title=f"Heyan export: {who}",
            initial_comment=t("memory.export_comment", inv.lang, who=escape(who)),
        )
    except SlackApiError as exc:
        log.error("export for %s could not be sent: %s", inv.actor.user_id, exc.response.get("error"))
        return Answer(t("memory.export_failed", inv.lang, error=exc.response.get("error")))
    return Answer(t("memory.export_sent", inv.lang, n=len(data["facts"])))


async def memory_export(inv: Invocation) -> Answer:
    return await _export(inv, _one_user(inv, inv.words()))


async def memory_audit(inv: Invocation) -> Answer:
    entries = await inv.bridge.port.moderation.audit_log(inv.actor, user=_one_user(inv, inv.words()), limit=30)
    if not entries:
        return Answer(t("audit.none", inv.lang))
    lines = [t("audit.head", inv.lang)]
    for e in entries:
        reason = f" — {escape(e.reason)}" if e.reason else ""
        lines.append(f"{format_when(e.at, inv.zone, inv.lang)} · {escape(e.actor_name or e.actor_id)} · "
                     f"`{e.action}` · `{escape(e.target[:12])}`{reason[:300]}")
    return Answer("\n".join(lines))


async def mymemory(inv: Invocation) -> Answer:
    if inv.words()[:1] == ["export"]:
        return await _export(inv, None)
    facts = await inv.bridge.port.moderation.my_memories(inv.actor)
    if not facts:
        return Answer(t("mymemory.none", inv.lang))
    head = t("mymemory.head", inv.lang, n=len(facts))
    record = await inv.bridge.port.moderation.record_of(inv.tenant, inv.actor.user_id)  # their own only
    if record.total:
        head = f"{head}\n{escape(record.text(inv.lang))}"
    return Answer(head, memory_list_blocks(facts, inv.actor, inv.zone, head, inv.paging("mine")))


async def commitments(inv: Invocation) -> Answer:
    everything = inv.words()[:1] == ["all"]
    facts = await inv.bridge.port.moderation.commitments(inv.actor, session=inv.channel, include_closed=everything)
    blocks = commitments_blocks(facts, inv.actor, inv.zone, inv.paging("commitments"))
    return Answer(blocks[0]["text"]["text"], blocks)


GROUPS: dict[str, dict[str, Handler]] = {
    "dispute": {"open": dispute_open, "status": dispute_status, "summary": dispute_summary,
                "close": agreements.dispute_close, "common-ground": agreements.common_ground},
    "memory": {"list": memory_list, "show": memory_show, "edit": memory_edit, "delete": memory_delete,
               "confirm": memory_confirm, "review": memory_review, "export": memory_export, "audit": memory_audit},
}
SINGLE: dict[str, Handler] = {"mymemory": mymemory, "commitments": commitments, "settings": settings_cmd.settings,
                              "digest": agreements.digest}
#: The lists a page button re-renders, by ``Paging.kind``.
PAGED: dict[str, Handler] = {"list": memory_list, "mine": mymemory, "commitments": commitments}


async def _guarded(actor: Actor, head: str, call: Callable[[], Awaitable[Answer]]) -> Answer:
    try:
        return await call()
    except ModerationError as exc:
        return Answer(escape(exc.text(actor.lang)))
    except SlowDown as exc:
        return Answer(escape(exc.text(actor.lang)))
    except Exception:
        log.exception("/heyan %s failed for %s in %s", head, actor.user_id, actor.tenant)
        return Answer(t("failed", actor.lang))


async def run(bridge: Bridge, command: dict[str, Any], context: Any) -> Answer:
    """Answer one ``/heyan`` command (never raises: refusals and failures become the answer)."""
    tenant = await bridge.tenant(context, command)
    here = await bridge.at(tenant)
    actor = await here.people.actor(tenant, str(command["user_id"]))
    text = str(command.get("text") or "").strip()
    words = text.split(maxsplit=2)
    head = words[0].lower() if words else "help"
    if head in GROUPS and len(words) > 1 and words[1].lower() in GROUPS[head]:
        handler, rest = GROUPS[head][words[1].lower()], words[2] if len(words) > 2 else ""
    elif head in SINGLE:
        handler, rest = SINGLE[head], text.split(maxsplit=1)[1] if len(words) > 1 else ""
    else:
        return _help(actor, None if head == "help" else readable(text))

    async def call() -> Answer:
        zone = await bridge.zone(tenant, actor.user_id)
        return await handler(Invocation(bridge, here, actor, str(command["channel_id"]), rest, zone))

    return await _guarded(actor, head, call)


async def page(bridge: Bridge, here: Here, actor: Actor, paging: Paging) -> tuple[str, list[Block]]:
    """Another page of a paged list, for its ‹ Previous / Next › buttons: the list asked again."""
    handler = PAGED.get(paging.kind)
    if handler is None:
        raise InvalidRequest("that page button is from an older Heyan; run the command again",
                             "这个翻页按钮来自旧版本，请重新运行命令")
    zone = await bridge.zone(actor.tenant, actor.user_id)
    answer = await _guarded(actor, paging.kind, lambda: handler(Invocation(
        bridge, here, actor, paging.where, paging.args, zone, offset=paging.offset)))
    return answer.text, answer.blocks or [section(answer.text)]


def register(app: AsyncApp, bridge: Bridge) -> None:
    @app.command("/heyan")
    async def on_heyan(ack: Any, command: dict[str, Any], respond: Any, context: Any) -> None:
        await ack()  # within Slack's 3 s, before anything slow
        try:
            answer = await run(bridge, command, context)
        except NotInstalled:
            return
        await respond(text=answer.text, blocks=answer.blocks, response_type="ephemeral", replace_original=False)
