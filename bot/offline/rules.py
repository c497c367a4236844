"""Rule-based fact extraction: promises, demands, agreements, refusals, feelings and claims.

Each message is split into sentences and clauses; a question asserts nothing; each other clause
yields at most one position plus one emotion; ``request.context`` only resolves what a short "OK,
deal" answers. The rules: ``extract_rules``; figures: docs/BENCHMARKS.md. Linear: clauses are capped
(``clauses.MAX_CLAUSE_CHARS``), a message is read up to ``MAX_MESSAGE_CHARS``.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Sequence
from datetime import datetime

from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance
from bot.guard.poisoning import attempt, fold
from bot.offline import lexicon as lx
from bot.offline.actions import is_commitment, is_standing, split_due, standing_promise, strip_head
from bot.offline.clauses import MAX_CLAUSE_CHARS, Clause, clean, core, split_clauses
from bot.offline.indirect import ZH_ACTION_VERBS
from bot.offline.proposals import DISMISSIVE, WEAK, Proposal, is_answer, proposal_of, shares_content, stated
from bot.offline.requests import (
    LEAD_NAME,
    Accepted,
    accepted_request,
    confirmed_report,
    own_time,
    request_before,
)
from bot.offline.sentence import (
    SARCASTIC_REFUSAL,
    asserted,
    completes,
    has_subject,
    inherit_due,
    joking,
    said_to_other,
    sarcastic,
    tagged,
    threatens,
    without_bare_answers,
)
from bot.offline.slots import slot_of
from bot.text.clock import aware
from bot.text.duetime import find_due_span, only_time, resolve_due
from bot.text.lang import detect_lang
from bot.text.zones import is_zone, speaker_zone, without_clock_words
from memory.models import Confidence, Kind, Lang
from memory.normalize import normalize

__all__ = ["ATTRIBUTES", "MAX_MESSAGE_CHARS", "Clause", "extract_rules", "split_clauses"]

log = logging.getLogger(__name__)

#: Attribute names per language. "claims" stays English: ``bot.extraction.candidates.to_facts`` uses it too.
ATTRIBUTES: dict[str, dict[str, str]] = {
    "en": {
        "wants": "wants",
        "agrees": "agrees to",
        "refuses": "refuses",
        "feels": "feels",
        "claims": "claims",
    },
    "zh": {"wants": "要求", "agrees": "同意", "refuses": "拒绝", "feels": "感受", "claims": "claims"},
}

#: Slack's limit for one message; Discord's is 4,000. Beyond it a message is read up to here.
MAX_MESSAGE_CHARS = 40_000

_OTHER_VERB = re.compile(
    r"\s*(?:说|答应|承诺|保证|同意|告诉|会|要|欠|从来|总是|又|没|把|已经|said|says|told|promised|agreed|will|'ll|would|owes"
    r"|never|always|didn't|keeps)",
    re.IGNORECASE,
)
_NOT_NAMES = frozenset(
    ["My", "The", "Our", "Your", "He", "She", "They", "You", "I", "We", "It", "This", "That", "There", "Here", "Today", "Yesterday", "Tomorrow", "Tonight", "Everyone", "Nobody", "Somebody", "Someone", "Everybody", "Honestly", "Sorry", "Yes", "No", "Well", "Then", "Also", "Maybe", "Please", "Thanks"]
)
#: Messages of others an answer may reach back to for what it answers ("deal" after two more lines).
_LOOK_BACK = 3
_DEMAND_LEAD = re.compile(r"^(?:to|that|you to|for|on)\s+", re.IGNORECASE)
_ANSWER_LEAD = re.compile(r"^(?:(?:to|with|that|i'm|i am|i'll|i will|i|going\s+to)\s+|for\s+me[\s,，]*)+", re.IGNORECASE)
# Words that only point back at the proposal: "I reject that proposal", "我不同意这个方案".
_ANAPHORA = re.compile(
    r"^(?:that|this|it|that\s+(?:proposal|plan|idea|offer|deal)|this\s+(?:proposal|plan|idea|offer|deal)"
    r"|这个?(?:方案|提议|建议|办法|要求)?|那个?(?:方案|提议|建议|办法|要求)?|这样|这样的?(?:安排|分配)"
    r"|(?:那就|就)?(?:这么|这样)(?:办|定|来|做|着)吧?|不用了?|不了|不要了?|不必了?)[\s.!。！]*$",
    re.IGNORECASE,
)


def extract_rules(request: ExtractionRequest) -> list[CandidateFact]:
    """Candidate facts from ``request.turns`` (context only answers "what was agreed to").

    The rules read each message and name normalized (``memory.normalize``): a zero-width space inside
    "pro\u200bmise" or a colour code before "I'll" must not hide a promise. Quotes are cut from the
    normalized text; ``to_facts`` finds the member's raw words for them.

    Rules (measured on ``tests/data/extraction_corpus.jsonl``): everything is owned by the speaker,
    and a clause about someone else is the speaker's reported claim (``event``/``claims``); an
    attempt to instruct the bot (``bot.guard.poisoning``) yields one flagged claim and nothing else; a
    promise keeps its whole action and deadline ("from now on": no due time); a hedged promise is
    dropped, other hedged facts kept with low confidence; a refusal is ``consensus``/``refuses``; a
    bare "Sure, will do." to a request put to the speaker is their promise of it, to the asker
    (``bot.offline.requests``); an emotion is high confidence only in the first person, and not
    recorded at all about a third person.
    """
    context, turns = [_normalized(u) for u in request.context], [_normalized(u) for u in request.turns]
    names = {u.author_name: u.author_id for u in (*context, *turns) if u.author_name}
    history: list[Utterance] = list(context)
    out: list[CandidateFact] = []
    for turn in turns:
        extractor = _Turn(turn, request, history, names)
        if (accepted := accepted_request(turn, history, names, extractor.tz_name)) is not None:
            out.append(extractor.takes_on(accepted))  # "Can you …?" — "Sure.": the speaker's promise
        elif (confirmed := confirmed_report(turn, history, shares_content)) is not None:
            out.append(extractor.confirms(*confirmed))  # "Jen said she'll fix it" — "yep, on it"
        else:
            facts = _idiom_binds(extractor.extract())
            if (asked := request_before(turn, history, names)) is not None:
                # "Marco, can you get the copy done?" — "sure, I'll have the copy by noon": made to the asker
                facts = [dataclasses.replace(f, recipient=asked[0])
                         if f.kind is Kind.COMMITMENT and not f.recipient and not f.reported
                         and shares_content(f.value, asked[1]) else f for f in facts]
            out.extend(_in_part(facts, extractor.attr))
        history.append(turn)
    return out


def _in_part(facts: list[CandidateFact], attr: dict[str, str]) -> list[CandidateFact]:
    """ "第一条第三条同意。第二条不同意": a yes and a no to the same proposal in one message is a refusal of part
    of it — no party to the whole; the refusal keeps the words of the yes (``extra["in_part"]``)."""
    refused = {f.extra.get("proposal_message_id") for f in facts if f.kind is Kind.CONSENSUS
               and f.attribute == attr["refuses"] and f.extra.get("proposal_message_id")}
    partly = [f for f in facts if f.kind is Kind.CONSENSUS and f.attribute == attr["agrees"]
              and f.extra.get("proposal_message_id") in refused]
    if not partly:
        return facts
    yes = partly[0].quote
    return [dataclasses.replace(f, extra=f.extra | {"in_part": yes})
            if f.kind is Kind.CONSENSUS and f.attribute == attr["refuses"] else f for f in facts if f not in partly]


def _idiom_binds(facts: list[CandidateFact]) -> list[CandidateFact]:
    """ "I'll mail you a wave artisan. consider it done, it goes out with Monday's post": a taking-on idiom about
    "it" binds the promise the message already made (and gives it its time), no second promise."""
    promises = [f for f in facts if f.kind is Kind.COMMITMENT and not f.reported]
    idioms = [f for f in promises if _IT_IDIOM.match(f.value)]
    made = [f for f in promises if f not in idioms]
    if not idioms or not made:
        return facts
    due = made[0].due_at or next((f.due_at for f in idioms if f.due_at is not None), None)
    return [dataclasses.replace(f, due_at=due) if f is made[0] else f for f in facts if f not in idioms]


#: A sentence after a promise that only tells when: "ETA Monday", "should be done by Friday", "预计周一到".
_TIME_AFTER = re.compile(r"^\W*(?:eta|expect\s+it|(?:it|that)\s*(?:'ll|’ll|\s+will|\s+should)\s+be\s+(?:done|ready|there|with\s+you)"
                         r"|should\s+be\s+(?:done|ready|there|with\s+you))\b|^\W*(?:预计|估计)", re.IGNORECASE)
#: What ``bot.offline.indirect`` makes of "consider it done", "on it", "leave it with me": no thing of its own.
_IT_IDIOM = re.compile(r"^take\s+care\s+of\s+it\b", re.IGNORECASE)


def _normalized(u: Utterance) -> Utterance:
    return dataclasses.replace(u, text=normalize(u.text), author_name=normalize(u.author_name))


class _Turn:
    """Extraction state for one message: its clauses, its speaker and what came before it."""

    def __init__(
        self, turn: Utterance, request: ExtractionRequest, history: Sequence[Utterance], names: dict[str, str]
    ) -> None:
        self.turn = turn
        self.text = turn.text
        if len(self.text) > MAX_MESSAGE_CHARS:
            log.info("message %s is %d characters; extraction reads the first %d",
                     turn.message_id, len(self.text), MAX_MESSAGE_CHARS)
            self.text = self.text[:MAX_MESSAGE_CHARS]
        self.lang: Lang = request.lang
        self.cleared = request.cleared  # confirmed ordinary by a moderator: not asked about again
        self.attr = ATTRIBUTES[self.lang]
        self.history = history
        self.names = names
        self.others = sorted((n for n, uid in names.items() if uid != turn.author_id), key=len, reverse=True)
        # wall-clock words mean the speaker's clock when the platform tells it, else the tenant's
        self.tz_name = _valid_zone(request.timezone)
        self.tz = speaker_zone(turn.zone, self.tz_name)
        self.ts = aware(turn.ts)

    def fact(
        self,
        kind: Kind,
        attribute: str,
        value: str,
        quote: str,
        *,
        confidence: Confidence = Confidence.HIGH,
        due_at: datetime | None = None,
        reported: bool = False,
        extra: dict[str, str] | None = None,
    ) -> CandidateFact:
        value = clean(value) or clean(quote)
        return CandidateFact(
            kind=kind,
            subject=self.turn.author_id,
            subject_name=self.turn.author_name,
            attribute=attribute,
            value=value,
            message_id=self.turn.message_id,
            quote=quote,
            asserted_by=self.turn.author_id,
            confidence=confidence,
            due_at=due_at,
            reported=reported,
            extra=extra or {},
            slot=slot_of(kind, attribute, value, quote, self.turn.message_id),
        )

    def extract(self) -> list[CandidateFact]:
        clauses = split_clauses(self.text)
        flagged = None if self.turn.message_id in self.cleared else attempt(
            self.text, speaker=self.turn.author_name, names=self.others, addressed=self.turn.addressed,
            heard=[(u.author_name, u.text) for u in self.history])
        injected = next((c for c in clauses if flagged is not None and flagged.evidence in fold(c.text)), None)
        if flagged is not None:
            quote = injected.text if injected is not None else clauses[0].text if clauses else self.text
            # An instruction to the bot is never stored as anyone's fact: only as what its author said.
            return [
                self.fact(
                    Kind.EVENT,
                    self.attr["claims"],
                    clean(self.text[:MAX_CLAUSE_CHARS]),
                    quote,
                    confidence=Confidence.LOW,
                    reported=True,
                    extra={"flag": "instruction"},
                )
            ]
        out: list[CandidateFact] = []
        alone = len(clauses) == 1
        by_sentence: dict[int, list[Clause]] = {}
        for clause in clauses:
            by_sentence.setdefault(clause.sentence, []).append(clause)
        when = ""  # "fine, Saturday morning then. I'll book the venue": a time said alone is the next promise's
        for n, sentence in enumerate(by_sentence.values(), 1):
            said = self.text[sentence[0].start : sentence[-1].end]
            if n < len(by_sentence) and not sentence[0].question and (own_time(clean(said)) or only_time(said)):
                when = said
                continue
            if n > 1 and not sentence[0].question and _TIME_AFTER.match(said) and (
                    due := resolve_due(said, self.ts, self.tz)) is not None and (
                    last := next((k for k in range(len(out) - 1, -1, -1) if out[k].kind is Kind.COMMITMENT), None)) \
                    is not None and out[last].due_at is None:
                out[last] = dataclasses.replace(out[last], due_at=due)  # "I'll get the plate engraved. ETA Monday"
                continue
            if when:
                found = self.sentence(sentence, alone=alone) if not sentence[0].question else []
                due = resolve_due(when, self.ts, self.tz)
                out.extend(dataclasses.replace(f, due_at=due) if f.kind is Kind.COMMITMENT and f.due_at is None
                           else f for f in found)
                when = ""
                if found or not sentence[0].question:
                    continue
            if sentence[0].question:
                # A question asserts nothing ("我答应了什么？", "will you pay?") — unless it asks the other
                # side to do something ("could you please …?"), refuses ("凭什么要我…？"), or only tags a
                # statement ("I'll pay Friday, OK?").
                if (kept := asserted(sentence)) is None:
                    out.extend(self.question(sentence))
                    continue
                sentence = kept
            facts = self.sentence(sentence, alone=alone)
            if n > 1 and (to := self.named_first(said)) is not None:
                # "…。三、阿珍，你垫的邮费，…还你，4月30号以前到账。": an item of a long message said to a member by name
                facts = [dataclasses.replace(f, recipient=to) if f.kind is Kind.COMMITMENT and not f.recipient
                         and not f.reported else f for f in facts]
            out.extend(facts)
        # "我那500块今天就全部还给我": a deed that hands something to the speaker is asked of someone else
        to_me = bool(lx.ZH_TO_ME.search(self.text)) and not _MY_DOING.search(self.text)  # "那60块退给我，今天就退"
        out = [f for f in out if not (f.kind is Kind.COMMITMENT and not f.reported and not _TO_LISTENER.search(f.value)
                                      and (to_me or lx.ZH_TO_ME.search(f.value)))]
        listener = self.spoken_to()
        if listener is not None and not _MY_DOING.search(self.text) and not _TO_LISTENER.search(self.text):
            # "墨白，57章撤回去重写，…，明天之前改好", "@橘子 那条先删了吧，…今晚就弄": said to a member by name, with
            # no deed of the speaker's own and nothing done for the listener, it is asked of them
            out = [f for f in out if f.kind is not Kind.COMMITMENT or f.reported]
        elif listener is not None:
            # "大刘，我这儿有个全新的防护头套，…明天一早寄给你", "Dana, if the board approves it, I'll …": made to
            # the one spoken to
            out = [dataclasses.replace(f, recipient=listener) if f.kind is Kind.COMMITMENT and not f.recipient
                   and not f.reported else f for f in out]
        return out

    def named_first(self, said: str) -> str | None:
        """The member a sentence opens by naming, after a list marker ("三、阿珍，…", "3) Teina: …"), their id."""
        return next((self.names[name] for name in self.others if name and self._opens_with(said, name)), None)

    @staticmethod
    def _opens_with(said: str, name: str) -> bool:
        """Does ``said`` open by naming ``name`` to someone, after a list marker ("3) Mele, …", "三、阿珍，…")?"""
        return re.match(rf"@?{re.escape(name)}\s*[,，:：]", _LIST_MARK.sub("", said.lstrip())) is not None

    def spoken_to(self) -> str | None:
        """The member the message opens by naming ("墨白，…", "@橘子 …", "Dana: …"), their id; else None."""
        head = self.text.lstrip()
        return next((self.names[name] for name in self.others
                     if name and re.match(rf"@?{re.escape(name)}[\s,，:：]", head)), None)

    def sentence(self, sentence: Sequence[Clause], *, alone: bool) -> list[CandidateFact]:
        """The facts of one asserted sentence, clause by clause (see ``bot.offline.sentence``)."""
        tags = [c for c in sentence if lx.PROMISE_TAG.match(core(c.text) or c.text)
                or (len(sentence) > 1 and lx.DELEGATE.match(core(c.text) or c.text))]
        rest = [c for c in sentence if c not in tags]
        target = tagged(rest, tags[0]) if tags else None
        if target is not None and _DENIES.match(core(target.text) or target.text):
            target = None  # "I didn't ask for this, I promise": an assurance about the past, no promise
        if target is not None and not lx.PROMISE_TAG.match(core(tags[0].text) or tags[0].text) \
                and said_to_other(core(target.text)):
            target = None  # "我来，你别管了": taking it on binds no clause said to the other
        found: list[list[CandidateFact]] = []
        for i, clause in enumerate(rest):
            quote = clause.text
            if clause is target:  # "From tonight on, no music after 11pm, I promise."
                start, end = min(clause.start, tags[0].start), max(clause.end, tags[0].end)
                quote = self.text[start:end]
            facts = self.clause(clause.text, quote, alone=alone, promised=clause is target)
            if joking(clause.text):  # "I'll name my firstborn after you 🤣": a joke, no promise
                facts = [f for f in facts if f.kind is not Kind.COMMITMENT]
            if i:
                facts = _with_earlier_action(facts, rest[i - 1].text, [c.text for c in rest[max(0, i - 3) : i - 1]])
            if i and threatens(rest[i - 1].text):
                facts = [f for f in facts if f.kind is not Kind.COMMITMENT]  # "你要是再这样，我就搬走": a threat
            if i and _has_commitment(found[-1]) and not _has_commitment(facts) \
                    and not any(f.due_at for f in found[-1]) and (lead := _LEAD_TIME.match(clause.text)) \
                    and find_due_span(lead.group("when")) and not _ASKS_LISTENER.search(clause.text[lead.end() :]):
                # "我先转你400，下周三之前，剩下的等有人接你的位子再说": the time ends the promise before it,
                # and what follows asks nothing of anyone
                end = clause.start + lead.end("when")
                span = self.text[rest[i - 1].start : end]
                found[-1] = [f for f in found[-1] if f.kind is not Kind.COMMITMENT] + [self.commitment(span, core(span), span)]
            if i and not has_subject(core(clause.text)):
                before = found[-1]
                if any(f.reported for f in before):
                    continue  # "他说，明天把钱还我": still his words
                if _has_commitment(before) and completes(core(clause.text)) and not _OTHERS_SAY.match(clause.text) \
                        and (_has_commitment(facts) or not facts):
                    # "我来打扫厨房，今天之内搞定": when, not a second promise — one promise over both clauses
                    span = self.text[rest[i - 1].start : clause.end]
                    merged = self.commitment(span, core(span), span)
                    found[-1] = [f for f in before if f.kind is not Kind.COMMITMENT] + [merged]
                    facts = [f for f in facts if f.kind is not Kind.COMMITMENT]
                facts = inherit_due(facts, rest[i - 1].text, clause.text, self.ts, self.tz)
            found.append(facts)
        out = [fact for facts in without_bare_answers(found) for fact in facts]
        text = self.text[sentence[0].start : sentence[-1].end]
        if not _has_commitment(out) and not any(c.question for c in sentence) and (found_to := self.arrival(text)) is not None:
            # "A cut of that, three minutes with music, goes to Pasang before his trek on the 2nd", "扫描件下周三前会到
            # 苗苗邮箱": a thing the speaker says will reach a member by a time, with no "I'll", is their promise to them
            said, to = found_to
            promise = self.commitment(said, core(said) or said, said)
            out.append(dataclasses.replace(promise, recipient=to))
        if sarcastic(text):  # "Yeah right, like I'm going to pay for that": no promise, maybe a refusal
            out = [f for f in out if f.kind is not Kind.COMMITMENT]
            if (m := SARCASTIC_REFUSAL.search(text)) and not any(f.kind is Kind.CONSENSUS for f in out):
                out.append(self.fact(Kind.CONSENSUS, self.attr["refuses"], m.group("what") or m.group("would"), text))
        return out

    def question(self, sentence: Sequence[Clause]) -> list[CandidateFact]:
        """What a question still says: a request is a demand, a rhetorical "凭什么要我…" a refusal."""
        text = self.text[sentence[0].start : sentence[-1].end]
        body = core(text)
        if lx.REFUSING_QUESTION.search(body):
            answered = self.answer_to(lx.REFUSING_QUESTION.split(body, maxsplit=1)[-1], strong=True)
            if answered is None:
                return []
            value, extra = answered
            return [self.fact(Kind.CONSENSUS, self.attr["refuses"], value, text, extra=extra)]
        if m := lx.REQUEST_QUESTION.search(body):
            value = re.sub(r"^(?:please\s+|kindly\s+)", "", body[m.end() :].strip(" ,，"), flags=re.IGNORECASE)
            value = value if m.group().endswith("把") is False else "把" + value
            return [self.fact(Kind.DEMAND, self.attr["wants"], value or body, text)]
        return []

    def clause(self, text: str, quote: str, *, alone: bool, promised: bool) -> list[CandidateFact]:
        text = text[:MAX_CLAUSE_CHARS]
        body = core(text)
        promised = promised or bool(lx.LEAD_PROMISE_TAG.match(body))  # "You have my word, …"
        hedged = bool(lx.HEDGE.search(text))
        confidence = Confidence.LOW if hedged else Confidence.HIGH
        out: list[CandidateFact] = []
        emotion = self.emotion(text, body, hedged, quote)
        if emotion is not None:
            out.append(emotion)
        about = self.about_other(body)
        if about is not None:
            extra = {"about": about} if about else {}
            out.append(self.fact(Kind.EVENT, self.attr["claims"], text, quote, reported=True, extra=extra))
            return out
        if lx.NEG_COMMIT.search(body) and not hedged:
            out.append(self.commitment(text, body, quote))
        elif m := lx.REFUSE.search(text):
            # a refusal answers a proposal or an offer; "forget it" before the speaker's own promise is
            # dropped with the other bare answers (``sentence.without_bare_answers``)
            dismissive = _dismissive(text)
            if (answered := self.answer_to(text[m.end() :], strong=True, weak=bool(dismissive))) is not None \
                    and not _unanswered_lets(m.group(), answered[1]):
                value, extra = answered
                out.append(self.fact(Kind.CONSENSUS, self.attr["refuses"], value, quote,
                                     confidence=confidence, extra=extra | dismissive))
        elif stated(self.text):
            pass  # "那我们就这么定：…": the agreement put to the others (``proposals``), not an answer
        elif (m := lx.AGREE.search(text)) or (alone and lx.ACK.match(text)):
            # a bare "OK"/"好的" answers a proposal, not an offer; "deal"/"一言为定" answers either
            strong = m is not None and not WEAK.match(m.group())
            if (answered := self.answer_to(text[m.end() :] if m else "", strong=strong, weak=not strong)) is not None \
                    and not (m is not None and _unanswered_lets(m.group(), answered[1])):
                value, extra = answered
                out.append(self.fact(Kind.CONSENSUS, self.attr["agrees"], value, quote,
                                     confidence=confidence, extra=extra))
        elif (is_commitment(body, hedged=hedged, promised=promised, due=_due_words(text))
              or (not hedged and standing_promise(text, body))) and not _only_feeling(body):
            out.append(self.commitment(text, body, quote))
        elif m := lx.DEMAND.search(body):
            value = body[m.end() :].strip(" ,，:：") if len(body) - m.end() >= 2 else body
            value = _DEMAND_LEAD.sub("", value)
            out.append(self.fact(Kind.DEMAND, self.attr["wants"], value, quote, confidence=confidence))
        elif (m := _YES_LEAD.match(text)) and (answered := self.answer_to(text[m.end() :], strong=False, weak=True)) \
                and "proposal_message_id" in answered[1]:
            # "do we agree the cap is $300?" — "yes, $300 max": a yes that restates the proposal agrees to it
            value, extra = answered
            out.append(self.fact(Kind.CONSENSUS, self.attr["agrees"], value, quote, confidence=confidence, extra=extra))
        return out

    def arrival(self, text: str) -> tuple[str, str] | None:
        """(the words, the member) of a thing that reaches a member by a time, said with no one else doing it
        ("… goes to Pasang before his trek on the 2nd", "… 下周三前会到苗苗邮箱", "11月20号到阿泰手上"); None otherwise."""
        # the one spoken to, by name, at the start of the sentence or of the message: "you" is them
        # (else the one whose line this answers: "And the €90 comes to me." — "By the 28th, … the €90 is in your account")
        # (after a list marker too: "3) Mele, for your radio show on the 30th: a continuous mix … lands in your inbox …")
        spoken_to = named = next((n for n in self.others for said in (text, self.text) if self._opens_with(said, n)), None)
        if spoken_to is None and not any(_NAME_FIRST.match(_LIST_MARK.sub("", said.lstrip())) for said in (text, self.text)) \
                and self.history and self.history[-1].author_id != self.turn.author_id:
            spoken_to = next((n for n in self.others if self.names[n] == self.history[-1].author_id), None)
        for name in (*self.others, *(["you"] if spoken_to else [])):
            who = re.escape(name)
            if name == "you":
                # (by way of something: "it goes in the post to you", "…goes with the next parcel to you")
                m = re.search(rf"{_ARRIVES_EN}(?:\s+(?:in|into|by|with|through)\s+(?:the\s+|a\s+|an\s+|our\s+|my\s+)?[\w-]+(?:\s+[\w-]+)?"
                              rf"(?=\s+(?:back\s+)?to\s+you\b))?\s+(?:back\s+)?(?:to|into|in|on|with)\s+(?:you\b|your\s+(?:account|inbox|mailbox|hands?|dms?"
                              r"|folder|drive|e-?mail|dropbox|box)\b)|\b(?:reach(?:es)?|will\s+reach)\s+you\b", text, re.IGNORECASE) \
                    or re.search(r"(?:会|能)?(?:送|寄|发|转|交)?(?:到|进)(?:你|您)(?:的)?(?:手上|手里|邮箱|账上|账户|信箱|那儿|那里|家)", text)
            else:
                m = re.search(rf"{_ARRIVES_EN}\s+(?:back\s+)?(?:to|into|in|on|with)\s+(?:the\s+)?{who}\b", text, re.IGNORECASE) \
                    or re.search(rf"(?:会|能)?(?:送|寄|发|转|交)?(?:到|进){who}(?:的)?(?:手上|手里|邮箱|账上|账户|信箱|那儿|那里|家)", text) \
                    or re.search(rf"(?:寄|送|发)到[^，,。；;]{{1,12}}[，,]\s*{who}收", text)  # "…寄到萨格勒布，苏苏收"
            if m is None:
                continue
            name = spoken_to if name == "you" and spoken_to else name
            said = LEAD_NAME.sub("", _thing_said(text, m), count=1) if spoken_to else _thing_said(text, m)
            if find_due_span(said) is None or lx.HEDGE.search(said) or _OTHERS_SAY.match(said) or _PAST_ARRIVAL.search(said):
                return None
            return said, self.names[name]
        # a thing put where the group finds it, by a time ("… a walk-through, blue line drawn in, goes up in #learning by the
        # 10th", "表格周五前放进群文件"): the speaker's promise, to the member it is for when one is named
        if (m := _GOES_UP.search(text)) is not None:
            said = _thing_said(text, m)
            if find_due_span(said) is None or lx.HEDGE.search(said) or _OTHERS_SAY.match(said) or _PAST_ARRIVAL.search(said) \
                    or said.casefold().startswith(("it ", "this ", "that ")) or self.about_other(core(said) or said):
                return None
            return said, (self.names[named] if named else next(
                (self.names[n] for n in self.others if re.search(rf"\bfor\s+{re.escape(n)}\b|给{re.escape(n)}", self.text)), ""))
        return None

    def about_other(self, body: str) -> str | None:
        """The other person a clause reports on ("" when unnamed), or None when it is the speaker's own."""
        for name in self.others:
            if body.startswith(name) and _OTHER_VERB.match(body, len(name)):
                return name
        if (m := _NAMED_DEED.match(body)) and m.group(1) not in _NOT_NAMES:
            return m.group(1)  # "Rook kicked me without a vote"
        m = lx.REPORTED.search(body)
        if m is None:
            return None
        head = m.group(0).split()[0] if m.group(0).split() else ""
        return head if head[:1].isupper() and head not in _NOT_NAMES else ""

    def emotion(self, text: str, body: str, hedged: bool, quote: str) -> CandidateFact | None:
        found = lx.find_emotions(text)
        if not found:
            return None
        first_person = bool(lx.FIRST_PERSON.search(text))
        if not first_person and (_THIRD_START.match(body) or self.about_other(body) is not None):
            return None  # "他很生气" is not the speaker's feeling
        emotion, where = found[0]
        if _OTHERS_FEELING.search(text[max(0, where.start() - 14) : where.start()]):
            return None  # "I can see why you're upset": the listener's feeling, not the speaker's
        confidence = Confidence.HIGH if first_person and not hedged else Confidence.LOW
        label = emotion.label(detect_lang(text, default=self.lang))
        return self.fact(Kind.EMOTION, self.attr["feels"], label, quote, confidence=confidence)

    def commitment(self, text: str, body: str, quote: str) -> CandidateFact:
        """The promise: the whole action (deadline words included, the clock they are on left out) and its due time."""
        action = _OTHERS_SAY_TAIL.sub("", without_clock_words(strip_head(body)))
        standing = is_standing(text)
        due_at = None if standing else resolve_due(text, self.ts, self.tz)
        zh = detect_lang(action, default=self.lang) == "zh"
        lead = text[: max(0, text.find(body))] if body and body in text else ""
        lead = clean(re.sub(r"^\W+|\W+$", "", lead)) if (find_due_span(lead) or lx.LEADING_TIME.search(lead)) else ""
        if lead and lead not in action:  # "Tomorrow at 3pm I'll call the landlord": keep the time words
            action = f"{lead}{action}" if zh else f"{action} {lead[:1].lower()}{lead[1:]}"
        span = find_due_span(action)
        if zh and span is not None and span[0] == 0:
            action = re.sub(r"^(?:在|于)", "", action)
        bare, _ = split_due(action)
        return self.fact(Kind.COMMITMENT, bare or action or clean(body) or clean(quote), action or clean(body), quote,
                         due_at=due_at)

    def takes_on(self, accepted: Accepted) -> CandidateFact:
        """The promise of an answer that takes a request on (``bot.offline.requests``): the request's
        action and due time, made to the one who asked."""
        bare, _ = split_due(accepted.action)
        fact = self.fact(Kind.COMMITMENT, bare or accepted.action, accepted.action, self.text[:MAX_CLAUSE_CHARS],
                         due_at=accepted.due_at,
                         extra={"request_message_id": accepted.message_id, "requested_by": accepted.requester,
                                "request_quote": accepted.quote})
        return dataclasses.replace(fact, recipient=accepted.requester)

    def confirms(self, action: str, report: Utterance) -> CandidateFact:
        """The speaker's promise another reported and the speaker confirmed: its due time read from the
        confirmation's words, else the report's (on the reporter's clock)."""
        due = resolve_due(action, self.ts, self.tz)
        if due is None:
            said = aware(report.ts)
            due = resolve_due(report.text, said, speaker_zone(report.zone, self.tz_name))
        bare, _ = split_due(action)
        return self.fact(Kind.COMMITMENT, bare or action, action, self.text[:MAX_CLAUSE_CHARS], due_at=due,
                         extra={"reported_in": report.message_id, "reported_by": report.author_id})

    def answer_to(self, remainder: str, *, strong: bool, weak: bool = False) -> tuple[str, dict[str, str]] | None:
        """What an agreement or refusal is about: its own words when it has some (citing the proposal it
        answers when they share words), else the proposal or offer of the latest other speaker —
        ``strong`` answers ("deal", "no") take an offer too, a bare "OK" only a proposal; a ``weak`` one
        ("OK", "好的", "forget it") answers only the message just before it. None when a bare answer
        answers nothing (``bot.offline.proposals``)."""
        said = clean(_THANKING.sub("", _COURTESY.sub("", remainder.strip(" ,，:："))))
        own = clean(_ANSWER_LEAD.sub("", said))
        pointer = any(_ANAPHORA.match(t) or lx.AGREE.match(t) or lx.ACK.match(t) or _ALL_OF_IT.match(t) for t in (said, own))
        others = _within_reach([u for u in reversed(self.history) if u.author_id != self.turn.author_id])
        if weak:  # the message just before — past a run of other answers to it ("同意" "没问题" "行")
            run = next((i for i, u in enumerate(others) if not is_answer(u.text)), len(others))
            others = others[: run + 1]
        proposals = [p for p in map(proposal_of, others) if p is not None]
        proposal = next((p for p in proposals if strong or p.kind == "proposal"), None)
        if not weak and (mine := self.own_vote(proposal)) is not None:
            # the proposer closing the vote ("其他人都同意，就先这么定"): what was agreed is the proposal
            return mine.value, mine.extra() | {"bare": "yes"}
        if not pointer and (len(own) >= 4 or (detect_lang(own) == "zh" and len(own) >= 2)):
            linked = proposal is not None and proposal.kind == "proposal" and shares_content(own, proposal.value)
            if not linked and proposal is not None and proposal.kind == "proposal" and _REASON.match(remainder):
                # "let's not, it'll get messy": the answer was whole before the comma, the rest is its reason
                return proposal.value, proposal.extra() | {"bare": "yes"}
            return own, (proposal.extra() if linked and proposal is not None else {})
        if proposal is not None:
            return proposal.value, proposal.extra() | {"bare": "yes"}
        if others or weak:
            return None  # an "OK" or "deal" that answers nothing said to the speaker
        # nothing before it to read (the first message we hold): an explicit stance is still the speaker's
        return ("" if pointer else own), {"bare": "yes"}


    def own_vote(self, theirs: Proposal | None) -> Proposal | None:
        """The speaker's own proposal that two or more others have voted on since, when it is more
        recent than ``theirs``: what the proposer's "everyone agreed, so be it" is about."""
        history = self.history[-_LOOK_BACK * 4 :]
        for k in range(len(history) - 1, -1, -1):
            u = history[k]
            if theirs is not None and u.message_id == theirs.message_id:
                return None
            if u.author_id != self.turn.author_id:
                continue
            mine = proposal_of(u)
            if mine is not None and mine.kind == "proposal":
                voters = {v.author_id for v in history[k + 1 :] if v.author_id != u.author_id and _is_vote(v)}
                return mine if len(voters) >= 2 else None
        return None


