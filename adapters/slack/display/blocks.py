"""Block Kit for Heyan: memory cards, the review page, commitments, the App Home tab, the Correct modal.

Pure functions from the moderation service's results to Slack's JSON (buttons handled in
``adapters.slack.commands.actions``, offered by what the viewer may do). Untrusted text is escaped and every
``mrkdwn`` is ``verbatim``. Slack's limits hold by construction, measured after escaping; longer text
is cut outside an ``&…;`` entity; long lists page with buttons carrying the list (``Paging``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adapters.slack.display.render import escape
from adapters.slack.display.texts import kind_label, status_label, t
from bot.actors import Actor
from bot.delivery.reminders import format_when
from bot.moderation import ReviewPage
from bot.text import kinds
from memory.models import Fact, Kind, Lang, utcnow

__all__ = [
    "CONFIRM",
    "CORRECT",
    "CORRECT_MODAL",
    "DELETE",
    "DONE",
    "MAX_CARDS",
    "PAGE",
    "PAGE_NEXT",
    "PAGE_PREV",
    "REVIEW_PAGE",
    "Block",
    "ModalOrigin",
    "Paging",
    "commitment_line",
    "commitments_blocks",
    "correct_modal",
    "home_view",
    "loading_modal",
    "memory_card",
    "memory_list_blocks",
    "notice_modal",
    "pager",
    "review_blocks",
    "section",
]

Block = dict[str, Any]

# Action ids; values: a memory id (mem_*), a commitment id (commit_done), an offset (review_*),
# ``Paging`` JSON (page_*). The Correct modal's callback id is ``CORRECT_MODAL``.
CONFIRM = "heyan_mem_confirm"
CORRECT = "heyan_mem_correct"
DELETE = "heyan_mem_delete"
DONE = "heyan_commit_done"
REVIEW_PREV = "heyan_review_prev"
REVIEW_NEXT = "heyan_review_next"
CORRECT_MODAL = "heyan_correct"

#: Blocks in a message / in a modal or the Home tab (Slack's limits).
MESSAGE_BLOCKS = 50
VIEW_BLOCKS = 100
#: Characters of a section's text, of a button's label and value (Slack's limits).
SECTION_TEXT = 3000
BUTTON_TEXT = 75
BUTTON_VALUE = 2000
#: Cards per page of a list: a card is at most five blocks with its divider; with the heading and the
#: page buttons a page stays well under 50 blocks.
PAGE = 8
MAX_CARDS = PAGE
#: Memories per review page.
REVIEW_PAGE = 5
#: Commitments per page (one block each).
COMMITMENTS_PAGE = 15
#: Cards and commitments per page of the Home tab (a view holds at most 100 blocks).
HOME_MEMORIES = 12
HOME_COMMITMENTS = 10

PAGE_PREV = "heyan_page_prev"
PAGE_NEXT = "heyan_page_next"


def _cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: cut before the last one (then "…"), never inside an
    ``&amp;``-style entity of escaped text."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    amp = cut.rfind("&")
    if amp != -1 and ";" not in cut[amp:] and len(cut) - amp <= 5:
        cut = cut[:amp]
    return cut + "…"


def _md(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": _cut(text, SECTION_TEXT) or " ", "verbatim": True}


def _plain(text: str, limit: int = BUTTON_TEXT) -> dict[str, Any]:
    return {"type": "plain_text", "text": _cut(text, limit) or " ", "emoji": True}


@dataclass(frozen=True, slots=True)
class Paging:
    """Which list a page button shows: its ``kind`` (``list``, ``mine``, ``commitments``, ``home``),
    the words that chose it (``args``), the channel it was asked in (``where``) and where the page
    starts (``offset``). Travels in the button's value (at most 2,000 characters: ``args`` is cut)."""

    kind: str
    args: str = ""
    offset: int = 0
    where: str = ""

    def at(self, offset: int) -> Paging:
        return Paging(self.kind, self.args, max(0, offset), self.where)

    def dump(self) -> str:
        return json.dumps({"k": self.kind, "a": self.args[:1500], "o": self.offset, "w": self.where[:40]},
                          ensure_ascii=False)

    @classmethod
    def load(cls, raw: str) -> Paging:
        try:
            data = json.loads(raw or "{}")
            if not isinstance(data, dict) or not isinstance(data.get("k"), str):
                raise ValueError
            return cls(data["k"], str(data.get("a") or ""), max(0, int(data.get("o") or 0)), str(data.get("w") or ""))
        except (ValueError, TypeError):
            raise ValueError("not a Heyan page button's value") from None


