"""Common ground through the moderation service: draft statements, let each party endorse privately,
post and remember what every party endorsed.

``common_ground_draft`` (moderators and parties) keeps two or three statements (``bot.agreements.common_ground``)
and posts only a prompt to look privately; ``common_ground_endorse`` replaces a party's choice, and a
statement every party endorsed is posted once and stored as a ``consensus`` record citing its sources.
Stored by ``bot.agreements.ground_store`` (statements sealed).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.actors import Actor, InvalidRequest, NotFound, PermissionDenied
from bot.agreements.common_ground import Statement, StatementWriter, checked, draft, sides_of
from bot.agreements.ground_store import GroundStore
from bot.delivery.outbox import Post, PostKind
from bot.moderation.base import ModerationBase
from bot.privacy.audit import SYSTEM
from bot.text.lang import session_lang
from bot.text.names import NameBook
from bot.text.richtext import Mention, RichText, Span
from memory.models import Confidence, Fact, Kind, Lang, Scope, Source, Visibility, utcnow
from memory.ports import RecordFilter

__all__ = ["GROUND_ACTION", "CommonGround", "GroundView"]

log = logging.getLogger(__name__)

#: ``Post.ref["action"]`` of the prompt: platforms add a button that shows the statements privately.
GROUND_ACTION = "common-ground"


@dataclass(frozen=True, slots=True)
class GroundView:
    """A round of statements: who is asked, what ``user`` endorsed, which were posted (endorsed by all)."""

    round_id: str
    session: str
    lang: Lang
    statements: tuple[Statement, ...]
    participants: dict[str, str]
    user: str = ""
    endorsed: tuple[str, ...] = ()
    posted: tuple[str, ...] = ()
    source: str = "offline"

    def as_dict(self) -> dict[str, Any]:
        return {"round": self.round_id, "session": self.session, "lang": self.lang, "source": self.source,
                "statements": [s.as_dict() for s in self.statements],
                "participants": [{"user": u, "name": n} for u, n in self.participants.items()],
                "user": self.user, "endorsed": list(self.endorsed), "posted": list(self.posted)}


class CommonGround(ModerationBase):
    """Statements of common ground: draft, view, endorse."""

    @property
    def ground(self) -> GroundStore:
        store: GroundStore | None = getattr(self, "_ground", None)
        if store is None:
            store = GroundStore(self.redis, cipher=self.sessions.cipher)
            self._ground = store
        return store

    async def _load_round(self, tenant: str, session: str) -> tuple[dict[str, Any], dict[str, list[str]], set[str]]:
        found = await self.ground.load(tenant, session)
        if found is None:
            raise NotFound("no statements of common ground were drafted here; draft them first",
                           "这里还没有起草共同点陈述；请先起草")
        return found.data, found.votes, found.posted

    def _view(self, session: str, data: dict[str, Any], user: str, votes: dict[str, list[str]],
              posted: set[str]) -> GroundView:
        statements = tuple(Statement(s["id"], s["text"], tuple(s["sources"])) for s in data["statements"])
        return GroundView(round_id=data["round"], session=session, lang="zh" if data.get("lang") == "zh" else "en",
                          statements=statements, participants=dict(data["participants"]), user=user,
                          endorsed=tuple(votes.get(user, ())), posted=tuple(s.id for s in statements if s.id in posted),
                          source=str(data.get("source") or "offline"))

    async def common_ground_draft(self, actor: Actor, session: str, *, now: datetime | None = None) -> GroundView:
        """Draft the statements and ask each party, privately, which they endorse."""
        await self._enter(actor)
        now = now or utcnow()
        scope = Scope(tenant=actor.tenant, session=session)
        facts = await self.memory.list_facts(scope, RecordFilter(alive_at=now))
        info = await self.sessions.get(actor.tenant, session)
        sides, agreed = sides_of(facts)
        participants = {s.user: s.name for s in sides}
        book = NameBook.of(facts)
        for member in (info.members if info else ()):
            if member != (info.opened_by if info else None) and not member.startswith("operator:"):
                participants.setdefault(member, book.name(member))
        if not (actor.is_moderator or actor.user_id in participants or (info and actor.user_id in info.members)):
            raise PermissionDenied("only moderators and the people in this dispute can ask for common ground",
                                   "只有管理员和争议当事人可以发起共同点")
        lang = session_lang([f.value for f in facts]) if facts else actor.lang
        if len(sides) < 2:
            said = "、".join(s.name for s in sides) if lang == "zh" else ", ".join(s.name for s in sides)
            raise InvalidRequest(
                "common ground needs what at least two sides want or feel, and Heyan holds that for "
                + (said + " only" if sides else "nobody yet") + "; let each side say what they need first",
                "共同点需要至少两方各自的诉求或感受，目前只记录到" + (said or "（无人）") + "；请先让各方说说自己的需要")
        statements, source = await self._statements(sides, agreed, lang)
        round_id = f"{int(now.timestamp())}"
        data = {"round": round_id, "lang": lang, "source": source, "drafted_by": actor.user_id,
                "drafted_at": now.isoformat(), "participants": participants}
        secret = {"statements": [s.as_dict() for s in statements]}
        await self.ground.save(actor.tenant, session, data, secret["statements"])
        await self._log(actor, "ground.draft", session, users=list(participants),
                        after={"round": round_id, "source": source,
                               "sources": sorted({i for s in statements for i in s.sources})})
        await self.outbox.append(Post(
            id=f"ground:{actor.tenant}:{session}:{round_id}", tenant=actor.tenant, session=session,
            body=_prompt(participants, len(statements), lang), kind=PostKind.NOTICE, lang=lang,
            ref={"action": GROUND_ACTION, "round": round_id, "session": session}))
        return self._view(session, {**data, **secret}, actor.user_id, {}, set())

    async def _statements(self, sides: Sequence[Any], agreed: Sequence[Fact], lang: Lang) -> tuple[list[Statement],
                                                                                                    str]:
        writer = getattr(self.provider, "primary", self.provider)
        if isinstance(writer, StatementWriter):
            lines = []
            for side in sides:
                wants = "; ".join(d.value for d in side.demands) or "-"
                feels = "; ".join(e.value for e in side.emotions) or "-"
                lines.append(f"{side.name}: wants {wants}; feels {feels}")
            try:
                written = checked(await writer.common_ground(lines, [a.value for a in agreed], lang), sides, agreed)
            except Exception as exc:  # the model failed: the offline statements are used (logged by type)
                log.warning("common ground: the model failed (%s); using the offline statements", type(exc).__name__)
                written = []
            if len(written) >= 2:
                return written, "llm"
            log.info("common ground: %d of the model's statements stood on the facts; using the offline ones",
                     len(written))
        return draft(sides, agreed, lang), "offline"

    async def common_ground_view(self, actor: Actor, session: str) -> GroundView:
        """The statements as the party sees them (with what they endorsed so far)."""
        await self._enter(actor)
        data, votes, posted = await self._load_round(actor.tenant, session)
        if actor.user_id not in data["participants"] and not actor.is_moderator:
            raise PermissionDenied("only the people in this dispute are asked about common ground",
                                   "只有争议当事人会被询问共同点")
        return self._view(session, data, actor.user_id, votes, posted)

    async def common_ground_endorse(self, actor: Actor, session: str, statement_ids: Sequence[str],
                                    round_id: str | None = None) -> GroundView:
        """The party endorses these statements (replacing their earlier choice); statements every party
        endorsed are posted and remembered."""
        await self._enter(actor)
        data, votes, posted = await self._load_round(actor.tenant, session)
        if actor.user_id not in data["participants"]:
            raise PermissionDenied("only the people in this dispute endorse statements, each for themself",
                                   "只有争议当事人可以认同陈述，而且只能代表自己")
        if round_id and round_id != data["round"]:
            raise InvalidRequest("those statements were replaced by newer ones; look at the latest",
                                 "这些陈述已被新的取代；请查看最新的")
        known = [s["id"] for s in data["statements"]]
        chosen: list[str] = []
        for ref in statement_ids:
            ref = ref.strip().lower()
            if ref.isdigit() and len(ref) <= 2:  # a number as listed
                match = [known[int(ref) - 1]] if 1 <= int(ref) <= len(known) else []
            else:  # an id, or at least four of its characters
                match = [sid for sid in known if len(ref) >= 4 and sid.startswith(ref)]
            if len(match) != 1:
                raise InvalidRequest(f"no single statement {ref!r}: give its number (1–{len(known)}) or id",
                                     f"没有唯一对应 {ref!r} 的陈述：请给出编号（1–{len(known)}）或 id")
            chosen.append(match[0])
        chosen = list(dict.fromkeys(chosen))
        await self.ground.endorse(actor.tenant, session, actor.user_id, chosen)
        votes[actor.user_id] = chosen
        await self._log(actor, "ground.endorse", session, users=[actor.user_id],
                        after={"round": data["round"], "endorsed": chosen})
        view = self._view(session, data, actor.user_id, votes, posted)
        for statement in view.statements:
            everyone = all(statement.id in votes.get(u, ()) for u in view.participants)
            if everyone and await self.ground.claim_post(actor.tenant, session, statement.id):
                await self._agreed_statement(actor, view, statement)
                posted.add(statement.id)
        return self._view(session, data, actor.user_id, votes, posted)

    async def _agreed_statement(self, actor: Actor, view: GroundView, statement: Statement) -> None:
        tenant, session = actor.tenant, view.session
        zh = view.lang == "zh"
        body = RichText.of(("各方都认同这句话：" if zh else "Everyone here endorses this statement: ")
                           + f"“{statement.text}”")
        await self.outbox.append(Post(id=f"ground-agreed:{tenant}:{session}:{view.round_id}:{statement.id}",
                                      tenant=tenant, session=session, body=body, kind=PostKind.NOTICE, lang=view.lang,
                                      ref={"round": view.round_id}))
        cited = await self.memory.get_many(Scope(tenant=tenant), list(statement.sources))
        info = await self.sessions.get(tenant, session)
        label = "共同点" if zh else "common ground"
        record = Fact(
            tenant=tenant, session=session, kind=Kind.CONSENSUS, subject=f"ground:{session}", subject_name=label,
            attribute=label, value=statement.text, asserted_by=SYSTEM, confidence=Confidence.HIGH, lang=view.lang,
            sources=tuple(f.sources[0] for f in cited if f.sources) or (
                Source(message_id=f"ground:{view.round_id}", author_id=SYSTEM, author_name="Heyan", ts=utcnow(),
                       quote=statement.text),),
            users=tuple(view.participants), slot=f"ground:{statement.id}",
            visibility=info.visibility if info is not None else Visibility.PUBLIC)
        result = await self.memory.remember([record])
        system = Actor(tenant=tenant, user_id=SYSTEM, name="Heyan", lang=view.lang, unlimited=True)
        await self._log(system, "ground.agreed", session, users=list(view.participants),
                        after={"statement": statement.id, "record": result.outcomes[0].fact.id if result.outcomes
                               else None})


def _prompt(participants: dict[str, str], count: int, lang: Lang) -> RichText:
    spans: list[Span] = []
    for i, (user, name) in enumerate(participants.items()):
        if i:
            spans.append("、" if lang == "zh" else ", ")
        spans.append(Mention(user, name))
    if lang == "zh":
        spans.append(f"：我根据各位说过的诉求和感受，起草了 {count} 句可能的共同点。请点下面的按钮私下查看，"
                     "选出你能认同的；只有每个人都认同的那句才会在这里公布。")
    else:
        spans.append(f": I drafted {count} statements of common ground from what each of you said you want and feel. "
                     "Press the button below to see them privately and pick the ones you can endorse; only a "
                     "statement everyone endorses is posted here.")
    return RichText.of(*spans)