def _is_vote(u: Utterance) -> bool:
    """Does ``u`` only answer what was put before it ("同意", "附议👍", "no to the second part")?"""
    return proposal_of(u) is None and bool(lx.ACK.match(u.text) or lx.AGREE.search(u.text) or lx.REFUSE.search(u.text))


def _within_reach(others: list[Utterance]) -> list[Utterance]:
    """The latest messages of others an answer may answer: ``_LOOK_BACK`` of them, not counting the
    votes in between ("同意" "附议👍" "no to the second part"), which answer the same proposal and
    put nothing new — the fifth member's "赞成" still answers the proposal four votes up."""
    out: list[Utterance] = []
    counted = 0
    for u in others[: _LOOK_BACK * 4]:
        out.append(u)
        counted += not _is_vote(u)
        if counted >= _LOOK_BACK:
            break
    return out


# The speaker doing something ("我…", "I'll …", "we will …"), not receiving it ("退给我", "帮我").
#: A time that opens a clause, before a comma: "下周三之前，…", "by Friday, …".
_LEAD_TIME = re.compile(r"^\s*(?P<when>[^，,。;；]{1,14}?(?:之前|以前|前|之内|以内|内)|by\s+[^,;.]{1,20}?)\s*[，,]", re.IGNORECASE)
#: Words that ask or tell the listener to do something: "你把…", "你要…", "can you …".
_ASKS_LISTENER = re.compile(r"你(?:们)?(?:把|要|得|先|来|去|负责|记得)|\b(?:can|could|would|will)\s+you\b|\byou\s+(?:need|have)\s+to\b",
                            re.IGNORECASE)
