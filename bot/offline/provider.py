"""``OfflineProvider``: the mediator provider that needs no model and no network.

It is the default when no LLM is configured and the engine's fallback when the LLM provider raises
``ProviderError``. Everything is deterministic, so the same conversation always yields the same facts,
queries, classification, reply and summary — which also makes it the reference in tests.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import OrderedDict
from collections.abc import Sequence

from bot.acts.reader import default_reader, thread_scores
from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance
from bot.llm.base import Classification, ReplyRequest
from bot.offline import lexicon as lx
from bot.offline.acts import derive
from bot.offline.answers import NO_RECORD, NO_RECORD_LEADS, answer, records_answer
from bot.offline.phrasing import mediate
from bot.offline.questions import Ask, Question, read_question
from bot.offline.relations import extract_relations
from bot.offline.rules import ATTRIBUTES, extract_rules, split_clauses
from bot.offline.smalltalk import small_talk
from bot.offline.templates import is_structured, parse_summary, render_summary
from bot.text.lang import detect_lang, turn_lang
from bot.text.names import NameBook
from memory.errors import EmbedderError
from memory.models import Kind, Lang, Summary

__all__ = ["OfflineProvider"]

log = logging.getLogger(__name__)

#: Queries beyond the turn itself that ``rewrite`` may add (the port allows three).
MAX_EXTRA_QUERIES = 3
#: Items kept per summary section: the latest ones, so a long dispute still fits a prompt.
MAX_SECTION_ITEMS = 6
#: Classification order when a turn shows several emotions: the strongest one drives the stage.
_EMOTION_RANK = ("angry", "hurt", "anxious", "upset")

# Chinese function characters dropped from keyword queries (jieba would be better, but costs ~1 s to load).
_ZH_FUNCTION = re.compile(r"[我你他她它们的了吗呢吧啊呀是在和就都也很会要把给被这那个么还没不有说]+")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]{2,}")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]+(?!['’])|\d+")
_SHOUT = re.compile(r"[!！]{2,}|\b[A-Z]{4,}\b")
_COMMITMENT_HINT = re.compile(r"承诺|答应|保证|会|deadline|promise|promised|will|by\b|due", re.IGNORECASE)


#: Summaries this process wrote, remembered with the messages they read, so that the next summary of
#: the session reads only what came since (``OfflineProvider.summarize``); the latest ones.
_SUMMARIES_KEPT = 1024


class OfflineProvider:
    """Rules, lexicons and templates behind the ``MediatorProvider`` port."""

    name = "offline"

    def __init__(self) -> None:
        #: (summary text, language) → the messages (id, text) read to write it, the latest ones
        self._read: OrderedDict[tuple[str, Lang], frozenset[tuple[str, str]]] = OrderedDict()

    async def extract(self, request: ExtractionRequest) -> list[CandidateFact]:
        """Candidate facts from the rules in ``bot.offline.rules``, read again with the dialogue acts of
        the thread (``bot.acts``: accepted requests and counter-offers, agreements with their proposal,
        conditions), and relations between people, things and groups from ``bot.offline.relations``."""
        facts = extract_rules(request)
        reader = default_reader()
        if reader is not None and request.turns:
            try:
                scores = await asyncio.to_thread(thread_scores, reader, [*request.context, *request.turns])
            except EmbedderError as exc:
                log.warning("dialogue acts unavailable for this batch (rules only): %s", exc)
            else:
                facts = derive(request, [a for a, _ in scores], facts, [p for _, p in scores])
        return [*facts, *extract_relations(request)]

    async def rewrite(self, turn: Utterance, window: Sequence[Utterance], lang: Lang) -> list[str]:
        """The turn itself plus up to three keyword-only variants for retrieval."""
        queries = [turn.text]
        keywords = _keywords(turn.text)
        extras: list[str] = []
        if keywords:
            extras.append(" ".join(keywords))
        # A short turn ("那草稿呢？") leans on the last thing someone else said.
        previous = next(
            (
                u
                for u in reversed(window)
                if u.author_id != turn.author_id and u.message_id != turn.message_id
            ),
            None,
        )
        asked = read_question(turn.text, turn.author_id, {})
        if asked is not None and asked.ask is Ask.SIMILAR and not asked.entity:
            # "who else had a similar problem?": the asker's own last words say which problem
            own = next((u for u in reversed(window) if u.author_id == turn.author_id
                        and u.message_id != turn.message_id and read_question(u.text, u.author_id, {}) is None), None)
            if own is not None:
                extras.append(" ".join(_keywords(own.text)[:8]))
        if previous is not None and len(keywords) <= 3:
            merged = list(dict.fromkeys([*keywords, *_keywords(previous.text)]))
            extras.append(" ".join(merged[:8]))
        if keywords and _COMMITMENT_HINT.search(turn.text):
            extras.append(("承诺 " if lang == "zh" else "commitment ") + " ".join(keywords))
        for extra in extras:
            if extra and extra not in queries and len(queries) <= MAX_EXTRA_QUERIES:
                queries.append(extra)
        return queries

    async def classify(self, turn: Utterance, window: Sequence[Utterance], lang: Lang) -> Classification:
        """Emotion from the lexicon (negations ignored) and intent from cue phrases."""
        text = turn.text.strip()
        found = lx.find_emotions(text)
        classes = {emotion.klass for emotion, _ in found}
        emotion = next((k for k in _EMOTION_RANK if k in classes), "calm")
        intensity = 0.0
        if emotion != "calm":
            intensity = min(1.0, 0.5 + 0.15 * (len(found) - 1) + (0.2 if _SHOUT.search(text) else 0.0))
        return Classification(emotion=emotion, intent=_intent(text, emotion), intensity=round(intensity, 2))

    async def reply(self, request: ReplyRequest) -> str:
        """A greeting or an out-of-scope question gets what Heyan can do (``smalltalk``); a question
        about the record its answer (``answers``); anything else a stage-appropriate mediation reply
        (``phrasing``) — in the asker's language, naming each person by their latest name."""
        lang = turn_lang(request.turn.text, default=request.lang)
        names = NameBook.of(request.records or [*request.facts, *request.open_commitments], [*request.window, request.turn],
                            request.participants)
        asker = request.turn.author_id
        question = request.question or read_question(request.turn.text, asker, names, compound=True)
        if question is not None and question.parts and not question.unclear:
            # a compound question: each of its questions answered in turn, from the same records
            said = [x for part in question.parts if (x := self._answer(part, request, names, lang))]
            # "I have no record" of one part only when no part has an answer
            held = [x for x in said if not x.startswith(NO_RECORD_LEADS)]
            return "\n".join(held or said[:1]) or NO_RECORD[lang]
        unanswered = None
        if question is not None and question.ask is Ask.RECORDS and not question.unclear:
            # words no intent knows: the records they find, else small talk, else that no record matches
            if (found := records_answer(question, request, names, lang)) is not None:
                return found
            question, unanswered = None, NO_RECORD[lang]
        if question is not None:
            return answer(question, request, names, lang)
        chat = small_talk(request.turn.text, names.name(asker, request.turn.author_name), names.names(), asker, lang)
        if chat is not None:  # "hi", "what's the weather?": what Heyan is for, not a mediation line
            return chat
        return unanswered or mediate(request, names, lang)

    @staticmethod
    def _answer(question: Question, request: ReplyRequest, names: NameBook, lang: Lang) -> str | None:
        if question.ask is Ask.RECORDS and not question.unclear:
            return records_answer(question, request, names, lang)
        return answer(question, request, names, lang)

    async def summarize(self, turns: Sequence[Utterance], previous: Summary | None, lang: Lang) -> str:
        """Issues (demands), agreements, open differences (refusals) and next steps (commitments).

        Items from ``previous`` are carried over when it is in this layout; new ones are appended and
        each section keeps its latest items. When ``previous`` is a summary this provider wrote, only
        the messages it had not read are read now, the earlier ones as their context: the rules then
        see each new message exactly as a reading of the whole window would (the same messages
        before it), and a message read before is neither read again with less of the thread before
        it nor brought back once its item has been trimmed. Anything else (another process's summary,
        one rolled back after an erasure, an edited message) is read in full.
        """
        sections = parse_summary(previous.text) if previous is not None else parse_summary("")
        if previous is not None and not is_structured(previous.text):
            # A summary the LLM wrote has its own layout: keep its gist rather than drop it.
            gist = " ".join(previous.text.split())[:200]
            sections["issues"].append(("此前：" if lang == "zh" else "Earlier: ") + gist)
        seen = self._read.get((previous.text, lang), frozenset()) if previous is not None else frozenset()
        # the messages read before: those at the start of the window that the previous summary read
        old = 0
        while old < len(turns) and (turns[old].message_id, turns[old].text) in seen:
            old += 1
        request = ExtractionRequest(tenant="offline", session="summary", turns=list(turns[old:]),
                                    context=list(turns[:old]), lang=lang)
        attr = ATTRIBUTES[lang]
        for fact in extract_rules(request):
            key, item = _summary_item(fact, attr, lang)
            if key and item not in sections[key]:
                sections[key].append(item)
        text = render_summary({k: v[-MAX_SECTION_ITEMS:] for k, v in sections.items()}, lang)
        self._read[(text, lang)] = frozenset((t.message_id, t.text) for t in turns)
        self._read.move_to_end((text, lang))
        while len(self._read) > _SUMMARIES_KEPT:
            self._read.popitem(last=False)
        return text


