"""Relations between people, things and groups: "张三 投诉 产品B", "Bob manages the Discord bot".

A relation is a ``Fact`` of kind ``relation`` (stored, sealed, erased and reviewed like any record):
subject and ``target`` are member ids or normalised names, ``attribute`` the ``canonical`` relation,
``users`` everyone it names, so erasing any of them removes it. ``relation_fact`` builds one and
``check`` rejects junk with a reason that quotes nobody. Recall finds them by keyed pseudonyms of the
names they mention (``memory.recall.hops``, ``query_entities``), never the names.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from memory.models import Fact, FactStatus, Kind, Lang, Source, Visibility
from memory.normalize import normalize

__all__ = [
    "COMPLAINED",
    "MAX_NAME_CHARS",
    "canonical",
    "check",
    "entity_name",
    "link",
    "mention_names",
    "query_entities",
    "relation_fact",
    "relation_slot",
    "retarget",
]

log = logging.getLogger(__name__)

#: An entity name longer than this is a sentence, not a name.
MAX_NAME_CHARS = 60
#: A relation longer than this (or of more than ``_MAX_RELATION_WORDS`` words) is not a relation.
_MAX_RELATION_CHARS = 32
_MAX_RELATION_WORDS = 4

#: Synonyms folded into one label per language, so "runs", "maintains" and "is responsible for"
#: are one relation to recall and to the answers.
_SYNONYMS: dict[str, str] = {
    **dict.fromkeys(("manages", "manage", "runs", "run", "maintains", "maintain", "leads", "lead", "chairs", "chair",
                     "moderates", "moderate", "owns", "own", "handles", "handle", "is responsible for",
                     "am responsible for", "is in charge of", "am in charge of", "looks after", "look after"),
                    "manages"),
    **dict.fromkeys(("belongs to", "belong to", "is part of", "are part of", "is owned by", "falls under",
                     "is under"), "belongs to"),
    **dict.fromkeys(("complained about", "complains about", "complain about", "has a problem with",
                     "have a problem with", "had a problem with", "reported a problem with", "complained"),
                    "complained about"),
    **dict.fromkeys(("reports to", "report to", "works for", "work for"), "reports to"),
    **dict.fromkeys(("负责", "管理", "维护", "主管", "管"), "负责"),
    **dict.fromkeys(("属于", "归属于", "隶属于", "归"), "属于"),
    **dict.fromkeys(("投诉", "投诉了", "投诉过", "抱怨", "抱怨了"), "投诉"),
    **dict.fromkeys(("汇报给", "向…汇报", "听命于"), "汇报给"),
}
#: Relations that say someone had a problem with something ("who else had a similar problem?").
COMPLAINED = frozenset({"complained about", "投诉"})

_DETERMINER = re.compile(
    r"^(?:(?:the|a|an|our|my|your|their|his|her|its|this|that|these|those)\s+)+|^(?:这个|那个|我们的|我的|咱们的)", re.I)
_EDGES = " \t.,;:!?'\"()[]{}<>，。；：！？、“”‘’（）《》「」"
_PRONOUN_WORDS = ("i me you he him she her it they them we us this that these those someone something everyone "
                  "everything nobody nothing anyone anything 我 你 他 她 它 我们 你们 他们 她们 这 那 这个 那个 大家 有人 什么")
_PRONOUN = frozenset(_PRONOUN_WORDS.split())
_CJK = re.compile(r"[\u3400-\u9fff]")
_JUNK = re.compile(r"https?://|www\.|[\x00-\x1f<>{}\[\]|@#$%^*=_\\]")
_EN_TOKEN = re.compile(r"[a-z0-9][a-z0-9'’-]*")
_CJK_RUN = re.compile(r"[\u3400-\u9fffa-z0-9]+")
#: Words a question's names neither start nor end with.
_STOP_WORDS = ("a an the and or of to in on at for with about what who whom whose which do does did we you i know "
               "else other had has have any anything similar problem problems issue issues is are was were tell me us")
_STOP = frozenset(_STOP_WORDS.split())
#: Bounds of ``query_entities``: longest n-gram (words), longest CJK name, most names per question.
_MAX_WORDS = 4
_MAX_CJK = 12
_MAX_NAMES = 600
#: A question is read up to here for names (a pasted page is not a question: bounded work).
_MAX_TEXT = 400


def canonical(relation: str) -> str:
    """The relation's label: synonyms folded ("runs" → "manages", "归" → "属于"), else as written
    (casefolded, whitespace collapsed)."""
    text = " ".join(normalize(relation).casefold().split()).strip(_EDGES)
    return _SYNONYMS.get(text, text)


def entity_name(text: str) -> str:
    """A name as relations match it: normalised, casefolded, without leading determiners ("the",
    "our", "这个") or edge punctuation; in Chinese without spaces ("产品 B" is "产品b")."""
    name = " ".join(normalize(text).casefold().split()).strip(_EDGES)
    name = _DETERMINER.sub("", name).strip(_EDGES)
    if _CJK.search(name):
        name = name.replace(" ", "")
    return name


def check(subject: str, relation: str, obj: str, quote: str, *, members: Iterable[str] = ()) -> str | None:
    """Why (subject, relation, object) is junk, or None when it may be stored. The reason names the
    rule that failed, never the words (they are a member's). ``members``: the user ids of the
    participants; a member is named by id, anything else must be named in ``quote``."""
    known = set(members)
    rel = canonical(relation)
    if not rel or len(rel) > _MAX_RELATION_CHARS or len(rel.split()) > _MAX_RELATION_WORDS:
        return "the relation is empty or not a short phrase"
    if _JUNK.search(rel) or any(ch.isdigit() for ch in rel):
        return "the relation holds markup, a link or digits"
    said = entity_name(quote)
    for role, value in (("subject", subject), ("object", obj)):
        if value in known:
            continue
        name = entity_name(value)
        if not name or len(name) > MAX_NAME_CHARS:
            return f"the {role} is empty or longer than {MAX_NAME_CHARS} characters"
        if name in _PRONOUN:
            return f"the {role} is a pronoun"
        if _JUNK.search(name):
            return f"the {role} holds markup or a link"
        if name not in said:
            return f"the {role} is not named in the quote"
    if subject == obj or (subject not in known and entity_name(subject) == entity_name(obj)):
        return "the subject and the object are the same"
    return None


def relation_slot(relation: str, target: str, asserted_by: str) -> str:
    """The consolidation slot: one record per (subject, relation, object) and speaker in a session.
    Per speaker, because two members saying the same relation are two statements (each erased with
    its speaker), not one record the second would dispute or be dropped into as a no-op."""
    key = f"{canonical(relation)}\x1f{target}\x1f{asserted_by}"
    return f"relation:{hashlib.blake2b(key.encode(), digest_size=8).hexdigest()}"


def retarget(fact: Fact, value: str) -> dict[str, str]:
    """The update a new ``value`` (a moderator's edit, a member's correction) makes to a relation:
    its ``target`` follows the words unless the object is a member. Empty for other records."""
    if fact.kind is not Kind.RELATION or fact.target in fact.users or not entity_name(value):
        return {}
    return {"target": entity_name(value)}


def mention_names(fact: Fact) -> list[str]:
    """The names a relation is found by (``entity_name`` form): its subject's and its object's, and
    for a member the name they went by. Member ids are found by themselves (``Fact.users``)."""
    names = [fact.subject if fact.subject not in fact.users else entity_name(fact.subject_name),
             fact.target if fact.target not in fact.users else entity_name(fact.value)]
    return [n for n in dict.fromkeys(names) if n]


def query_entities(text: str) -> list[str]:
    """Every name ``text`` may contain, in ``entity_name`` form: English runs of one to four words
    that neither start nor end with a function word, and the CJK substrings of two to twelve
    characters (Chinese has no word breaks; "关于产品B我们知道什么" holds "产品b"). Bounded."""
    body = normalize(text[:_MAX_TEXT]).casefold()
    out: list[str] = []
    for segment in re.split(r"[,.;:!?()\"，。；：！？（）、]+", body):
        words = _EN_TOKEN.findall(segment)
        for n in range(1, _MAX_WORDS + 1):
            for i in range(len(words) - n + 1):
                gram = words[i : i + n]
                if gram[0] not in _STOP and gram[-1] not in _STOP:
                    out.append(entity_name(" ".join(gram)))
    for run in _CJK_RUN.findall(body.replace(" ", "")):
        if not _CJK.search(run):
            continue
        run = run[:40]
        for size in range(2, min(_MAX_CJK, len(run)) + 1):
            out.extend(run[i : i + size] for i in range(len(run) - size + 1))
    return list(dict.fromkeys(n for n in out if n))[:_MAX_NAMES]


def relation_fact(
    *,
    tenant: str,
    session: str,
    subject: str,
    subject_name: str,
    relation: str,
    obj: str,
    target: str,
    source: Source,
    names: Mapping[str, str],
    lang: Lang,
    visibility: Visibility,
    now: datetime,
    life: timedelta | None,
) -> Fact | None:
    """The relation record, or None (logged, without its words) when ``check`` finds it junk.

    ``names``: participants, id → name. The subject and the object become member ids when they
    name a participant (by id or name), else normalised names; ``users`` holds the speaker, every
    member named and the source's author, so any of their erasures removes the record."""
    by_name = {entity_name(n): uid for uid, n in names.items() if n}
    subject = subject if subject in names else by_name.get(entity_name(subject), subject)
    target = target or obj
    target = target if target in names else by_name.get(entity_name(target), target)
    reason = check(subject, relation, target, source.quote, members=names)
    if reason is not None:
        log.warning("dropped a relation candidate from message %s: %s", source.message_id, reason)
        return None
    member_subject, member_target = subject in names, target in names
    users = tuple(dict.fromkeys(u for u in (source.author_id, subject if member_subject else "",
                                            target if member_target else "") if u))
    rel = canonical(relation)
    return Fact(
        tenant=tenant,
        session=session,
        kind=Kind.RELATION,
        subject=subject if member_subject else entity_name(subject),
        subject_name=normalize(names.get(subject, "") if member_subject else subject).strip(_EDGES),
        attribute=rel,
        value=normalize(names.get(target, obj) if member_target else obj).strip(_EDGES),
        target=target if member_target else entity_name(target),
        sources=(source,),
        asserted_by=source.author_id,
        status=FactStatus.ACTIVE,
        valid_from=source.ts,
        created_at=now,
        updated_at=now,
        expires_at=(source.ts + life) if life else None,
        lang=lang,
        users=users,
        visibility=visibility,
        slot=relation_slot(rel, target if member_target else entity_name(target), source.author_id),
    ).with_id()


def link(facts: Sequence[Fact]) -> list[Fact]:
    """``facts`` with each relation linked to the other records from its message (not flagged)."""
    by_message: dict[str, list[str]] = {}
    for fact in facts:
        if fact.kind is not Kind.RELATION and fact.status is not FactStatus.FLAGGED:
            for s in fact.sources[:1]:
                by_message.setdefault(s.message_id, []).append(fact.id)
    out: list[Fact] = []
    for fact in facts:
        if fact.kind is Kind.RELATION and fact.sources:
            linked = tuple(dict.fromkeys(by_message.get(fact.sources[0].message_id, ())))
            fact = fact.model_copy(update={"links": linked}) if linked else fact
        out.append(fact)
    return out