_MY_DOING = re.compile(r"(?<![给还退转发帮找跟和对让叫要替])我(?![那的])|\b(?:i|we)\b(?!\s*(?:mean|guess|think)\b)", re.IGNORECASE)
# ("我那800欧今天就退给我" owns the money, does nothing.) Something done for the listener: "按原价卖你", "给你", "转您".
_TO_LISTENER = re.compile(r"(?:给|还|退|转|发|卖|赔|请|帮|送|寄|借)(?:你|您)|\byou\b", re.IGNORECASE)
# Thanks after a yes say nothing of what was agreed: "好，谢谢周老师", "没问题👍 谢谢你提醒", "ok, thanks Sam".
_THANKING = re.compile(r"[\s,，。.!！~👍🙏]*(?:谢谢|多谢|感谢|辛苦(?:了|啦)?)[^,，。.!！?？]{0,8}[\s,，。.!！~👍🙏]*$"
                       r"|[\s,，.!~]*\b(?:thanks|thank\s+you|thx|ty|cheers)\b[^,.!?]{0,20}[\s,.!~]*$", re.IGNORECASE)
# A yes to every part of what was put, with no words of its own: "三条都同意", "全部同意", "all three, agreed".
_ALL_OF_IT = re.compile(r"^(?:[一二三四五六七八九两\d]+(?:条|点|项|个)|全部|都|全都|所有的?)*都?(?:同意|赞成|没问题|可以)[。！!.~\s]*$"
                        r"|^(?:all\s+(?:of\s+(?:it|them)|three|four|five|\d+)|both(?:\s+parts)?|every\s+(?:part|point))"
                        r"[\s,]*(?:agreed|ok|fine|yes|good)?[.!\s]*$", re.IGNORECASE)
