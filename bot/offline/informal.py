"""Promises in the shapes people type in a chat: no subject, a progressive, told from the listener's side.

``actions.is_commitment`` reads "I'll …"; this module reads "will send the docs tonight", "sending the
photos now" (a progressive needs a time), "You'll have the money by Monday" and subjectless Chinese
with a time, deadline or intent word ("周五之前交", "马上改"; a time alone, "明天开会", announces). A clause
about someone else never gets here. Every pattern is anchored: constant cost per clause.
"""

from __future__ import annotations

import re

from bot.offline import lexicon as lx
from bot.offline.indirect import ZH_ACTION_VERBS, zh_modifiers
from bot.text.duetime import find_due_span
from bot.text.verbs import base_form

__all__ = ["informal_action", "is_informal_promise"]

_I = re.IGNORECASE

# "will send …", "gonna clean …", "planning to pay …": a future head with the subject left out. "Will" the
# name is followed by what people do with names ("Will said", "Will is").
_EN_HEAD = re.compile(
    r"^(?:(?:definitely|def|totally|absolutely|for\s+sure|certainly|surely)\s+)?"
    r"(?:will|gonna|going\s+to|planning\s+(?:to|on)|plan\s+to|intend\s+to|promise\s+to"
    r"|(?:(?:i'?m|i’m|i\s+am|i'?d\s+be|we'?re|we\s+are)\s+)?(?:happy|glad|willing)\s+to)\s+"
    r"(?!(?:you|u|ya|we|they|he|she|it|this|that|there|said|says|told|is|was|has|had|and|or|if|be\s+able)\b)(?=[a-z])",
    _I,
)
# "sending the photos now", "I'm dropping the keys off tomorrow": handing something over, in the progressive.
_EN_DOING = re.compile(
    rf"^(?:(?:i'?m|i’m|i\s+am|we'?re|we’re|we\s+are)\s+)?(?:just\s+|definitely\s+|def\s+|totally\s+|absolutely\s+)?"
    rf"(?P<verb>{lx.EN_HANDING})\b",
    _I,
)
# Words that make a progressive about now or soon, beyond the due times ``bot.text.duetime`` reads.
_EN_SOON = re.compile(
    r"\b(?:now|right\s+now|right\s+away|asap|shortly|straight\s+away|in\s+a\s+(?:bit|sec|second|minute|moment|few)"
    r"|first\s+thing|this\s+(?:morning|afternoon|evening|week|weekend|time)|next\s+time|within\s+the\s+hour)\b",
    _I,
)
# Taking a cost or a task on, which the progressive promises without a time: "paying for the repair".
_TAKING_COST = re.compile(
    r"(?:paying\s+for|covering|handling|taking\s+care\s+of|replacing|refunding|reimbursing)\s+"
    r"(?:the|your|this|that|it|half|all|everything|both)\b(?!\s+(?:mistakes?|price)\b)",
    _I,
)
# "the report will be on your desk Friday morning": the thing the speaker owes, ready by a time.
_THING_READY = re.compile(
    r"^(?:the|your)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?\s+(?:will|'ll|’ll)\s+be\s+(?:on\s+your|in\s+your|with\s+you|ready"
    r"|done|fixed|sent|paid|returned|delivered|cleaned|sorted)\b",
    _I,
)
# "You'll have the money by Monday": what the listener will get is the speaker's promise.
_YOU_GET = re.compile(
    r"^(?:you'?ll|you’ll|you\s+will|you'?re\s+going\s+to)\s+(?P<verb>have|get|receive|see)\s+(?=(?:the|your|my|it|them|all"
    r"|every|a|an|back|\d|[$€£¥])\b|[$€£¥])",
    _I,
)
# A thing the speaker sends on its way to the listener: "a close-up video of the fold goes on our shared drive for you
# before the 20th", "it goes in the post to you by Friday" (with a time: the speaker's promise, said without "I").
_THING_GOES = re.compile(
    r"(?:^|[,;]\s*)(?:(?:so|and|then)\s+)?(?P<thing>(?:a|an|the|my|it|this|that|they|these|those|both)\b"
    r"(?:(?!,\s*(?:and|so|then)\b)[^;:]){0,120}?\s"
    r"(?:goes|go|lands|comes|arrives|gets\s+(?:posted|sent|uploaded|mailed))\b[^.;]{0,60}?\b(?:to|for)\s+you\b.*)",
    _I,
)
#: Something sent on its way to the listener, without a verb: "45 to your paypal before the weekend", "the files to
#: your inbox by Monday", "the rest your way next week".
_SENT_TO_YOU = re.compile(
    r"^(?P<thing>(?:[$€£¥]\s?\d[\d,.]*k?|\d[\d,.]*\s?(?:k|euros?|eur|dollars?|bucks|quid|pounds?|usd|gbp|rmb|yuan)?"
    r"|(?:the|my|our|all\s+the|half\s+the|both)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?|it|them|cash|payment))"
    r"\s+(?:(?:back|over|across)\s+)?(?:to\s+(?:you|u|your\s+[\w'-]+(?:\s+[\w'-]+)?)|your\s+way)\b",
    _I,
)
#: The present said for the future, as many write it: "I send it tomorrow", "we pay you Friday" (a deed, and a time).
_EN_PRESENT = re.compile(
    r"^(?:i|we)\s+(?:just\s+|definitely\s+|def\s+|then\s+)?(?P<verb>send|transfer|pay|return|drop|bring|cover|fix|clean"
    r"|email|text|forward|refund|replace|handle|book|order|pick\s+up|sort|post|share|write|finish|submit|update|upload"
    r"|repair|buy|give|hand|deliver|mail|wire|settle|sign|redo|rewrite|swap|make\s+sure|take\s+care\s+of|cook|prepare"
    r"|organi[sz]e|arrange|set\s+up|host|restore|repost|reimburse|venmo)\b(?!\s+(?:it\s+)?(?:every|each|on\s+\w+days)\b)",
    _I,
)
_NOT_BUT = re.compile(r",\s*not\b|\bnot\s+\w+,|\band\s+(?:the|it|that|this)\s+\w+\s+(?:is|are|was|were)\b", _I)
_UNTIL = re.compile(r"\b(?:until|till|til|since)\s*$", _I)
_PRONOUN_THING = re.compile(r"(?:it|this|that|they|these|those)\b", _I)
_INSTEAD = re.compile(r"\binstead\b|\brather\s+than\b|\bnot\s+(?:on\s+)?(?:the\s+)?\d", _I)
# Taking a turn: "I'm on dinner duty tomorrow" (with a time), "on my way to fix it", "dishes are mine tonight".
_ON_DUTY = re.compile(r"^(?:i'?m|i’m|i\s+am)\s+on\s+[\w-]+(?:\s+[\w-]+)?\s+duty\b", _I)
_ON_MY_WAY = re.compile(r"^(?:(?:i'?m|i’m|i\s+am)\s+)?on\s+my\s+way\s+to\s+(?P<act>[a-z].*)", _I)
_MINE = re.compile(r"^(?P<what>(?:the\s+)?[a-z][\w'-]*(?:\s+[\w'-]+){0,2}?)\s+(?:is|are|'s)\s+mine\b(?P<rest>.*)", _I)
# Chinese: something that starts a clause with its own subject (then it is not subjectless).
_ZH_SUBJECT = re.compile(r"^(?:我|你|您|他|她|它|咱|对方|大家|人家|别人|谁)")
# Intent words that make a subjectless time-and-action a promise rather than a plan announced.
_ZH_STRONG = re.compile(r"马上|立刻|这就|就|一定|保证|去|来|先|亲自|尽快|赶紧|抓紧|重新|以后|今后|下次|下回")
_ZH_VERB = re.compile(rf"(?:{ZH_ACTION_VERBS})")
_ZH_NOT_ACTION = re.compile(r"^(?:还在|正在|还没|一直|从来|是|有|在|要|没|不|已经|刚|得|可能|也许|大概|会不会|能不能)")
#: A thing of someone's said first, as the topic: "你上学期自己垫的两箱教材邮费，62欧，…".
ZH_TOPIC = re.compile(r"^(?:你|您|他|她)[^，,。！？说讲]{0,14}的[^，,。！？]{1,12}[，,](?:\s*[\d一二两三四五六七八九十百千万.]+\s*(?:欧|元|块|镑|美元|刀)[，,])?")
_ZH_TO_YOU = re.compile(r"(?:给|还|发|退|寄|送|转|带|交|付)(?:给)?你(?!们?的)")


