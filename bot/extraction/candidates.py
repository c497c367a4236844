"""What extraction needs and returns, independent of who extracts (rules or an LLM).

``FactExtractor`` is the port an extractor implements (``bot.offline`` and ``bot.llm``); the job
turns its ``CandidateFact``s into ``Fact``s through ``to_facts``, which enforces the rules that must
hold whatever the extractor said: a quote must come from the message it cites, and a statement about
someone else is only ever the speaker's claim.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from pydantic import ValidationError

from bot.guard.poisoning import Attempt, attempt, fold
from bot.text.name_forms import Rank, forms_of, prefix_of
from memory.models import EMBED_TEXT_LIMIT, Confidence, Fact, FactStatus, Kind, Lang, Source, Visibility
from memory.normalize import locate, normalize
from memory.recall.relations import link, relation_fact

__all__ = [
    "DEFAULT_TTL",
    "CandidateFact",
    "ExtractionRequest",
    "FactExtractor",
    "Utterance",
    "default_slot",
    "to_facts",
]


@dataclass(frozen=True, slots=True)
class Utterance:
    """One message as extraction and prompts see it.

    ``zone`` is the speaker's own timezone when the platform tells it (an IANA name such as
    ``Asia/Shanghai``, or a fixed offset such as ``+08:00``): wall-clock words in the message ("明天下午
    三点", "by tonight") mean the speaker's clock, not the tenant's. ``addressed``: the message
    mentions the bot (platforms take the mention out of the text; ``bot.guard.poisoning`` needs it).
    ``reply_to``: the author id of the message it replies to, when the platform says (Discord) — whom
    its "you" means.
    """

    message_id: str
    author_id: str
    author_name: str
    text: str
    ts: datetime
    zone: str | None = None
    addressed: bool = False
    reply_to: str | None = None


@dataclass(frozen=True, slots=True)
class ExtractionRequest:
    """Messages to extract from (``turns``), with earlier ones as context only, in one language.

    ``timezone`` is the tenant's (for speakers whose own zone is unknown); ``visibility`` is the
    session's, and every fact extracted keeps it. ``cleared`` names messages a moderator confirmed
    as ordinary after they were flagged (``bot.moderation.review``): the poisoning detector is not
    asked about them again, so what they say is extracted like any other message.
    """

    tenant: str
    session: str
    turns: Sequence[Utterance]
    context: Sequence[Utterance] = ()
    lang: Lang = "en"
    timezone: str = "UTC"
    visibility: Visibility = Visibility.PUBLIC
    cleared: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class CandidateFact:
    """A fact an extractor proposes. ``subject`` is a user id when the subject is a participant.

    ``message_id`` names the source message and ``quote`` the words in it that carry the fact.
    ``asserted_by`` is the author of that message.
    """

    kind: Kind
    subject: str
    attribute: str
    value: str
    message_id: str
    quote: str
    asserted_by: str
    subject_name: str = ""
    confidence: Confidence = Confidence.HIGH
    due_at: datetime | None = None
    #: True when the speaker reports what someone else said or did ("he said he'd refund me").
    reported: bool = False
    extra: dict[str, str] = field(default_factory=dict)
    #: The consolidation slot (``Fact.slot``) the extractor computed from the quote; when empty,
    #: ``to_facts`` derives one from the value (``default_slot``).
    slot: str = ""
    #: Whom a commitment or demand is made to (a user id or name), when the extractor knows; else
    #: ``to_facts`` reads it from the thread (``_recipient``).
    recipient: str = ""
    #: A relation's object (kind ``relation``: subject, relation in ``attribute``, the object as
    #: said in ``value``): a user id or a name; empty means ``value``.
    target: str = ""
    #: What a commitment holds only on, as said ("if the landlord agrees"): ``Fact.condition``.
    condition: str = ""


class FactExtractor(Protocol):
    """Turns a batch of messages into candidate facts."""

    async def extract(self, request: ExtractionRequest) -> list[CandidateFact]: ...


# --- candidates to facts: the rules that hold whatever the extractor said ---------------------------

#: How long each kind is kept before the purge removes it (None: until erased). Emotions fade fast;
#: agreements and who people are matter for as long as the community keeps the bot.
DEFAULT_TTL: dict[Kind, timedelta | None] = {
    Kind.PERSON: None,
    Kind.EVENT: timedelta(days=365),
    Kind.DEMAND: timedelta(days=180),
    Kind.EMOTION: timedelta(hours=24),
    Kind.COMMITMENT: timedelta(days=365),
    Kind.CONSENSUS: None,
    Kind.RELATION: timedelta(days=365),
}

#: Kinds that bind the subject: only the subject can state them. Said by someone else, they are claims.
_FIRST_PERSON_KINDS = frozenset({Kind.COMMITMENT, Kind.DEMAND, Kind.EMOTION, Kind.CONSENSUS})

log = logging.getLogger(__name__)


def default_slot(kind: Kind, attribute: str, value: str) -> str:
    """A slot for a candidate whose extractor gave none: the attribute for a person or a commitment
    (a person has one value per attribute, a commitment is named by its action), else the value —
    so two different claims of one speaker never share a record whatever extracted them."""
    if kind in (Kind.PERSON, Kind.COMMITMENT):
        return ""  # the key falls back to the attribute
    family = "claims" if kind is Kind.EVENT and attribute == "claims" else kind.value
    digest = hashlib.blake2b(" ".join(value.casefold().split()).encode(), digest_size=8).hexdigest()
    return f"{family}:{digest}"


def _as_claim(slot: str) -> str:
    """The slot of a candidate turned into its speaker's claim: same statement, the claims family."""
    return "claims:" + slot.split(":", 1)[-1] if slot else ""


def to_facts(
    request: ExtractionRequest,
    candidates: Sequence[CandidateFact],
    *,
    now: datetime,
    lang: Lang | None = None,
    ttl: dict[Kind, timedelta | None] | None = None,
) -> list[Fact]:
    """Turn candidates into facts, enforcing what no extractor may decide.

    * the source message must be one of ``request.turns`` and the quote must occur in it;
    * ``asserted_by`` is always the author of the source message;
    * a commitment, demand, emotion or agreement whose subject is not the speaker — "he said he'd
      refund me", or an instruction to record that someone else agreed — becomes the speaker's claim
      (kind ``event``, attribute ``claims``, status ``unverified``), never the other person's fact;
    * a message that tries to instruct the bot or speaks as another member (``bot.guard.poisoning``)
      yields one ``flagged`` record of its speaker, never recalled, whatever was extracted from it;
    * a commitment or demand keeps whom it was made to (``Fact.recipient``: the participant named,
      else — when it says "you" / "你" — the one it answers), so "you" can be told as theirs;
    * a relation (kind ``relation``: "Bob manages the Discord bot") is checked for junk and built by
      ``memory.recall.relations.relation_fact``, and linked to the other records from its message;
    * an agreement or refusal that answers a proposal (``extra["proposal_message_id"]``) cites the
      proposal as its second source: the record names both parties, and the proposer's erasure
      removes it too.
    """
    ttl = DEFAULT_TTL if ttl is None else ttl
    by_id = {u.message_id: u for u in request.turns}
    thread = [*request.context, *request.turns]
    names = {u.author_id: u.author_name for u in thread}
    position = {u.message_id: i for i, u in enumerate(thread)}
    attempts: dict[str, Attempt | None] = {}
    facts: list[Fact] = []
    for cand in candidates:
        turn = by_id.get(cand.message_id)
        if turn is None:
            log.warning("dropped a %s candidate: message %s is not in the batch", cand.kind.value, cand.message_id)
            continue
        quote = locate(cand.quote, turn.text)  # the member's raw words, matched normalized
        if quote is None:
            log.warning("dropped a %s candidate: quote not found in message %s", cand.kind.value, cand.message_id)
            continue
        speaker = turn.author_id
        if turn.message_id not in attempts:
            found = None if turn.message_id in request.cleared else attempt(
                turn.text, speaker=turn.author_name, names=names.values(), addressed=turn.addressed,
                heard=[(u.author_name, u.text) for u in thread[: position[turn.message_id]]])
            attempts[turn.message_id] = found
            if found is not None:
                facts.append(_flagged(request, turn, found, quote, now, names))
        if attempts[turn.message_id] is not None:
            continue  # one flagged record per message: nothing it says becomes anyone's fact
        if cand.kind is Kind.RELATION:  # the speaker's word on how things relate: never a claim
            source = Source(message_id=turn.message_id, author_id=speaker, author_name=turn.author_name, ts=turn.ts,
                            quote=quote)
            rel = relation_fact(tenant=request.tenant, session=request.session, subject=cand.subject,
                                subject_name=cand.subject_name, relation=cand.attribute, obj=cand.value,
                                target=cand.target, source=source, names=names, lang=lang or request.lang,
                                visibility=request.visibility, now=now, life=ttl.get(Kind.RELATION))
            if rel is not None:
                facts.append(rel)
            continue
        kind, subject, subject_name = cand.kind, cand.subject, cand.subject_name
        about = cand.subject  # who the statement is about, kept in users when it becomes a claim
        attribute, value, status = cand.attribute, cand.value, FactStatus.ACTIVE
        slot = cand.slot or default_slot(kind, attribute, value)
        about_other = subject not in (speaker, turn.author_name)
        if cand.reported or (about_other and kind in _FIRST_PERSON_KINDS):
            other = subject_name or subject
            value = value if not about_other else f"{other}: {attribute} {value}"
            if kind is not Kind.EVENT or attribute != "claims":
                slot = _as_claim(cand.slot) or default_slot(Kind.EVENT, "claims", value)
            kind, subject, subject_name, attribute = Kind.EVENT, speaker, turn.author_name, "claims"
            status = FactStatus.UNVERIFIED
        elif about_other:
            status = FactStatus.UNVERIFIED
        elif subject == turn.author_name:
            subject = speaker
        source = Source(
            message_id=turn.message_id, author_id=speaker, author_name=turn.author_name, ts=turn.ts, quote=quote
        )
        sources: tuple[Source, ...] = (source,)
        recipient = ""
        if kind in (Kind.COMMITMENT, Kind.DEMAND):
            recipient = _recipient(cand.recipient, turn, quote, thread, names)
        elif kind is Kind.CONSENSUS and (proposal := _proposal_source(cand, thread)) is not None:
            sources = (source, proposal)  # "Bob proposed, Ann agreed": both parties, each with their words
        life = ttl.get(kind)
        users = tuple(dict.fromkeys(u for u in (speaker, subject, about, recipient, *(s.author_id for s in sources))
                                    if u in names))
        try:
            fact = Fact(
                tenant=request.tenant,
                session=request.session,
                kind=kind,
                subject=subject,
                # what is matched and shown is normalized; the source quote keeps the raw words
                subject_name=normalize(subject_name or (turn.author_name if subject == speaker else subject)),
                attribute=normalize(attribute),
                value=normalize(value),
                sources=sources,
                asserted_by=speaker,
                confidence=cand.confidence,
                status=status,
                valid_from=turn.ts,
                created_at=now,
                updated_at=now,
                due_at=cand.due_at if kind is Kind.COMMITMENT else None,
                expires_at=(turn.ts + life) if life else None,
                lang=lang or request.lang,
                users=users,
                visibility=request.visibility,
                slot=slot,
                recipient=recipient,
                recipient_name=normalize(names.get(recipient, "")),
                condition=normalize(cand.condition) if kind is Kind.COMMITMENT else "",
            )
        except ValidationError as exc:
            # one unusable candidate (an empty attribute, say) must not sink the batch's other facts
            problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_input=False))
            log.warning("dropped a %s candidate from message %s: %s", cand.kind.value, cand.message_id, problem)
            continue
        facts.append(fact.model_copy(update={"truncated": len(fact.embed_text()) > EMBED_TEXT_LIMIT}).with_id())
    return link(facts)