# A yes before words of the answer's own: "yes, $300 max", "对，一人一半".
_YES_LEAD = re.compile(r"^(?:yes|yep|yeah|yup|ok(?:ay)?|sure|right|对|是的?|好的?|行|可以)[\s,，]+(?=\S)", re.IGNORECASE)
# Words around an answer that say nothing of what was answered: "ok let's do that then", "…, sorry".
_COURTESY = re.compile(r"^(?:[\s,，]*\b(?:then|though|sorry|thanks|thank\s+you|tbh|lol|haha|honestly|too)\b)+[\s.!]*$",
                       re.IGNORECASE)
# What follows an answer after a break is a reason for it, not what was answered.
_REASON = re.compile(r"\s*[,，;；:：—–-]")
_THIRD_START = re.compile(r"^(?:他们?|她们?|对方|人家)|^(?:he|she|they|his|her|their)\b", re.IGNORECASE)
# Someone else as the subject just before an emotion word: their feeling, not the speaker's.
_OTHERS_FEELING = re.compile(
    r"(?:\b(?:you|he|she|they)(?:'re|’re|'s|’s|\s+(?:are|is|were|was|feel|feels|seem|seems|look|looks|got|get))"
    r"\s+(?:so\s+|very\s+|really\s+)?$)|(?:你|他|她|他们|她们)(?:很|好|太|那么|这么|真|有点)?$",
    re.IGNORECASE,
)
# A named person's deed, told by the speaker: "Rook kicked me", "Vex took the loot".
_NAMED_DEED = re.compile(
    r"(?-i:([A-Z][a-z]+))\s+(?:\w*[^e\W]ed|took|stole|broke|left|lied|ate|sold|gave|kept|sent|paid|bought|brought|made|spent|wrote|did|never|always|hasn'?t|didn'?t)\b"
)


