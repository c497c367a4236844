"""The members and communities of the moderation service as people name them: names, not ids.

``resolve_member`` turns a typed name or id into a user id (latest or any earlier name, case and width
folded), refusing an unknown one with the closest (``difflib``) and a shared one as ambiguous.
``member_directory`` lists members with what Heyan holds and how their promises stand. ``check_tenant``
refuses a community Heyan holds nothing for, so a typo is an error, never a list of zeros.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.actors import Actor, Ambiguous, InvalidRequest, NotFound
from bot.moderation.base import ModerationBase
from bot.text.names import NameBook
from memory.models import Fact, FactStatus, Kind, Scope

__all__ = ["Member", "People", "fold", "suggest"]

#: Most suggestions a refusal names.
SUGGESTIONS = 3
#: Longest name or id a lookup reads.
MAX_LOOKUP = 100


def fold(text: str) -> str:
    """What a name lookup compares: NFKC (full-width letters as ASCII), case folded, spaces squashed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def suggest(wanted: str, choices: Iterable[str], n: int = SUGGESTIONS) -> list[str]:
    """The ``choices`` closest to ``wanted`` (best first), those that contain it first."""
    key = fold(wanted)
    pool = list(dict.fromkeys(c for c in choices if c))
    folded = {fold(c): c for c in pool}
    near = [folded[c] for c in difflib.get_close_matches(key, list(folded), n=n, cutoff=0.5)]
    inside = [c for f, c in folded.items() if key and (key in f or f in key) and c not in near]
    return [*inside, *near][:n]


@dataclass(frozen=True, slots=True)
class Member:
    """One member of a community as the console lists them."""

    user: str
    #: The name they used last; ``aliases`` every other name they went by.
    name: str
    aliases: tuple[str, ...]
    #: Records about or from them.
    records: int
    #: Their own commitments, by how they stand now.
    open_commitments: int
    overdue: int
    #: When they last said something Heyan kept.
    last_seen: datetime | None

    @property
    def label(self) -> str:
        """"Bob (2001)" — a name with its id, for a choice between two people."""
        return f"{self.name} ({self.user})" if self.name != self.user else self.user


def _directory(facts: Sequence[Fact], now: datetime) -> list[Member]:
    book = NameBook.of(facts)
    aliases = book.aliases()
    held: dict[str, list[Fact]] = {}
    for f in facts:
        for user in f.users:
            held.setdefault(user, []).append(f)
    out = []
    for user, mine in held.items():
        owned = [f for f in mine if f.kind is Kind.COMMITMENT and f.subject == user]
        statuses = [f.status_at(now) for f in owned]
        said = [s.ts for f in mine for s in f.sources if s.author_id == user]
        out.append(Member(
            user=user, name=book.name(user), aliases=tuple(a for a in aliases.get(user, ()) if a != book.name(user)),
            records=len(mine), open_commitments=sum(1 for s in statuses if s in (FactStatus.ACTIVE, FactStatus.DISPUTED)),
            overdue=sum(1 for s in statuses if s is FactStatus.OVERDUE), last_seen=max(said, default=None)))
    return sorted(out, key=lambda m: (fold(m.name), m.user))


class People(ModerationBase):
    """Members by name, and communities that exist."""

    async def member_directory(self, actor: Actor, query: str = "") -> list[Member]:
        """Everyone the community's records are about or from, by name (moderators only); with
        ``query``, those whose name, an earlier name or id contains it."""
        await self._enter(actor)
        self._require(actor, "list the community's members", "查看社区成员")
        members = await self._members(actor.tenant)
        key = fold(query[:MAX_LOOKUP])
        if not key:
            return members
        return [m for m in members if any(key in fold(n) for n in (m.name, *m.aliases, m.user))]

    async def _members(self, tenant: str) -> list[Member]:
        facts = await self.memory.list_facts(Scope(tenant=tenant))
        return _directory(facts, self.memory.clock())

    async def resolve_member(self, actor: Actor, text: str) -> str:
        """The user id ``text`` names in the actor's community: an id, or a name (latest or earlier).
        NotFound naming the closest members when nobody matches; Ambiguous when a name is two people's.
        Moderators only (a refusal names other members)."""
        await self._enter(actor)
        self._require(actor, "look members up", "查找成员")
        return await self.member_of(actor.tenant, text)

    async def member_of(self, tenant: str, text: str) -> str:
        """``resolve_member`` without the rate limit (for a surface that already counted the call)."""
        wanted = " ".join(text.split())[:MAX_LOOKUP]
        if not wanted:
            raise InvalidRequest("name a member (their name or user id)", "请指定成员（名字或用户 id）")
        members = await self._members(tenant)
        if any(m.user == wanted for m in members):
            return wanted
        key = fold(wanted)
        named = [m for m in members if key in (fold(n) for n in (m.name, *m.aliases))]
        if len(named) == 1:
            return named[0].user
        if named:
            who = ", ".join(m.label for m in named)
            raise Ambiguous(f"{len(named)} members are called {wanted!r}: {who}; give the user id",
                            f"有 {len(named)} 位成员叫“{wanted}”：{who}；请给出用户 id")
        if await self._holds_traces(tenant, wanted):
            return wanted  # erased, or only in summaries and the audit trail: still a member's page
        close = suggest(wanted, [n for m in members for n in (m.name, *m.aliases, m.user)])
        labels = list(dict.fromkeys(next(m.label for m in members if c in (m.name, *m.aliases, m.user))
                                    for c in close))
        hint = f"; did you mean {' or '.join(labels)}?" if labels else "; the member directory lists everyone"
        hint_zh = f"；你是不是要找 {' 或 '.join(labels)}？" if labels else "；成员名录里有所有人"
        raise NotFound(f"no member named {wanted!r} in this community{hint}",
                       f"这个社区里没有叫“{wanted}”的成员{hint_zh}")

    async def _holds_traces(self, tenant: str, user: str) -> bool:
        scope = Scope(tenant=tenant, user=user)
        return bool(await self.memory.store.count("summaries", scope)
                    or await self.audit.entries(tenant, user=user, limit=1))

    async def check_tenant(self, tenant: str) -> str:
        """``tenant`` when Heyan holds anything for it (records, summaries or settings); NotFound naming
        the closest known communities otherwise."""
        known = await self.tenant_ids()
        if tenant in known:
            return tenant
        close = suggest(tenant, known)
        listed = ", ".join(known[:10]) or "none yet"
        hint = f"did you mean {' or '.join(close)}?" if close else f"known: {listed}"
        raise NotFound(f"Heyan holds nothing for the community {tenant!r}; {hint}",
                       f"和言没有社区 {tenant!r} 的任何记录；" + (f"你是不是要找 {' 或 '.join(close)}？" if close
                                                               else f"已知的社区：{listed}"))

    async def tenant_ids(self) -> list[str]:
        """Every tenant Heyan holds memories, summaries or settings for, sorted. Not filtered by an
        actor: the surface intersects it with what its caller moderates."""
        found = set(await self.memory.store.tenants("facts")) | set(await self.memory.store.tenants("summaries"))
        return sorted(found | set(await self.tenants.tenants()))
