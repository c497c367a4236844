"""Block Kit of the agreement card's and common ground's posts and answers: their buttons and Heyan's own
strings for them (kept apart from ``adapters.slack.commands.agreements`` so ``SlackSender`` can use them without
importing the bridge)."""

from __future__ import annotations

from typing import Any

from adapters.slack.display.blocks import SECTION_TEXT, Block, section
from bot.agreements.card import CONFIRM_ACTION
from bot.delivery.outbox import Post
from bot.moderation.common_ground import GROUND_ACTION
from bot.text.catalog import say
from memory.models import Lang

__all__ = [
    "CARD_CONFIRM",
    "CARD_REFUSE",
    "CARD_REFUSE_MODAL",
    "GROUND_ENDORSE",
    "GROUND_OPEN",
    "button",
    "card_text",
    "post_blocks",
]

CARD_CONFIRM = "heyan_card_confirm"
CARD_REFUSE = "heyan_card_refuse"
CARD_REFUSE_MODAL = "heyan_card_refuse_modal"
GROUND_OPEN = "heyan_ground_open"
GROUND_ENDORSE = "heyan_ground_endorse"
#: Blocks in one message (Slack's limit is 50; the buttons take one).
_MAX_SECTIONS = 45

def card_text(lang: Lang, key: str, **values: object) -> str:
    """The card's text ``key`` in ``lang`` (``slack:card.`` keys of ``bot.text.catalog``)."""
    return say(lang, f"slack:card.{key}", **values)


def button(action_id: str, label: str, value: str, style: str | None = None) -> dict[str, Any]:
    button: dict[str, Any] = {"type": "button", "action_id": action_id, "value": value[:2000],
                              "text": {"type": "plain_text", "text": label[:75], "emoji": True}}
    if style:
        button["style"] = style
    return button


def post_blocks(post: Post, text: str) -> list[Block] | None:
    """The blocks of a post of Heyan's that carries buttons (``SlackSender``): the rendered text in
    sections, then Confirm / Refuse on an agreement card, Review privately on a common-ground prompt;
    None for any other post (it goes as text alone)."""
    action = post.ref.get("action")
    lang: Lang = post.lang
    if action == CONFIRM_ACTION and post.ref.get("card"):
        value = f"{post.session}|{post.ref['card']}"
        buttons = [button(CARD_CONFIRM, card_text(lang, "confirm"), value, "primary"),
                   button(CARD_REFUSE, card_text(lang, "refuse"), value)]
    elif action == GROUND_ACTION and post.ref.get("round"):
        buttons = [button(GROUND_OPEN, card_text(lang, "ground.open"), f"{post.session}|{post.ref['round']}", "primary")]
    else:
        return None
    sections = [section(text[i:i + SECTION_TEXT]) for i in range(0, len(text), SECTION_TEXT)][:_MAX_SECTIONS]
    return [*sections, {"type": "actions", "block_id": "heyan_card", "elements": buttons}]