def _unanswered_lets(answer: str, extra: dict[str, str]) -> bool:
    """ "Fine, let's …" / "let's not" that answers no proposal of someone else: the speaker's own
    suggestion (or a bare "let's not" to nothing), not an agreement or refusal."""
    return bool(re.search(r"\blet'?s\s*(?:not\b(?:\s+(?:do|go\s+with)\s+(?:that|this|it))?\W*)?$", answer, re.IGNORECASE)) \
        and "proposal_message_id" not in extra


def _dismissive(text: str) -> dict[str, str]:
    return {"dismissive": "yes"} if DISMISSIVE.match(clean(text)) else {}


def _due_words(text: str) -> str:
    """The clause's due-time words, which ``core`` may have taken off its front ("周日我送你…",
    "下周一之前我把押金退了"), else a leading time ``core`` took off ("以后停外面"); "" when it names none."""
    span = find_due_span(text)
    if span is not None:
        return text[span[0] : span[1]]
    body = core(text)
    lead = text[: text.find(body)] if body and body in text else ""
    m = lx.LEADING_TIME.search(lead)
    return m.group().strip(" ,，") if m else ""


#: The action an earlier promise named: "I promised Ann I'd call her back" → "call her back", "我说过会还你钱" → "还你钱".
_EARLIER_PROMISE = re.compile(r"\b(?:i'd|i’d|i\s+would|i'll|i’ll|i\s+will|promised\s+to|said\s+to)\s+(?P<en>.+)$"
                              r"|(?:说过|答应过?|保证过?)(?:你|他|她)?(?:会|要)?(?P<zh>.+)$", re.IGNORECASE)


