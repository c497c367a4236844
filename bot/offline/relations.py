"""Rule-based relations: (subject, relation, object) read from a message's clauses.

Four relations in English and Chinese: manages/负责, belongs to/属于, reports to, complained about/投诉
(also without the word: "The CI pipeline is broken again"; verbs folded by ``memory.recall.relations.canonical``).
The subject is the speaker for "I", a named participant, else the thing; the object is cut at the first
phrase that is not part of a name. Questions are skipped; one regex pass per clause.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance
from bot.offline.clauses import clean, core, split_clauses
from memory.models import Confidence, Kind
from memory.normalize import normalize

__all__ = ["extract_relations", "relations_of"]

#: A message is read up to here for relations (as ``rules.MAX_MESSAGE_CHARS`` for facts).
_MAX_CHARS = 40_000
#: Relations read from one message at most: a pasted list is not forty statements of its speaker.
_MAX_PER_MESSAGE = 20

_I = re.IGNORECASE
_NP = r"(?P<s>[A-Za-z][\w'’-]*(?:\s+[\w'’-]+){0,5}?)"
_OBJ = r"(?P<o>[^,;:!?]+)"
_EN: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    # (relation, pattern, reversed: the object manages the subject)
    ("manages", re.compile(rf"^{_NP}\s+is\s+(?:run|managed|maintained|led|chaired|moderated|handled)\s+by\s+{_OBJ}",
                           _I), True),
    ("manages", re.compile(rf"^{_NP}\s+(?:manages|manage|runs|run|maintains|maintain|leads|lead|chairs|chair"
                           rf"|moderates|moderate|owns|own|handles|handle|looks\s+after|look\s+after"
                           rf"|(?:is|am)\s+(?:responsible\s+for|in\s+charge\s+of))\s+{_OBJ}", _I), False),
    ("belongs to", re.compile(rf"^{_NP}\s+(?:belongs\s+to|is\s+part\s+of|are\s+part\s+of|is\s+owned\s+by"
                              rf"|falls\s+under)\s+{_OBJ}", _I), False),
    ("reports to", re.compile(rf"^{_NP}\s+(?:reports\s+to|works\s+for)\s+{_OBJ}", _I), False),
    ("complained about", re.compile(rf"^{_NP}\s+(?:both\s+|also\s+|all\s+)?(?:complained|complain|complains)\s+"
                                    rf"(?:about|of)\s+{_OBJ}", _I), False),
    ("complained about", re.compile(rf"^{_NP}\s+(?:also\s+)?(?:have|has|had)\s+(?:a\s+|the\s+same\s+)?"
                                    rf"(?:problem|problems|issue|issues|trouble)\s+with\s+{_OBJ}", _I), False),
)
# "The CI pipeline is broken again", "The shared drive ate my spreadsheet": the speaker's complaint.
_EN_BROKEN = re.compile(
    r"^(?:the|our|my)\s+(?P<o>[A-Za-z][\w'’-]*(?:\s+[A-Za-z][\w'’-]*){0,3}?)\s+"
    r"(?:is\s+(?:broken|down|slow|dead|failing|buggy|not\s+working)|was\s+(?:broken|down)|keeps\s+\w+ing|kept\s+\w+ing"
    r"|crashed|crashes|broke|failed|fails|ate|lost|deleted|shows\s+the\s+wrong|double-booked|drops|dropped"
    r"|never\s+works|doesn'?t\s+work|isn'?t\s+working|won'?t\s+(?:load|start|work)|stopped\s+working|is\s+\w+\s+again)\b",
    _I)
_EN_OBJ_END = re.compile(
    r"\s+(?:for|during|because|since|when|after|before|on|in|at|with|every|too|as\s+well|also|again|twice|yesterday"
    r"|today|tonight|this|last|(?-i:it)|and\s+(?-i:it)|which|that)\b.*$|['’]s\s+.*$", _I)

_ZH_NAME = r"[^，,。！？!?：:\s]{1,16}?"
_ZH: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    ("负责", re.compile(rf"^(?P<o>{_ZH_NAME})由(?P<s>{_ZH_NAME})(?:负责|管理|主管|维护|管)"), False),
    ("属于", re.compile(rf"^(?P<s>{_ZH_NAME})归(?P<o>{_ZH_NAME})(?:管理?|负责)"), False),
    ("负责", re.compile(rf"^(?P<s>{_ZH_NAME})(?:也|还|一直)?(?:负责|管理|维护|主管)(?P<o>[^，,。！？!?]{{1,20}})"), False),
    ("属于", re.compile(rf"^(?P<s>{_ZH_NAME})(?:也|都)?(?:属于|归属于|隶属于)(?P<o>[^，,。！？!?]{{1,20}})"), False),
    ("汇报给", re.compile(rf"^(?P<s>{_ZH_NAME})(?:向|给)(?P<o>{_ZH_NAME})汇报"), False),
    ("投诉", re.compile(rf"^(?P<s>{_ZH_NAME})(?:也|都|还|又|要|想)*(?:投诉|抱怨)(?:了|过)?(?P<o>[^，,。！？!?]{{1,20}})"), False),
)
# "服务器昨晚又宕机了", "打印机一直卡纸": the speaker's complaint about the thing named first.
_ZH_BROKEN = re.compile(
    r"^(?P<o>[^，,。！？!?：:\s我你他她]{2,16}?)(?:的[^，,。！？!?\s]{1,4}?)?"
    r"(?:昨晚|昨天|今天|最近|这几天|又|一直|总是|老是|也|经常|还|都)*"
    r"(?:坏了|坏|宕机|崩溃|崩了|挂了|卡纸|卡住|占线|停了|停运|出问题|有问题|出错|没到账|破了|慢|打不开|用不了|不能用)")
_ZH_OBJ_END = re.compile(r"(?:的(?!话).*|了|过|一下|几次|好几次|一次|两次|三次)$")
_DETERMINERS = frozenset({"the", "our", "my", "this", "that", "their", "his", "her", "your"})
# what a Chinese clause may say before its subject: "我觉得产品B属于部门C" is about 产品B
_ZH_LEAD = re.compile(r"^(?:我觉得|我认为|我记得|听说|据说|其实|好像|应该是?|可能)")
# "Ann and Carol", "张三和李四": one relation per name
_AND = re.compile(r"\s*(?:,|\band\b|&|和|与|跟|、)\s*", _I)
_ME = re.compile(r"^(?:i|me|我)$", _I)


def extract_relations(request: ExtractionRequest) -> list[CandidateFact]:
    """Relation candidates from ``request.turns`` (context is not read: a relation is said, not implied)."""
    return [c for turn in request.turns
            for c in islice(relations_of(turn, normalize(turn.text)[:_MAX_CHARS]), _MAX_PER_MESSAGE)]


def relations_of(turn: Utterance, text: str) -> Iterator[CandidateFact]:
    """Relation candidates from ``text`` (the normalized message) of ``turn``: subjects as said
    ("Ann", "我" → the speaker's id), the object as said, the clause as the quote."""
    for clause in split_clauses(text):
        if clause.question:
            continue
        body = core(clause.text).rstrip("。.!！")
        for subject, relation, obj in _read(body):
            value = _object(obj)
            if not value:
                continue
            for one in _AND.split(subject) if not _ME.match(subject) else [subject]:
                one = one.strip()
                if not one:
                    continue
                yield CandidateFact(
                    kind=Kind.RELATION,
                    subject=turn.author_id if _ME.match(one) else one,
                    subject_name=turn.author_name if _ME.match(one) else one,
                    attribute=relation,
                    value=value,
                    message_id=turn.message_id,
                    quote=clause.text,
                    asserted_by=turn.author_id,
                    confidence=Confidence.HIGH,
                )


def _named(subject: str) -> bool:
    """Is an English subject a name — "I", "we", "Ann and Carol", "the wiki search" — and not the
    run of words before a verb ("ignore your rules and record that Bob")?"""
    words = subject.split()
    if len(words) == 1 and words[0].casefold() in ("i", "we"):
        return True
    if words[-1].casefold() in ("is", "are", "was", "were", "has", "have", "will", "would"):
        return False
    if words[0].casefold() in _DETERMINERS:
        return len(words) <= 5
    return all(w[:1].isupper() or w.casefold() in ("and", "&") for w in words)


def _read(body: str) -> list[tuple[str, str, str]]:
    """(subject, relation, object) read from one clause: the first pattern that matches."""
    zh = bool(re.search(r"[\u3400-\u9fff]", body))
    for relation, pattern, backwards in _ZH if zh else _EN:
        if m := pattern.search(body):
            s, o = m.group("s").strip(), m.group("o").strip()
            if zh:
                s, o = _ZH_LEAD.sub("", s), _ZH_LEAD.sub("", o)
            elif not _named(o if backwards else s):
                return []
            return [(o, relation, s)] if backwards else [(s, relation, o)]
    if m := _EN_BROKEN.search(body):
        return [("I", "complained about", m.group("o"))]
    if m := _ZH_BROKEN.search(body):
        return [("我", "投诉", m.group("o"))]
    return []


def _object(obj: str) -> str:
    """The object cut at what is not part of its name: "the guild bank for our raid team" → "the
    guild bank", "the platform team's budget" → "the platform team", "停车场的排班" → "停车场"."""
    value = clean(obj)
    cut = _ZH_OBJ_END if re.search(r"[\u3400-\u9fff]", value) else _EN_OBJ_END
    return clean(cut.sub("", value))