def is_informal_promise(core: str, *, due: str = "") -> bool:
    """Is the clause (openers stripped: ``clauses.core``) one of the module docstring's forms? ``due``:
    the clause's due-time words, maybe before the part ``core`` keeps ("Tomorrow morning I'm …")."""
    if not core:
        return False
    if m := _EN_HEAD.match(core):
        return not lx.NOT_A_PROMISE.match(core[m.end() :])
    if m := _EN_DOING.match(core):
        rest = core[m.end() :]
        return bool(due or find_due_span(rest) or _EN_SOON.search(rest) or _TAKING_COST.match(core[m.start("verb") :]))
    if _THING_READY.match(core) or _ON_DUTY.match(core) or _MINE.match(core):
        return bool(due or find_due_span(core) or _EN_SOON.search(core))
    if _ON_MY_WAY.match(core):
        return True
    if _YOU_GET.match(core):
        return bool(due or find_due_span(core))
    if _EN_PRESENT.match(core):
        # its time said of the deed ("I send it tomorrow"), not of something else ("…, not from memory, and the log is
        # with the owner until Thursday")
        span = find_due_span(core)
        return bool(due or span) and not _NOT_BUT.search(core) and not (span and _UNTIL.search(core[: span[0]]))
    if _SENT_TO_YOU.match(core):
        return bool(due or find_due_span(core) or _EN_SOON.search(core)) and not _INSTEAD.search(core)
    if goes := _THING_GOES.search(core):  # (its time said with it: "…, and it goes in the post to you before the 31st")
        # ("They go out to you Wednesday the 28th instead of the 23rd" moves a promise made before; a thing said only as
        # "it" is named in the words before the clause, which the rules' ``arrival`` reads)
        return bool(find_due_span(goes.group("thing"))) and not _INSTEAD.search(core) and not _PRONOUN_THING.match(goes.group("thing"))
    return _zh_subjectless(core, due)