#: A deed the speaker takes on with its object put first or named, in the clause before a bare verb:
#: "封面我重画吧", "直发费我先垫上", "我出400" (not "全出我不认", "我觉得…").
_ZH_OWN_DEED = re.compile(r"^[^，,。；;！？!?]{0,16}?我(?:先|来|再|就|也)?(?![不没别觉想是说知也怕看])[\u4e00-\u9fff][^，,。；;！？!?]{0,10}$")
#: The speaker's own deed, longer: "我在咱们站的微博发一条说明" (after an opener: "这样吧：").
_ZH_MY_DEED = re.compile(rf"^我(?:先|来|再|就|也|会|要)?[^，,。]{{0,12}}?(?:{ZH_ACTION_VERBS})[^，,。]{{0,12}}$")
_OPENER = re.compile(r"^[^：:]{0,6}[：:]\s*")
#: A sum said alone before the verb that moves it: "180，周日之前转你", "一半130，下周一转你".
_ZH_SUM = re.compile(rf"^(?:一半)?{lx.SUM}(?:就)?$")
#: A verb with no object of its own: "月底前给你们", "下周一前付掉", "下周一前转基地账户".
_ZH_BARE_DEED = re.compile(r"^[\u4e00-\u9fff]{1,6}$")


def _with_earlier_action(facts: list[CandidateFact], before: str, farther: Sequence[str] = ()) -> list[CandidateFact]:
    """A promise that only says when ("…, and I will tonight", "…，明天就还") takes its action from the
    earlier promise the clause before it names; a Chinese verb without its object ("封面我重画吧，月底前给你们",
    "我出400，下周一前转基地账户") takes the clause before it, which names the deed."""
    out = []
    for f in facts:
        bare, due = split_due(f.value)
        earlier = clean(before)
        if f.kind is Kind.COMMITMENT and (not bare or bare in ("就还", "就办", "就做", "就给")) and \
                (m := _EARLIER_PROMISE.search(earlier)):
            action = clean(m.group("en") or m.group("zh") or "")
            if action:
                value = f"{due}{action}" if m.group("zh") else f"{action} {due}".strip()
                f = dataclasses.replace(f, attribute=action, value=value)
        elif f.kind is Kind.COMMITMENT and _ZH_BARE_DEED.match(bare.split("，")[0]) \
                and (_ZH_OWN_DEED.match(earlier) or _ZH_SUM.match(sum_ := re.split(r"[，,]", earlier)[-1].strip())):
            deed = re.sub(r"吧$", "", earlier if _ZH_OWN_DEED.match(earlier) else sum_)
            f = dataclasses.replace(f, attribute=f"{deed}，{bare}", value=f"{deed}，{f.value}")
        elif f.kind is Kind.COMMITMENT and _ZH_BARE_DEED.match(bare.split("，")[0]) \
                and (deed := next((clean(_OPENER.sub("", c)) for c in reversed(re.split(r"[，,]", "，".join((*farther, before))))
                                   if _ZH_OWN_DEED.match(clean(c)) or _ZH_MY_DEED.match(clean(_OPENER.sub("", c)))), "")):
            # "我这儿有个全新的防护头套，豆豆戴正好，明天一早寄给你": the deed two clauses up
            f = dataclasses.replace(f, attribute=f"{deed}，{bare}", value=f"{deed}，{f.value}")
        elif f.kind is Kind.COMMITMENT and (be := _EN_BE.match(f.value)) is not None \
                and (thing := next((m.group("np") for c in reversed(re.split(r"\s*[,;]\s*", ", ".join((*farther, before))))
                                    if (m := _EN_THING.match(clean(c))) is not None), "")):
            # "a reference letter from me, saying what Arjun built, will be in his inbox by the 20th": the thing
            # said clauses before is what will be there
            f = dataclasses.replace(f, attribute=thing, value=f"make sure {thing} is {f.value[be.end():]}")
        out.append(f)
    return out


