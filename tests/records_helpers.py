"""Records and actors shared by the tests of issue 22 (agreement card, common ground, digest, promise
record, escalation): facts written as the extraction would write them, with sources."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.actors import Actor, Capability
from memory.models import Confidence, Fact, FactStatus, Kind, Lang, Scope, Source

T = "discord:77"
S = "thread-9"
T0 = datetime(2026, 11, 20, 9, tzinfo=UTC)
MOD = Actor(tenant=T, user_id="u-mod", name="Mo", capabilities=frozenset({Capability.MODERATE}))
ANN = Actor(tenant=T, user_id="u-ann", name="Ann")
BOB = Actor(tenant=T, user_id="u-bob", name="Bob")
CAT = Actor(tenant=T, user_id="u-cat", name="Cat")
NAMES = {"u-ann": "Ann", "u-bob": "Bob", "u-cat": "Cat", "u-zhang": "张伟", "u-wang": "王芳"}

_counter = iter(range(1, 10_000))


def said(kind: Kind, who: str, attribute: str, value: str, *, minutes: int = 0, quote: str | None = None,
         status: FactStatus = FactStatus.ACTIVE, due: datetime | None = None, session: str = S, tenant: str = T,
         lang: Lang = "en", done_at: datetime | None = None, slot: str = "") -> Fact:
    """A record of ``who``'s own statement, said ``minutes`` after T0 in its own message."""
    n = next(_counter)
    at = T0 + timedelta(minutes=minutes)
    return Fact(tenant=tenant, session=session, kind=kind, subject=who, subject_name=NAMES.get(who, who),
                attribute=attribute, value=value, asserted_by=who, status=status, due_at=due, lang=lang,
                confidence=Confidence.HIGH, valid_from=at, users=(who,), done_at=done_at,
                slot=slot or f"{kind.value}:{n}",
                sources=(Source(message_id=f"m{n}", author_id=who, author_name=NAMES.get(who, who), ts=at,
                                quote=quote or value),))


def scope(session: str | None = S) -> Scope:
    return Scope(tenant=T, session=session)
