"""Block Kit for Heyan: memory cards, the review page, commitments, the App Home tab, the Correct modal.

Pure functions from the moderation service's results to Slack's JSON; the listeners in
``adapters.slack.actions`` handle the buttons they carry. Untrusted text (values, quotes, names) is
escaped and every ``mrkdwn`` object is ``verbatim``, so Slack neither links names nor parses
``@channel`` inside a memory. Buttons are offered by what the viewer may do, and the service checks
again when one is pressed.

Action ids: ``heyan_mem_confirm`` / ``heyan_mem_correct`` / ``heyan_mem_delete`` (value: memory
id), ``heyan_commit_done`` (value: commitment id), ``heyan_review_prev`` / ``heyan_review_next``
(value: offset). The modal's callback id is ``heyan_correct``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adapters.slack.render import escape
from adapters.slack.texts import kind_label, status_label, t
from bot import kinds
from bot.actors import Actor
from bot.moderation import ReviewPage
from bot.reminders import format_when
from memory.models import Fact, Kind, Lang

__all__ = [
    "CONFIRM",
    "CORRECT",
    "CORRECT_MODAL",
    "DELETE",
    "DONE",
    "MAX_CARDS",
    "REVIEW_PAGE",
    "Block",
    "ModalOrigin",
    "commitment_line",
    "commitments_blocks",
    "correct_modal",
    "home_view",
    "memory_card",
    "memory_list_blocks",
    "review_blocks",
    "section",
]

Block = dict[str, Any]

CONFIRM = "heyan_mem_confirm"
CORRECT = "heyan_mem_correct"
DELETE = "heyan_mem_delete"
DONE = "heyan_commit_done"
REVIEW_PREV = "heyan_review_prev"
REVIEW_NEXT = "heyan_review_next"
CORRECT_MODAL = "heyan_correct"

#: Cards per message: a listed card is up to five blocks (with its divider), a message holds at most 50.
MAX_CARDS = 9
#: Memories per review page.
REVIEW_PAGE = 5
#: Cards and commitments on the Home tab (a view holds at most 100 blocks).
HOME_MEMORIES = 12
HOME_COMMITMENTS = 10


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _md(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": _cut(text, 3000), "verbatim": True}


def _plain(text: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": _cut(text, 75), "emoji": True}


def section(text: str) -> Block:
    """A ``mrkdwn`` section of already-escaped text."""
    return {"type": "section", "text": _md(text)}


def _context(text: str) -> Block:
    return {"type": "context", "elements": [_md(text)]}


def _button(action_id: str, label: str, value: str, *, style: str | None = None,
            confirm: dict[str, Any] | None = None) -> dict[str, Any]:
    button: dict[str, Any] = {"type": "button", "action_id": action_id, "text": _plain(label), "value": value}
    if style:
        button["style"] = style
    if confirm:
        button["confirm"] = confirm
    return button


def _delete_confirm(lang: Lang) -> dict[str, Any]:
    return {"title": _plain(t("delete.title", lang)), "text": _md(t("delete.text", lang)),
            "confirm": _plain(t("delete.yes", lang)), "deny": _plain(t("delete.no", lang)), "style": "danger"}


def _concerns(actor: Actor, fact: Fact) -> bool:
    return actor.user_id in fact.users or actor.user_id in (fact.subject, fact.asserted_by)


def _headline(fact: Fact, lang: Lang, zone: str) -> str:
    who = escape(fact.subject_name or fact.subject)
    line = f"*{kind_label(kinds.label(fact), lang)}* · {who} — {escape(fact.attribute)}: {escape(fact.value)}"
    meta = [f"`{fact.id[:8]}`", status_label(fact.status.value, lang), fact.confidence.value]
    if fact.kind is Kind.COMMITMENT:
        meta.append(t("commitment.due", lang, when=format_when(fact.due_at, zone, lang)) if fact.due_at
                    else t("commitment.no_due", lang))
    return line + "\n" + " · ".join(meta)


def memory_card(fact: Fact, actor: Actor, zone: str) -> list[Block]:
    """One memory: what it says, where it came from, and the buttons ``actor`` may use on it."""
    lang = actor.lang
    blocks: list[Block] = [section(_headline(fact, lang, zone))]
    if fact.sources:
        src = fact.sources[0]
        blocks.append(_context(t("card.said", lang, who=escape(src.author_name or src.author_id),
                                 when=format_when(src.ts, zone, lang), quote=escape(_cut(src.quote, 300)))))
    if fact.contested:
        values = "; ".join(f"“{escape(_cut(c.value, 120))}”" for c in fact.contested[:3])
        blocks.append(_context(t("card.contested", lang, values=values)))
    buttons: list[dict[str, Any]] = []
    if actor.is_moderator:
        buttons.append(_button(CONFIRM, t("button.confirm", lang), fact.id, style="primary"))
    if actor.is_moderator or _concerns(actor, fact):
        buttons.append(_button(CORRECT, t("button.correct", lang), fact.id))
    if actor.is_moderator:
        buttons.append(_button(DELETE, t("button.delete", lang), fact.id, style="danger",
                               confirm=_delete_confirm(lang)))
    if buttons:
        blocks.append({"type": "actions", "block_id": f"heyan_card:{fact.id}", "elements": buttons})
    return blocks


def memory_list_blocks(facts: Sequence[Fact], actor: Actor, zone: str, head: str) -> list[Block]:
    """A header line and up to ``MAX_CARDS`` cards (then how many more there are)."""
    blocks: list[Block] = [section(head)]
    for fact in facts[:MAX_CARDS]:
        blocks += [{"type": "divider"}, *memory_card(fact, actor, zone)]
    if len(facts) > MAX_CARDS:
        blocks.append(_context(t("memory.more", actor.lang, n=len(facts) - MAX_CARDS)))
    return blocks


def review_blocks(page: ReviewPage, actor: Actor, zone: str) -> list[Block]:
    """One page of the review queue with Previous / Next buttons."""
    lang = actor.lang
    if page.total == 0:
        return [section(t("review.empty", lang))]
    pages = (page.total + REVIEW_PAGE - 1) // REVIEW_PAGE
    head = t("review.head", lang, total=page.total, page=page.offset // REVIEW_PAGE + 1, pages=pages)
    blocks: list[Block] = [section(head)]
    for fact in page.items:
        blocks += [{"type": "divider"}, *memory_card(fact, actor, zone)]
    nav: list[dict[str, Any]] = []
    if page.offset > 0:
        nav.append(_button(REVIEW_PREV, t("review.prev", lang), str(max(0, page.offset - REVIEW_PAGE))))
    if page.offset + REVIEW_PAGE < page.total:
        nav.append(_button(REVIEW_NEXT, t("review.next", lang), str(page.offset + REVIEW_PAGE)))
    if nav:
        blocks.append({"type": "actions", "block_id": "heyan_review_nav", "elements": nav})
    return blocks


def commitment_line(fact: Fact, actor: Actor, zone: str) -> Block:
    """A commitment in one section, with Mark done for its owner and moderators."""
    lang = actor.lang
    due = (t("commitment.due", lang, when=format_when(fact.due_at, zone, lang)) if fact.due_at
           else t("commitment.no_due", lang))
    owner = escape(fact.subject_name or fact.subject)
    text = (f"`{fact.id[:8]}` *{owner}*: {escape(fact.value)}\n{due} · "
            f"{status_label(fact.status.value, lang)}")
    block = section(text)
    if actor.is_moderator or actor.user_id == fact.subject:
        block["accessory"] = _button(DONE, t("button.done", lang), fact.id)
    return block


def commitments_blocks(facts: Sequence[Fact], actor: Actor, zone: str) -> list[Block]:
    lang = actor.lang
    if not facts:
        return [section(t("commitments.none", lang))]
    blocks = [section(t("commitments.head", lang, n=len(facts)))]
    blocks += [commitment_line(f, actor, zone) for f in facts[:40]]
    return blocks


def home_view(memories: Sequence[Fact], commitments: Sequence[Fact], actor: Actor, zone: str,
              notice: str | None = None) -> dict[str, Any]:
    """The App Home tab: the member's own memories (with Correct) and commitments (with Mark done)."""
    lang = actor.lang
    blocks: list[Block] = [{"type": "header", "text": _plain(t("home.title", lang))}]
    if notice:
        blocks.append(section(f":warning: {notice}"))
    blocks += [_context(t("home.intro", lang)), {"type": "divider"},
               section(f"*{t('home.memories', lang)}* ({len(memories)})")]
    if not memories:
        blocks.append(_context(t("mymemory.none", lang)))
    for fact in memories[:HOME_MEMORIES]:
        blocks += memory_card(fact, actor, zone)
    if len(memories) > HOME_MEMORIES:
        blocks.append(_context(t("home.more", lang, n=len(memories) - HOME_MEMORIES)))
    blocks += [{"type": "divider"}, section(f"*{t('home.commitments', lang)}* ({len(commitments)})")]
    if not commitments:
        blocks.append(_context(t("commitments.none", lang)))
    blocks += [commitment_line(f, actor, zone) for f in commitments[:HOME_COMMITMENTS]]
    return {"type": "home", "blocks": blocks}