#: A promise of a state with its subject said clauses before: "be in his inbox by the 20th".
_EN_BE = re.compile(r"^be\s+(?=(?:in|on|with|at|ready|done|up|out|there|back)\b)", re.IGNORECASE)
#: A clause that is only a thing: "a reference letter from me as team lead", "and the new poster".
_EN_THING = re.compile(r"^(?:(?:and|so|also|plus)\s+)?(?P<np>(?:a|an|the|my|your|his|her|our|their|this|that)\s+"
                       r"(?![\w-]+ing\b)[^,;:.!?]{2,60})$", re.IGNORECASE)


def _thing_said(text: str, m: re.Match[str]) -> str:
    """The thing said to arrive, from the last break before ``m`` to the end of its clause: "A cut of that, …, goes to
    Pasang before his trek on the 2nd"."""
    start = max((b.end() for b in _THING_BREAK.finditer(text, 0, m.start())), default=0)
    end = next((b.start() for b in re.finditer(r"[;；。！？!?]|,\s*(?:so|and|but|because)\b|，(?:留着|因为|所以|不过)", text)
                if b.start() >= m.end()), len(text))
    return text[start:end].strip(" ,，")


#: A list item's marker: "3) ", "2. ", "- ", "•", "（二）", "②".
_LIST_MARK = re.compile(r"^(?:\d{1,2}[.)、]|[a-z][)]|[-•*·]|[（(][一二三四五六七八九十\d]{1,2}[)）]|[一二三四五六七八九十]{1,2}、"
                        r"|[\u2460-\u2473\u2474-\u2487\u2776-\u277f])\s*")
