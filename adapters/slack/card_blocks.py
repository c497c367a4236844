"""Block Kit of the agreement card's and common ground's posts and answers: their buttons and Heyan's own
strings for them (kept apart from ``adapters.slack.agreements`` so ``SlackSender`` can use them without
importing the bridge)."""

from __future__ import annotations

from typing import Any

from adapters.slack.blocks import SECTION_TEXT, Block, section
from bot.agreements import CONFIRM_ACTION
from bot.moderation.common_ground import GROUND_ACTION
from bot.outbox import Post
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

_TEXT: dict[str, dict[Lang, str]] = {
    "confirm": {"en": "Confirm", "zh": "确认"},
    "refuse": {"en": "Refuse", "zh": "不同意"},
    "waiting": {"en": "I posted the agreement card; the dispute closes once {pending} confirm it.",
                "zh": "我发布了协议卡，等 {pending} 都确认后争议就会结束。"},
    "confirmed": {"en": "You confirmed the agreement card.", "zh": "你确认了协议卡。"},
    "agreed": {"en": "You confirmed the agreement card — everyone has now: it is recorded as agreed.",
               "zh": "你确认了协议卡——所有人都已确认，已记录为共识。"},
    "changed": {"en": "What Heyan remembers changed since that card was posted; I posted the new card — please "
                      "confirm that one.", "zh": "协议卡发布后记录有了变化；我发布了新的协议卡，请确认新的那张。"},
    "refused": {"en": "Your refusal is recorded; the dispute stays open.", "zh": "已记录你不同意；争议继续进行。"},
    "refuse.title": {"en": "Refuse the card", "zh": "不同意协议卡"},
    "refuse.reason": {"en": "Why? (shown in the thread)", "zh": "原因（会显示在话题里）"},
    "refuse.submit": {"en": "Refuse", "zh": "提交"},
    "ground.asked": {"en": "I drafted {n} statements of common ground and asked {who} privately which they endorse.",
                     "zh": "我起草了 {n} 句共同点，并私下询问 {who} 能认同哪些。"},
    "ground.open": {"en": "Review privately", "zh": "私下查看"},
    "ground.head": {"en": "Statements of common ground — endorse the ones you can (only a statement everyone "
                         "endorses is posted):", "zh": "共同点陈述——认同你能认同的（只有每个人都认同的才会公布）："},
    "ground.endorse": {"en": "Endorse {n}", "zh": "认同第 {n} 句"},
    "ground.endorsed": {"en": "✓ you endorse this", "zh": "✓ 你认同这句"},
    "ground.posted": {"en": "Everyone endorses it: posted in the thread.", "zh": "每个人都认同：已在话题里公布。"},
    "digest.set": {"en": "The moderators' digest goes to {channel}, {schedule} (alerts too).",
                   "zh": "管理员摘要（以及预警）将发到 {channel}，频率：{schedule}。"},
    "digest.undeliverable": {"en": "Notice: Heyan cannot post in {channel} ({error}); choose another channel.",
                             "zh": "注意：和言无法在 {channel} 发消息（{error}）；请换一个频道。"},
}


def card_text(lang: Lang, key: str, **values: object) -> str:
    return _TEXT[key][lang].format(**values)


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