def _summary_item(fact: CandidateFact, attr: dict[str, str], lang: Lang) -> tuple[str | None, str]:
    name = fact.subject_name or fact.subject
    zh = lang == "zh"
    if fact.reported:
        return None, ""  # claims about others are not positions; they stay in the facts for review
    if fact.kind is Kind.DEMAND:
        return "issues", f"{name}希望：{fact.value}" if zh else f"{name} wants {fact.value}"
    if fact.kind is Kind.CONSENSUS and fact.attribute == attr["agrees"]:
        return "agreed", f"{name}同意：{fact.value}" if zh else f"{name} agreed to: {fact.value}"
    if fact.kind is Kind.CONSENSUS and fact.attribute == attr["refuses"]:
        return "differences", f"{name}不接受：{fact.value}" if zh else f"{name} does not accept: {fact.value}"
    if fact.kind is Kind.COMMITMENT:
        return "next", f"{name}：{fact.value}" if zh else f"{name}: {fact.value}"
    return None, ""


def _keywords(text: str) -> list[str]:
    """Content words of ``text``: CJK runs without function characters, English words without stopwords."""
    words: list[str] = []
    if detect_lang(text) == "zh" or _CJK_RUN.search(text):
        for run in _CJK_RUN.findall(text):
            words.extend(w for w in _ZH_FUNCTION.split(run) if len(w) >= 2)
    words.extend(w.lower() for w in _WORD.findall(text) if w.lower() not in lx.STOPWORDS_EN and len(w) > 2)
    return list(dict.fromkeys(words))


def _intent(text: str, emotion: str) -> str:
    """statement | complaint | demand | proposal | agreement | refusal | question | closing."""
    clauses = [c.text for c in split_clauses(text)] or [text]
    if any(lx.REFUSE.search(c) for c in clauses):
        return "refusal"
    if any(lx.AGREE.search(c) for c in clauses) or (len(clauses) == 1 and lx.ACK.match(clauses[0])):
        return "agreement"
    if lx.CLOSING.search(text):
        return "closing"
    if any(lx.PROPOSAL.search(c) for c in clauses):
        return "proposal"
    if any(lx.DEMAND.search(c) for c in clauses):
        return "demand"
    if any(lx.QUESTION.search(c) for c in clauses) or text.endswith(("?", "？")):
        return "question"
    if emotion != "calm" or lx.COMPLAINT.search(text):
        return "complaint"
    return "statement"