def _zh_subjectless(core: str, due: str) -> bool:
    """ "下周一之前补上", "马上改", "明天把钱转你": a time or intent word, then an action, no subject.
    ``due``: time words ``core`` took off the front ("以后停外面" → "停外面")."""
    if _ZH_SUBJECT.match(core) or not re.match(r"[\u4e00-\u9fff]", core):
        return False
    rest, marked, deadline = zh_modifiers(core)
    if not (marked or due) or _ZH_NOT_ACTION.match(rest):
        return False
    lead = due + core[: len(core) - len(rest)]
    deadline = deadline or bool(re.search(r"(?:之前|以前|前|之内|以内|内)$", due))
    if not rest.strip("了吧啊哈") and re.search(r"[去来]$", lead):  # "明天一早就去", "马上来"
        return bool(_ZH_STRONG.search(lead[:-1]))
    if rest.startswith("把"):
        return bool(_ZH_VERB.search(rest[:16]))
    if not _ZH_VERB.match(rest):
        return False
    return bool(deadline or _ZH_STRONG.search(lead) or _ZH_TO_YOU.search(rest))


def informal_action(core: str) -> str | None:
    """The promised action of an informal form, in words a reply can use after "promised to": "will send
    the docs tonight" → "send the docs tonight"; "I'm dropping the keys off tomorrow" → "drop the keys
    off tomorrow"; "You'll have the money by Monday" → "make sure you have the money by Monday". None for
    other clauses (a Chinese clause without a subject is its own action)."""
    if m := _EN_HEAD.match(core):
        return core[m.end() :]
    if m := _EN_DOING.match(core):  # "I'm dropping the keys off" → "drop the keys off"
        return base_form(m.group("verb")) + core[m.end("verb") :]
    if m := _YOU_GET.match(core):
        return f"make sure you {core[m.start('verb'):]}"
    if m := _EN_PRESENT.match(core):  # "I send it tomorrow" → "send it tomorrow"
        return core[m.start("verb") :]
    if _SENT_TO_YOU.match(core):  # "45 to your paypal before the weekend" → "send 45 to your paypal …"
        return f"send {core}"
    if _THING_READY.match(core):
        return f"make sure {core[:1].lower()}{core[1:]}"
    if (goes := _THING_GOES.search(core)) and not _PRONOUN_THING.match(goes.group("thing")):
        return f"make sure {goes.group('thing')}"
    if m := _ON_MY_WAY.match(core):
        return m.group("act")
    if m := _MINE.match(core):
        return f"take care of {m.group('what')}{m.group('rest')}".strip()
    return None