#: A sentence opening with a name said to someone: "Dana, …" (a member or not).
_NAME_FIRST = re.compile(r"@?[A-Z][\w.'-]{1,20}\s*[,，:：]|@?[\u4e00-\u9fff]{1,4}[，,：:]")
#: Reaching someone, said of a thing: "goes", "will be", "lands", "gets sent" (not "went", "arrived").
_ARRIVES_EN = (r"\b(?:goes|will\s+go|is\s+going|are\s+going|gets\s+sent|get\s+sent|will\s+be\s+sent|will\s+be|lands|land|will\s+land"
               r"|arrives|arrive|will\s+arrive|reaches|reach|will\s+reach|ships|will\s+ship|comes|will\s+come|is|are|['’]s)"
               # "it's posted to you before the 30th", "they are sent over to you"
               r"(?:\s+(?:posted|sent|mailed|shipped|delivered|couriered|handed|passed)(?=\s+(?:back\s+)?(?:out\s+|over\s+)?(?:to|into|in|on|with)\b))?"
               r"(?:\s+out|\s+over|\s+straight)?")
#: Where the words of a thing that arrives begin: after a sentence, a colon, an emoji or a numbered point ("二，").
_THING_BREAK = re.compile(r"[.!?。！？:：]\s*|[\U0001F300-\U0001FAFF\u2600-\u27BF]\s*|(?:^|[，,\s])[一二三四五六七八九十]、?[，,]\s*")
#: Put where the group finds it: "goes up in #learning", "lands in the shared drive", "放进群文件".
_GOES_UP = re.compile(r"\b(?:goes|go|will\s+go|gets\s+posted|will\s+be\s+posted|will\s+be|lands|land|will\s+land)\s+(?:up\s+)?(?:in|into|on|to)\s+"
                      r"(?:#[\w-]+|the\s+(?:[\w'’-]+['’]s\s+)?(?:shared\s+|group\s+|team\s+|club\s+|front\s+|home\s+|main\s+)?"
                      r"(?:drive|folder|channel|wiki|repo|doc|site|server|forum|page|website|blog|shop|store))\b"
                      r"|(?:放|传|上传|贴)(?:进|到)(?:群文件|群盘|群相册|群公告|网盘|共享文件夹)", re.IGNORECASE)
#: An arrival told as past or as someone else's doing ("went to", "已经到", "he sends"): no promise.
_PAST_ARRIVAL = re.compile(r"\b(?:went|arrived|landed|reached|shipped|was\s+sent|got\s+sent|has\s+gone|already)\b|已经|已|到了", re.IGNORECASE)
#: A denial of something past, which "I promise"/"我保证" only vouches for: "I didn't ask for this", "我真没删".
_DENIES = re.compile(r"^(?:i|we)\s+(?:really\s+|honestly\s+|truly\s+)?(?:didn'?t|did\s+not|never|wasn'?t|was\s+not|"
                     r"weren'?t|haven'?t|have\s+not|hadn'?t|had\s+nothing|had\s+no)\b"
                     r"|^我(?:真的?|确实|从来|根本|绝对)?(?:没|没有|不是|不知道)", re.IGNORECASE)
#: A clause telling what someone else says: "加拿大邮政说两天到", "快递说周三到", "the bank says 2 days".
_OTHERS_SAY = re.compile(r"^\s*(?![我你])[\u4e00-\u9fff]{1,8}(?:说|称|表示)|^\s*(?!i\b)[\w' ]{1,30}\s+(?:says?|said)\b", re.IGNORECASE)
#: The same at the end of a promise's words: "明天一早寄给你，加拿大邮政说两天到" → "明天一早寄给你".
_OTHERS_SAY_TAIL = re.compile(r"[，,]\s*(?![我你])[\u4e00-\u9fff]{1,8}(?:说|称|表示)[^，,。.]*[。.]?$"
                              r"|,\s*(?!i\b)(?:the\s+)?[\w']+(?:\s+[\w']+)?\s+(?:says?|said)\b[^,.]*\.?$", re.IGNORECASE)


def _has_commitment(facts: Sequence[CandidateFact]) -> bool:
    return any(f.kind is Kind.COMMITMENT for f in facts)


def _only_feeling(body: str) -> bool:
    """ "我会很生气" / "I'll be so angry": a feeling in the future tense, not a promise."""
    action = strip_head(body)
    return bool(lx.find_emotions(action)) and (len(action) <= 8 or action.lower().startswith(("be ", "feel ", "get ")))


def _valid_zone(name: str) -> str:
    """The tenant zone, or UTC when it is unknown (a bad setting must not stop extraction)."""
    return name if is_zone(name) else "UTC"