@dataclass(frozen=True, slots=True)
class ModalOrigin:
    """Where the Correct button was pressed, kept in the modal's ``private_metadata``: the memory,
    and how to tell the member the result (the message's ``response_url``, or the Home tab)."""

    fact_id: str
    response_url: str = ""
    home: bool = False

    def dump(self) -> str:
        return json.dumps({"fact": self.fact_id, "response_url": self.response_url, "home": self.home})

    @classmethod
    def load(cls, raw: str) -> ModalOrigin:
        data = json.loads(raw or "{}")
        if not isinstance(data, dict) or not isinstance(data.get("fact"), str):
            raise ValueError("not a Heyan modal's private_metadata")
        return cls(data["fact"], str(data.get("response_url") or ""), bool(data.get("home")))


def correct_modal(fact: Fact, lang: Lang, origin: ModalOrigin) -> dict[str, Any]:
    """The Correct modal: the current value, a field for the new one and an optional reason."""
    return {
        "type": "modal",
        "callback_id": CORRECT_MODAL,
        "private_metadata": origin.dump(),
        "title": _plain(t("modal.title", lang)),
        "submit": _plain(t("modal.submit", lang)),
        "close": _plain(t("modal.close", lang)),
        "blocks": [
            _context(t("modal.current", lang, value=escape(_cut(fact.value, 2000)))),
            {"type": "input", "block_id": "value", "label": _plain(t("modal.value", lang)),
             "element": {"type": "plain_text_input", "action_id": "value", "multiline": True,
                         "initial_value": _cut(fact.value, 3000), "max_length": 3000}},
            {"type": "input", "block_id": "reason", "optional": True, "label": _plain(t("modal.reason", lang)),
             "element": {"type": "plain_text_input", "action_id": "reason", "max_length": 500}},
        ],
    }
