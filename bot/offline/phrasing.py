"""What the offline mediator says when a turn addresses it without asking about the record.

One or two sentences fitting the stage (gathering, de-escalating, exploring, confirming, closed),
acknowledging a promise or agreement in the turn first. Each stage's wordings are taken in turn, so
the same turn gets the same reply and a thread never hears one sentence twice in a row.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from bot.extraction.candidates import ExtractionRequest
from bot.llm.base import ReplyRequest
from bot.models import Stage
from bot.offline import lexicon as lx
from bot.offline.rules import extract_rules
from bot.offline.templates import content, format_due
from bot.text.names import NameBook
from memory.models import Kind, Lang

__all__ = ["mediate"]

# {name}: the speaker; {other}: someone else in the thread; {feeling}: what the turn expresses.
_LINES: dict[Stage, dict[Lang, tuple[str, ...]]] = {
    Stage.GATHERING: {
        "en": (
            "Thanks, {name}. {other_q}",
            "I hear you, {name}. What would a good outcome look like for you?",
            "Got it, {name}. {other_q}",
            "Thank you for explaining, {name}. Is there anything else that matters to you here?",
        ),
        "zh": (
            "谢谢你，{name}。{other_q}",
            "我听到了，{name}。对你来说，怎样的结果算是好的结果？",
            "明白了，{name}。{other_q}",
            "谢谢你说明，{name}。这件事里还有什么对你很重要？",
        ),
    },
    Stage.DE_ESCALATING: {
        "en": (
            "{name}, I can hear this has been {feeling} for you. Let's take it one step at a time — what would help most right now?",
            "That sounds {feeling}, {name}. Let's slow down: one person at a time, and I'll keep track of what's said.",
            "I understand this is {feeling}, {name}. Before we go on, could each of you say what you need from the other?",
        ),
        "zh": (
            "{name}，我能感觉到这件事让你很{feeling}。我们一步一步来——现在最需要的是什么？",
            "听起来真的很{feeling}，{name}。我们先放慢一点：一次一个人说，我会记下大家说的话。",
            "我理解这让你很{feeling}，{name}。继续之前，能不能请双方各自说说需要对方做什么？",
        ),
    },
    Stage.EXPLORING: {
        "en": (
            "That's a concrete option, {name}. {other_would}",
            "Thanks, {name}. What could work for both of you? A specific proposal helps.",
            "Let's look at that, {name}. {other_would}",
        ),
        "zh": (
            "这是一个具体的方案，{name}。{other_would}",
            "谢谢，{name}。有没有双方都能接受的办法？具体的提议会很有帮助。",
            "我们来看看这个想法，{name}。{other_would}",
        ),
    },
    Stage.CONFIRMING: {
        "en": (
            "So {name} agrees{what}. {other_confirm}",
            "Noted: {name} agrees{what}. {other_confirm}",
        ),
        "zh": (
            "好的，{name}同意{what}。{other_confirm}",
            "记下了：{name}同意{what}。{other_confirm}",
        ),
    },
    Stage.CLOSED: {
        "en": (
            "Thank you both for working this out. {follow}",
            "Glad you found a way forward. {follow}",
        ),
        "zh": (
            "谢谢两位一起把事情谈妥。{follow}",
            "很高兴你们找到了解决办法。{follow}",
        ),
    },
}
_FEELING: dict[str, dict[Lang, str]] = {
    "angry": {"en": "frustrating", "zh": "生气"},
    "hurt": {"en": "hurtful", "zh": "难受"},
    "anxious": {"en": "stressful", "zh": "焦虑"},
    "upset": {"en": "hard", "zh": "不好受"},
}


def _pick(options: Sequence[str], seed: str, turn: int) -> str:
    """A wording: consecutive turns of a thread take consecutive wordings (so replies vary), from a
    starting point that depends on ``seed`` (so two threads do not march in step)."""
    start = int.from_bytes(hashlib.blake2b(seed.encode(), digest_size=4).digest(), "big")
    return options[(start + turn) % len(options)]


def _other(request: ReplyRequest, names: NameBook) -> str | None:
    """Someone else in the thread, the most recent speaker first."""
    for utterance in reversed(request.window):
        if utterance.author_id != request.turn.author_id:
            return names.name(utterance.author_id, utterance.author_name)
    for uid, name in request.participants.items():
        if uid != request.turn.author_id:
            return names.name(uid, name)
    return None


def _noted(request: ReplyRequest, name: str, lang: Lang) -> tuple[str, str]:
    """An acknowledgement of a promise in the turn, and what the turn agrees to (for confirming)."""
    turn = request.turn
    context = [u for u in request.window if u.message_id != turn.message_id][-6:]
    found = extract_rules(ExtractionRequest("reply", "reply", [turn], context, lang=lang, timezone=request.timezone))
    agreed = next((c.value for c in found if c.kind is Kind.CONSENSUS and c.attribute in ("agrees to", "同意")), "")
    promise = next((c for c in found if c.kind is Kind.COMMITMENT), None)
    if promise is None:
        return "", agreed
    due = format_due(promise.due_at, request.timezone, lang) if promise.due_at else ""
    action = content(promise.attribute, lang)
    if lang == "zh":
        return f"记下了，{name}：{f'在{due}前' if due else ''}{action}。" + ("到时我会跟进。" if due else ""), agreed
    by = f" by {due}" if due else ""
    # the turn's own "you" is whoever it was said to, not the speaker Heyan answers: "them" here
    action = re.sub(r"\byour\b", "their", re.sub(r"\byou\b", "them", action))
    action = re.sub(r"\bmyself\b", "yourself", re.sub(r"\bmy\b", "your", action))
    if action.startswith("not "):
        will = f"you won't {action[4:]}"
    elif action.startswith("never "):
        will = f"you'll never {action[6:]}"
    else:
        will = f"you'll {action}"
    return f"Noted, {name}: {will}{by}." + (" I'll follow up then." if due else ""), agreed


def mediate(request: ReplyRequest, names: NameBook, lang: Lang, emotion: str = "calm") -> str:
    """A stage-appropriate reply to a turn that does not ask about the record."""
    turn = request.turn
    name = names.name(turn.author_id, turn.author_name)
    other = _other(request, names)
    noted, agreed = _noted(request, name, lang)
    if emotion == "calm":
        found = lx.find_emotions(turn.text)
        emotion = found[0][0].klass if found else "upset"
    zh = lang == "zh"
    open_count = len(request.open_commitments)
    follow = (
        (f"我会继续跟进这{open_count}项未完成的承诺，到期时提醒。" if zh
         else f"I'll keep track of the {open_count} open promise{'s' if open_count != 1 else ''} and follow up when they're due.")
        if open_count else ("之后如果有变化，随时叫我。" if zh else "Call me if anything changes.")
    )
    fields = {
        "name": name,
        "feeling": _FEELING.get(emotion, _FEELING["upset"])[lang],
        "other_q": (f"{other}，你怎么看？" if zh else f"{other}, how do you see it?") if other
        else ("还有谁想说说自己的看法吗？" if zh else "Does anyone else want to share their view?"),
        "other_would": (f"{other}，这样对你可行吗？还是你想调整？" if zh else f"{other}, would that work for you, or what would you change?")
        if other else ("这样对大家可行吗？" if zh else "Would that work for everyone?"),
        "what": (f"：{content(agreed, lang)}" if zh else f" to {content(agreed, lang)}") if agreed else "",
        "other_confirm": (f"{other}，你也同意吗？如果有出入请指出。" if zh else f"{other}, do you agree too? Say if anything is off.")
        if other else ("大家都同意吗？" if zh else "Does everyone agree?"),
        "follow": follow,
    }
    if noted and request.stage in (Stage.GATHERING, Stage.EXPLORING):
        # the promise is the news: ask the other side about it rather than restart the conversation
        line = (f"{other}，这样可以吗？" if zh else f"{other}, does that work for you?") if other else ""
    else:
        seed = f"{turn.author_id}:{request.stage.value}"
        line = _pick(_LINES[request.stage][lang], seed, len(request.window)).format(**fields)
    return f"{noted} {line}".strip() if not zh else f"{noted}{line}"