def pager(paging: Paging, total: int, size: int, lang: Lang) -> list[Block]:
    """The ‹ Previous / Next › buttons of a paged list (none when it fits one page)."""
    nav: list[dict[str, Any]] = []
    if paging.offset > 0:
        nav.append(_button(PAGE_PREV, t("review.prev", lang), paging.at(paging.offset - size).dump()))
    if paging.offset + size < total:
        nav.append(_button(PAGE_NEXT, t("review.next", lang), paging.at(paging.offset + size).dump()))
    if not nav:
        return []
    pages = (total + size - 1) // size
    return [_context(t("page.of", lang, page=paging.offset // size + 1, pages=pages, total=total)),
            {"type": "actions", "block_id": "heyan_page_nav", "elements": nav}]


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
    meta = [f"`{fact.id[:8]}`", status_label(fact.status_at(utcnow()).value, lang), fact.confidence.value]
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


def memory_list_blocks(facts: Sequence[Fact], actor: Actor, zone: str, head: str,
                       paging: Paging | None = None) -> list[Block]:
    """A header line and one page of ``PAGE`` cards from ``paging.offset``, with page buttons."""
    paging = paging or Paging("list")
    blocks: list[Block] = [section(head)]
    for fact in facts[paging.offset:paging.offset + PAGE]:
        blocks += [{"type": "divider"}, *memory_card(fact, actor, zone)]
    return blocks + pager(paging, len(facts), PAGE, actor.lang)


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
            f"{status_label(fact.status_at(utcnow()).value, lang)}")
    block = section(text)
    if actor.is_moderator or actor.user_id == fact.subject:
        block["accessory"] = _button(DONE, t("button.done", lang), fact.id)
    return block


def commitments_blocks(facts: Sequence[Fact], actor: Actor, zone: str, paging: Paging | None = None) -> list[Block]:
    """A heading and one page of ``COMMITMENTS_PAGE`` commitments, with page buttons."""
    lang = actor.lang
    if not facts:
        return [section(t("commitments.none", lang))]
    paging = paging or Paging("commitments")
    blocks = [section(t("commitments.head", lang, n=len(facts)))]
    blocks += [commitment_line(f, actor, zone) for f in facts[paging.offset:paging.offset + COMMITMENTS_PAGE]]
    return blocks + pager(paging, len(facts), COMMITMENTS_PAGE, lang)


def home_view(memories: Sequence[Fact], commitments: Sequence[Fact], actor: Actor, zone: str,
              notice: str | None = None, *, offset: int = 0) -> dict[str, Any]:
    """The App Home tab: one page of the member's own memories (with Correct; from ``offset``) and
    their commitments (with Mark done), within a view's 100 blocks."""
    lang = actor.lang
    blocks: list[Block] = [{"type": "header", "text": _plain(t("home.title", lang), 150)}]
    if notice:
        blocks.append(section(f":warning: {notice}"))
    blocks += [_context(t("home.intro", lang)), {"type": "divider"},
               section(f"*{t('home.memories', lang)}* ({len(memories)})")]
    if not memories:
        blocks.append(_context(t("mymemory.none", lang)))
    for fact in memories[offset:offset + HOME_MEMORIES]:
        blocks += memory_card(fact, actor, zone)
    blocks += pager(Paging("home", offset=offset), len(memories), HOME_MEMORIES, lang)
    blocks += [{"type": "divider"}, section(f"*{t('home.commitments', lang)}* ({len(commitments)})")]
    if not commitments:
        blocks.append(_context(t("commitments.none", lang)))
    blocks += [commitment_line(f, actor, zone) for f in commitments[:HOME_COMMITMENTS]]
    if len(commitments) > HOME_COMMITMENTS:
        blocks.append(_context(t("home.more", lang, n=len(commitments) - HOME_COMMITMENTS)))
    return {"type": "home", "blocks": blocks[:VIEW_BLOCKS]}


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


def loading_modal(origin: ModalOrigin) -> dict[str, Any]:
    """What the Correct button opens at once, before anything is looked up (the trigger lasts 3 s;
    the presser's language is not known yet, so it says it in both): filled by ``views.update``."""
    return {
        "type": "modal",
        "callback_id": CORRECT_MODAL,
        "private_metadata": origin.dump(),
        "title": _plain(f"{t('modal.title', 'en')} · {t('modal.title', 'zh')}", 24),
        "close": _plain(f"{t('modal.close', 'en')} · {t('modal.close', 'zh')}", 24),
        "blocks": [section(f"{t('modal.loading', 'en')}\n{t('modal.loading', 'zh')}")],
    }


def notice_modal(lang: Lang, text: str) -> dict[str, Any]:
    """The modal turned into a message (the memory could not be shown: a refusal, an error)."""
    return {"type": "modal", "title": _plain(t("modal.title", lang), 24), "close": _plain(t("modal.close", lang), 24),
            "blocks": [section(text)]}


def correct_modal(fact: Fact, lang: Lang, origin: ModalOrigin) -> dict[str, Any]:
    """The Correct modal: the current value, a field for the new one and an optional reason."""
    return {
        "type": "modal",
        "callback_id": CORRECT_MODAL,
        "private_metadata": origin.dump(),
        "title": _plain(t("modal.title", lang), 24),
        "submit": _plain(t("modal.submit", lang), 24),
        "close": _plain(t("modal.close", lang), 24),
        "blocks": [
            _context(t("modal.current", lang, value=escape(_cut(fact.value, 2000)))),  # _md cuts after escaping
            {"type": "input", "block_id": "value", "label": _plain(t("modal.value", lang)),
             "element": {"type": "plain_text_input", "action_id": "value", "multiline": True,
                         "initial_value": _cut(fact.value, 3000), "max_length": 3000}},
            {"type": "input", "block_id": "reason", "optional": True, "label": _plain(t("modal.reason", lang)),
             "element": {"type": "plain_text_input", "action_id": "reason", "max_length": 500}},
        ],
    }