#: How soon after a message a "you" is read as its answer (see ``_recipient``).
_ANSWER_WITHIN = timedelta(minutes=15)
# "you", "your", "你", "您": a statement made to someone (the listener), whose name it does not say.
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|ya)\b|你(?!们)|您", re.IGNORECASE)


def _named(text: str, name: str) -> bool:
    """Does ``text`` name ``name``? Latin names as whole words, as written (so "Ann" is not in
    "Annual", nor "Will" in "I will"), CJK names as written."""
    if not name or len(name) < 2:
        return False
    if re.search(r"[\u3400-\u9fff]", name):
        return name in text
    # as written, capital included: a member called Will is not in "I will send it"
    return re.search(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", text) is not None


#: Whom a deed goes to, in its words: "发给许诺", "转给May", "send it to Elena", "give the keys to Bo".
_GIVEN_TO = re.compile(r"(?:发给|转给|交给|给|还给|寄给)(?P<who>[^\s，,。.!！?？的]{1,8})"
                       r"|\b(?:to|for)\s+(?P<en>[A-Z][\w'-]{1,20})\b")
#: A name the line opens by saying it to: "Rhi I'll send mine tonight", "Dana, I'll …".
_SAID_TO = re.compile(r"^\s*@?(?P<who>[A-Z][\w'-]{1,20}|[\u4e00-\u9fff]{2,4})\s*[,，]?\s+(?=(?:i'?ll|i’ll|i\s+will|i\s+can|we'?ll)\b)")
#: A line opened by calling someone, then a promise in the same sentence: "Marisol, if the account is short,
#: I'll cover the rest", "青禾，如果报价超过900，超出的部分我来出".
_ADDRESSED = re.compile(r"^\s*@?(?P<who>[^\W\d_][\w'-]{1,20}|[\u4e00-\u9fff]{2,4})\s*[,，:：]\s*"
                        r"(?=[^.!?。！？\n]*(?:\b(?:i'?ll|i’ll|i\s+will|i\s+can)\b|我))", re.IGNORECASE)
_CAPITALISED = re.compile(r"(?<![A-Za-z])[A-Z][a-z]{2,}(?![A-Za-z])")


def _named_loosely(text: str, name: str) -> bool:
    """Does ``text`` name ``name`` by a form the community uses for it (``bot.text.name_forms``: a part of
    the name, a Chinese name's short forms or pinyin) or by a capitalised word that begins its first
    name ("Rhi" for Rhiannon)?"""
    if any(_named(text, form) or (form.isascii() and _named(text, form.title()))
           for form, rank in forms_of(name) if rank <= Rank.PINYIN and len(form) >= 2):
        return True
    if (latin := re.fullmatch(r"[阿小老大](?P<rest>[A-Za-z][\w'-]+)", name)) and _named(text, latin.group("rest")):
        return True  # "阿May" goes by "May"
    return name.isascii() and any(prefix_of(m.group(), name) for m in _CAPITALISED.finditer(text))


def _recipient(given: str, turn: Utterance, quote: str, thread: Sequence[Utterance], names: dict[str, str]) -> str:
    """Whom the speaker made the promise or demand to: the extractor's answer when it names a
    participant; else, when the words say "you" and the platform says whom the message replies to,
    that author; else the one other participant the message names; else, when the words say "you",
    the author of the message just before it, written by someone else within ``_ANSWER_WITHIN``.
    "" when nobody is known (never the speaker)."""
    by_name = {n.casefold(): uid for uid, n in names.items() if n}
    # the one the words give it to ("发给许诺", "transfer the 340 to Elena") or say it to first ("Rhi I'll
    # send mine"): theirs, before whoever asked
    said = normalize(quote)
    for pattern in (_GIVEN_TO, _SAID_TO):
        if m := pattern.search(said):
            who = m.group("who") or m.groupdict().get("en") or ""
            found = [uid for uid, n in names.items() if uid != turn.author_id
                     and (_named(who, normalize(n)) or _named_loosely(who, normalize(n)))]
            if len(found) == 1:
                return found[0]
    if m := _ADDRESSED.match(normalize(turn.text)):
        found = [uid for uid, n in names.items() if uid != turn.author_id and _named(m.group("who"), normalize(n))]
        if len(found) == 1:
            return found[0]
    if given in names and given != turn.author_id:
        return given
    if given.casefold() in by_name and by_name[given.casefold()] != turn.author_id:
        return by_name[given.casefold()]
    if turn.reply_to and turn.reply_to != turn.author_id and _SECOND_PERSON.search(quote):
        return turn.reply_to  # a real reply says whom "you" means, however busy the thread
    text = normalize(turn.text)
    named = [uid for uid, n in names.items() if uid != turn.author_id and _named(text, normalize(n))]
    if not named:  # "Rhi I'll send mine tonight", "Chen, …": a short form only one of them goes by
        named = [uid for uid, n in names.items() if uid != turn.author_id and _named_loosely(text, normalize(n))]
    if len(named) == 1:
        return named[0]
    if named or not _SECOND_PERSON.search(quote):
        return ""
    # "you" answers the message just before it, when that came from someone else a moment earlier;
    # further back, in a busy thread, "you" could be anyone: better no recipient than a wrong one
    before = sorted((u for u in thread if u.ts <= turn.ts and u.message_id != turn.message_id), key=lambda u: u.ts)
    previous = before[-1] if before else None
    if previous is None or previous.author_id == turn.author_id or turn.ts - previous.ts > _ANSWER_WITHIN:
        return ""
    return previous.author_id


def _proposal_source(cand: CandidateFact, thread: Sequence[Utterance]) -> Source | None:
    """The proposal an agreement or refusal answers, as a source of the proposer's words."""
    message_id = cand.extra.get("proposal_message_id")
    said = next((u for u in thread if u.message_id == message_id), None) if message_id else None
    if said is None:
        return None
    quote = locate(cand.extra.get("proposal_quote", ""), said.text) or said.text[:_FLAGGED_VALUE_CHARS].strip()
    if not quote:
        return None
    return Source(message_id=said.message_id, author_id=said.author_id, author_name=said.author_name, ts=said.ts,
                  quote=quote)


#: How much of a flagged message its record keeps as value (the source quote keeps its words).
_FLAGGED_VALUE_CHARS = 300


def _flagged(
    request: ExtractionRequest, turn: Utterance, found: Attempt, quote: str, now: datetime, names: dict[str, str]
) -> Fact:
    """The one record a flagged message leaves: its speaker's, status ``flagged``, for moderators.

    Its attribute is the rule that fired (``Attempt.reason``: "impersonation: writes as Bob"); its
    source quote is the whole message as read, so a moderator sees it all and a confirm can extract
    it again after the window has let it go. Its users are the speaker and every participant
    (``names``: id → name) the message names, so their export shows it and their erasure removes it."""
    text = normalize(turn.text)
    folded = fold(text).casefold()
    named = [uid for uid, name in names.items() if (name and name.casefold() in folded) or uid.casefold() in folded]
    return Fact(
        tenant=request.tenant,
        session=request.session,
        kind=Kind.EVENT,
        subject=turn.author_id,
        subject_name=turn.author_name,
        attribute=found.reason,
        value=text[:_FLAGGED_VALUE_CHARS].strip() or found.evidence,
        sources=(Source(message_id=turn.message_id, author_id=turn.author_id, author_name=turn.author_name,
                        ts=turn.ts, quote=turn.text.strip() or quote),),
        asserted_by=turn.author_id,
        confidence=Confidence.LOW,
        status=FactStatus.FLAGGED,
        valid_from=turn.ts,
        created_at=now,
        updated_at=now,
        lang=request.lang,
        users=tuple(dict.fromkeys((turn.author_id, *named))),
        visibility=request.visibility,
        slot=f"flagged:{turn.message_id}",
    ).with_id()
