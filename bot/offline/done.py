"""Reports of a promise kept: "done", "finished", "sent it", "I've sent the draft", "已经发了", "搞定了".

``done_reports`` finds first-person, subjectless or object-first reports in the past or perfect; not
negated, a question, a condition, "I'm done with this", or a promise's own tag ("水管我来修，搞定"). It
keeps the words saying *what* was done for ``bot.extraction.completions`` to match. A report starting with a
participant's name is about that person's promise (``owner_name``); any other third person, nobody's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.extraction.candidates import Utterance
from bot.offline.actions import is_commitment
from bot.offline.clauses import clean, core, split_clauses
from bot.offline.indirect import ZH_ACTION_VERBS
from memory.normalize import normalize

__all__ = ["DoneReport", "done_reports", "takes_on"]

_I = re.IGNORECASE
_EN_VERBS = (
    r"finished|done|sent|paid|fixed|returned|delivered|submitted|uploaded|moved|cleaned|booked|posted|transferred"
    r"|handed(?:\s+over)?|completed|sorted|updated|emailed|called|written|wrote|given|gave|brought|taken|took|put|shared"
    r"|merged|reviewed|set\s+up|repaid|paid\s+back|refunded|replaced|repaired|filed|ordered|bought|dropped\s+off"
)
# Participles that say a thing is in the state a promise wanted: "the calendar is set up", "PR merged".
#: A participle or past tense that reports a deed: "-ed", but not a feeling, a wait or a setback ("worried",
#: "delayed", "cancelled", "rejected").
_DEED_ED = (r"(?!(?:worri|tir|bor|annoy|interest|excit|suppos|expect|need|requir|delay|postpon|cancel+|block|confus"
            r"|disappoint|frustrat|scar|concern|surpris|shock|stress|overwhelm|overload|lock|limit|paus|stall|reject|deni"
            r"|refus|declin|fail|crash|flagg|bann|suspend|wait|hop|want|plann|schedul|mov|us|bas|buri|misplac|damag|miss"
            r"|trapp|jamm|crack|spill|stain|tangl|ask|answer|settl|decid|agre|consider|confirm)ed\b)[a-z]{2,}[^e\W]ed")
_EN_STATES = (
    r"done|sent|paid(?:\s+back)?|fixed|finished|sorted(?:\s+out)?|ready|handled|returned|submitted|booked|merged|posted"
    r"|set\s+up|updated|emailed|uploaded|cleaned|filed|ordered|bought|replaced|repaired|delivered|shared|reviewed"
    r"|transferred|moved|completed|taken\s+care\s+of|signed|printed|installed|renewed|scheduled|drafted|rebuilt"
    r"|redone|written|published|released|answered|tested|approved|reprocessed|rerun|re-?timed|re-?uploaded"
    r"|re-?rendered|rendered|exported|re-?recorded|recorded|mixed|engraved|mailed|pushed|flashed|edited|translated"
)
# After "is"/"are" only: "the post-mortem is up", "the page is live", "the plugin is in 🛡", "template's in
# everyone's inbox"
_EN_BE_STATES = (rf"{_EN_STATES}|up|live|in(?=\s*(?:$|[^\w\s]))"
                 # any other participle of a deed ("pinned", "scanned"), not a feeling or a setback; "set to private"
                 rf"|{_DEED_ED}|set\s+to\s+[\w-]+|gone"
                 # handed to someone: "corrected flamingo row is with Lisbeth", "the keys are with you"
                 r"|with\s+(?:you|him|her|them|(?-i:[A-Z][\w'’-]+))\b"
                 r"|in\s+(?:every(?:one|body)'?s|your|our|their|his|her)\s+(?:inbox(?:es)?|mail(?:box)?|e-?mail|dms?)"
                 # where a thing handed over sits: "new 17–32 is in the drive", "fixed json is on main", "the veto
                 # rule is in the constitution doc", "your wave artisan is on the ferry"
                 r"|(?:in|on)\s+(?:the\s+|your\s+|our\s+|my\s+|every(?:one|body)'?s\s+)?(?:[\w-]+\s+){0,2}?"
                 r"(?:drive|folder|sheet|spreadsheet|docs?|document|repo|main|wiki|channel|dms?|inbox(?:es)?|mail(?:box)?"
                 r"|post|ferry|dropbox|server|tracker|calendar|board)\b")
# Where a report may say where or to whom it went ("log submitted to CQ", "flats rebuilt from the raw
# frames"), and what it holds after a colon: "errata drafted: 'In #41, …'"
_EN_WHERE = r"(?:\s+(?:to|on|in|into|onto|at|from|for|with|via|under)\b(?:[^,.;:!?]|(?<=\d)\.(?=\d))*)?(?:\s*:.*)?"
# "I've sent the draft", "I just finished the docs", "we paid the deposit"
_EN_PERFECT = re.compile(
    rf"^(?:i|we)(?:'ve|’ve|\s+have)?\s+(?:just\s+|already\s+|finally\s+|now\s+|also\s+)*(?P<verb>{_EN_VERBS})\b(?P<rest>.*)$", _I
)
# "done", "finished!", "sent it", "all done", "paid"
_EN_BARE = re.compile(rf"^(?:all\s+|it'?s\s+|that'?s\s+)?(?P<verb>{_EN_VERBS})(?P<rest>(?:\s+(?:it|that|this|them|now|already))*)"
                      r"[\s.!]*$", _I)
# "booked the venue 🎉", "paid the rent": no subject, a past form that is no imperative, then the thing
_EN_NO_SUBJECT = re.compile(
    r"^(?:just\s+|already\s+|finally\s+)*(?P<verb>finished|sent|paid|fixed|returned|delivered|submitted|uploaded|moved"
    r"|cleaned|booked|posted|transferred|completed|sorted|updated|emailed|called|wrote|gave|brought|took|shared|merged"
    r"|reviewed|repaid|refunded|replaced|repaired|filed|ordered|bought|" + _DEED_ED + r")"  # not "did": "did the landlord reply"
    r"\s+(?P<rest>(?:the|my|our|your|his|her|their|this|that|those|these|all)\b.*)$", _I)
# "there you go: the whole DM thread", "here it is — the fixed json": a handover, the thing after it
_EN_HANDOVER = re.compile(r"^(?:(?:there|here)\s+(?:you\s+go|it\s+is|they\s+are)|voil[aà])\b[\s:,—–-]*(?P<rest>\S.*)$", _I)
# "posted in #announcements and pinned", "uploaded to the drive": a participle, then where it went
_EN_WHERE_ONLY = re.compile(rf"^(?:just\s+|already\s+|now\s+|all\s+)*(?P<verb>{_EN_STATES})"
                            r"(?P<rest>\s+(?:to|in|into|on|onto)\s+\S.*)$", _I)
# "done with the roles", "finished with the slides"
_EN_DONE_WITH = re.compile(r"^(?:all\s+)?(?P<verb>done|finished)\s+with\s+(?P<rest>.+)$", _I)
# "the docs are done", "the rent is paid", "it's sent", "Calendar is set up", "tap's fixed"
_EN_STATE = re.compile(rf"^(?P<what>(?:the|my|our|your)\s+[^,.;!?]{{1,50}}?|it|that|this"
                       r"|[a-z0-9][\w-]*(?:['’]s)?(?:\s+[\w-]+){0,3}?)"  # "Ysolde's mini is printed"
                       r"(?:\s+(?:is|are|was|were|has\s+been|have\s+been)|(?:'s|’s)(?:\s+been)?)\s+"
                       rf"(?:now\s+|all\s+|finally\s+|already\s+)?(?P<verb>{_EN_BE_STATES})\b"
                       rf"(?:\s+(?:now|already|too|finally))?{_EN_WHERE}$", _I)
# "PR merged", "notes sent", "landlord emailed", "README updated": a headline, the thing first
_EN_HEADLINE = re.compile(rf"^(?P<what>(?:the\s+|my\s+|our\s+)?[a-z0-9][\w-]*(?:\s+[\w-]+){{0,3}}?)\s+"
                          rf"(?:(?:now|all|finally|already|just)\s+)?(?P<verb>{_EN_STATES})(?:\s+(?:now|already|too))?"
                          rf"{_EN_WHERE}$", _I)
# Whoever did it, named first: "Bob sent it", "Omar paid me back", "Kim has posted the schedule".
_EN_DOER = re.compile(rf"^(?P<who>[^\W\d_][\w'-]*)\s+(?:has\s+|just\s+|already\s+|finally\s+)*(?P<verb>{_EN_VERBS}|did(?=\s+the\b))\b"
                      r"(?P<rest>.*)$", _I)
_EN_NOT = re.compile(r"\b(?:not|n't|never|haven'?t|hasn'?t|once|when|after|if|until|almost|nearly|yet|will|gonna|going\s+to"
                     r"|should|would|could|might|need\s+to|needs\s+to|to\s+be)\b|\bdone\s+with\s+"
                     r"(?:you|this|it|that|them|him|her|everything|all\s+of\s+(?:this|it|you))\b|\bi'?m\s+done\b", _I)
# Pronouns, and things that are no object anyone promised: "he sent it", "you fixed it", "everyone paid",
# "his promise is cancelled", "I need my role fixed".
_EN_NOBODY = re.compile(r"^(?:he|she|they|you|someone|somebody|everyone|everybody|nobody|who|what|which|it|this|that"
                        r"|there|here|i|we|mine|yours)$|^(?:he|she|they|you|i|we|his|her|their|its|i'm|i'd)\b"
                        # a request, a wish or a guess: "Please get the calendar set up", "Make sure the PR is
                        # merged", "hopefully the rent is paid"
                        r"|^(?:please|pls|plz|kindly|can|could|would|will|should|need|needs|want|wants|get|have|has|make"
                        r"|let|go|check|ensure|confirm|see|verify|remember|hope|hopefully|maybe|probably|apparently"
                        r"|supposedly|wish|think|guess|assume|believe|is|are|was|were|if|once|when)\b", _I)
_ZH_DONE = re.compile(r"(?:发|交|付|还|转|寄|送|修|做|写|弄|改|搞|办|处理|打扫|收拾|倒|退|订|买|搬|挪|订|提交|上传|完成|整理|清理|回复"
                      r"|公示|公布|发布|上线|置顶|扫描|扫|打印|印|录|拍|剪|画)"
                      # to whom it went: "链接私信发你了", "钱转你了", "发群里了"
                      r"(?:好|完|掉|过去|出去|出|上去|上|给[^，,。]{0,6}|你们?|您|他|她|大家|群里|邮箱)?[了啦]|(?<=电话)打了|搞定|弄好了"
                      r"|做完了|完成了|办妥")
# Only after the thing done ("值日表贴好了", "快递取回来了", "纪要整理好了"): a verb and its result, or 已经…了.
_ZH_RESULT = re.compile(r"(?:好|完|掉|出去|过去|回来|上去|进去|齐|清|干净|清楚|上)了|搞定|弄好|办妥|OK了", _I)
_ZH_TWO_CHAR = "整理 收拾 打扫 清理 准备 安排 处理 修理 布置 填写 提交 上传 预订 预约 联系 通知 确认 检查 更新"
_ZH_TWO_CHAR_VERBS = frozenset(_ZH_TWO_CHAR.split())
# The verb of a topic-first report must be a doing a promise names ("纸用完了", "网费已经欠了" report nothing kept).
_ZH_DOING = re.compile(rf"(?:{ZH_ACTION_VERBS}|贴|擦|洗|铺|挂|剪|烧|煮|晒|叠|浇|喂|签|扫|公示|公布|发布|上线|置顶|印|录|拍|画)")
_ZH_ALREADY = re.compile(rf"已经(?:把(?P<obj>[^，,。]{{1,8}}?)(?={_ZH_DOING.pattern}))?(?P<verb>[^，,。]{{1,8}}?)了")
_ZH_LEAD = re.compile(r"^(?:刚才?|刚刚|我们?|已经|把|\s)+")
_ZH_NOT = re.compile(r"还没|没有|没(?!问题)|不|吗|么|呢|要是|如果|等|之后再|快要|快(?![递件])|马上|就要|准备|坏|丢"
                     r"|觉得|听说|好像|应该|可能|估计|据说|大概|也许|得(?=[\u4e00-\u9fff]{1,2}了$)")
_ZH_THIRD = re.compile(r"^(?:你|您|他|她|他们|她们|对方|人家|别人|大家)")
_ZH_AGENT = re.compile(r"^(?P<who>[^\W\da-zA-Z_我你您他她咱们]{2,3}?)(?:已经|刚刚?|终于|也|都)?(?:把|已经|刚)")
_EN_STOP_WORDS = ("i we it that this them the a an my our your his her their to for of on in at with by and now "
                  "already just finally all back over off up me you us him thanks thank lol is are")
_EN_STOP = frozenset(_EN_STOP_WORDS.split())
_PIECES = re.compile(r"\s*(?:[,，;；]|[\U0001F300-\U0001FAFF\u2600-\u27BF]\uFE0F?(?=\s+[A-Za-z0-9]))\s*")  # "is in 🛡 everyone …"
_TRAILING = re.compile(r"[\W_]+$")


@dataclass(frozen=True, slots=True)
class DoneReport:
    """One report of having done something: who said it, in which message, their words, and what was
    done (``what``: content words, "" for a bare "done"; ``verb``: the doing, "" when none).
    ``owner_name``: the participant named as the doer ("Bob sent it"); "" when it is the speaker."""

    message_id: str
    author_id: str
    author_name: str
    ts: datetime
    quote: str
    what: str
    verb: str
    owner_name: str = ""


def _words(text: str) -> str:
    return " ".join(w for w in re.findall(r"[a-z0-9'-]+", text.casefold()) if w not in _EN_STOP)


def _named(who: str, names: frozenset[str] | None) -> bool:
    return names is None or who.casefold() in names


def _en(body: str, names: frozenset[str] | None, *, opens: bool = True) -> tuple[str, str, str] | None:
    """``opens``: the words open the message (a subjectless "booked the venue" later in it may be someone
    else's deed: "Support replied …, then sent the same thing again")."""
    if _EN_NOT.search(body):
        return None
    if (m := _EN_DOER.match(body)) and _named(m.group("who"), names) and not _EN_NOBODY.match(m.group("who")):
        rest = re.split(r"\b(?:to|for)\s+(?:you|him|her|them|everyone|the\s+group)\b", m.group("rest"), maxsplit=1)[0]
        return _words(rest), m.group("verb").casefold(), m.group("who")
    for pattern in (_EN_PERFECT, _EN_BARE, _EN_DONE_WITH, _EN_WHERE_ONLY, *((_EN_NO_SUBJECT,) if opens else ())):
        if m := pattern.match(body):
            rest = re.split(r"\b(?:to|for)\s+(?:you|him|her|them|everyone|the\s+group)\b", m.group("rest"), maxsplit=1)[0]
            return _words(rest), m.group("verb").casefold(), ""
    if m := _EN_HANDOVER.match(body):
        return _words(m.group("rest")), "sent", ""
    for pattern in (_EN_STATE, _EN_HEADLINE):
        if (m := pattern.match(body)) and not _EN_NOBODY.match(m.group("what").strip()):
            if names is not None and m.group("what").casefold() in names:
                return None  # "Kim posted" without an object: whose promise, which one — not guessed
            verb = m.group("verb").casefold()
            # "raw is in the dropbox": where it went names the promise too ("dropbox it tonight")
            where = verb.split()[-1] if verb.startswith(("in ", "on ")) else ""
            return " ".join(filter(None, (_words(m.group("what")), where))), verb, ""
    if (m := _EN_STATE.match(body)) and m.group("what").strip().casefold() in ("it", "that", "this") \
            and re.fullmatch(_EN_STATES, m.group("verb"), _I):
        return "", m.group("verb").casefold(), ""  # "it's sent", "that's done" (not "it's settled": agreed)
    return None


def _zh(body: str, names: frozenset[str] | None) -> tuple[str, str, str] | None:
    if not re.search(r"[\u4e00-\u9fff]", body) or _ZH_THIRD.match(body) or _ZH_NOT.search(body) or len(body) > 40:
        return None
    who = ""
    if m := _ZH_AGENT.match(body):
        if _named(m.group("who"), names):
            who, body = m.group("who"), body[len(m.group("who")) :]  # "张伟已经把钥匙还了": 张伟's promise
        elif "把" in m.group():
            return None  # "小王把快递寄了": someone the rules cannot place did it
    if m := _ZH_DONE.search(body):
        what = re.sub(r"^我们?|已经|刚才?|刚刚|把|了|好|完|给你|给他|给她|[，,。！!]", "", body[: m.start()] + body[m.end() :])
        return what, re.sub(r"[好完掉了]|过去|出去|上去|上|给.*$", "", m.group()), who
    obj = ""
    if m := _ZH_ALREADY.search(body):
        obj = m.group("obj") or ""  # "已经把车位谈好了": the thing done is inside
        start, verb = m.start(), re.sub(r"[好完掉齐清]|过去|出去|回来|上去|进去|上|给.*$", "", m.group("verb"))
    elif m := _ZH_RESULT.search(body):
        start = max(0, m.start() - (2 if body[max(0, m.start() - 2) : m.start()] in _ZH_TWO_CHAR_VERBS else 1))
        verb = body[start : m.start()] or m.group()
        if verb == "把" or not verb.strip():
            return None
    else:
        return None
    what = re.sub(r"已经|刚才?|刚刚|把|[，,。！!]|我们?(?=已经|刚|$)", "", _ZH_LEAD.sub("", body[:start])) + obj
    if not what or not _ZH_DOING.match(verb):
        return None  # "我回来了", "我想好了": no thing done, and no promise-kept verb of its own
    return what, verb, who


def takes_on(text: str) -> bool:
    """Does the message take something on ("水管我来修，搞定", "I'll send it later")?"""
    return any(is_commitment(core(piece), hedged=False) for clause in split_clauses(text)
               for piece in _PIECES.split(clause.text) if piece)


_YES_FIRST = re.compile(r"^(?:yep|yup|yes|yeah|ya|ok(?:ay)?|sure|aye)\b[\s,!.]*(?=\S)", re.IGNORECASE)


def done_reports(turns: Sequence[Utterance], names: Iterable[str] | None = ()) -> list[DoneReport]:
    """Every report of a promise kept in ``turns`` (at most one per message: its first). ``names``:
    the participants' names, so a report that starts with one is about that person's promise; None
    reads any leading name as a doer (to learn whether a name needs looking up at all)."""
    known = None if names is None else frozenset(n.casefold() for n in names if n)
    out = []
    for turn in turns:
        text = normalize(turn.text)[:2000]
        clauses = split_clauses(text)
        for n, clause in enumerate(clauses):
            if clause.question:
                continue  # "PR merged?", "纪要发了吗": asks, reports nothing
            found = None
            pieces = _PIECES.split(clause.text)
            for i, piece in enumerate(pieces):
                # ("yep sent, check paypal": the yes that opens it is no thing sent)
                body = _YES_FIRST.sub("", _TRAILING.sub("", core(piece)).strip())
                if body and (found := _en(body, known, opens=n == i == 0) or _zh(body, known)) is not None:
                    break
            if found is not None:
                # a promise said with it ("水管我来修，搞定") is no report; one said after it is another matter
                # ("分摊表发了📊 每人60新币，周日中午前转给胖虎")
                said = " ".join([*(c.text for c in clauses[:n]), *pieces[: i + 1]])
                if not takes_on(said):
                    out.append(DoneReport(turn.message_id, turn.author_id, turn.author_name, turn.ts,
                                          clean(clause.text), *found))
                break
    return out
