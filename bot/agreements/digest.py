"""The moderators' digest of one community: what needs a moderator's eye, as of a moment.

Overdue and soon-due commitments, disputes open over ``stale_days``, the review queue by status, and
the period's erasures and escalation alerts, every line naming its ids. ``build_digest`` is pure:
``bot.moderation.digests`` gathers the inputs and the cron job posts ``Digest.body()`` through the
outbox to ``digest_channel`` on ``digest_schedule``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from bot.offline.actions import promised_action
from bot.offline.perspective import for_everyone
from bot.privacy.audit import AuditEntry
from bot.sessions import SessionInfo
from bot.text.clock import show_time
from bot.text.richtext import RichText
from memory.models import OPEN_COMMITMENT, Fact, FactStatus, Lang

__all__ = ["ALERT_ACTION", "DIGEST_HOUR", "STALE_DAYS", "Digest", "DueCommitment", "StaleDispute", "build_digest",
           "period_of"]

#: Disputes open longer than this many days are listed.
STALE_DAYS = 7.0
#: The local hour (community timezone) a scheduled digest is posted from.
DIGEST_HOUR = 9
#: The audit action of an early escalation alert (``bot.disputes.escalation``).
ALERT_ACTION = "escalation.alert"

Period = Literal["daily", "weekly"]


def period_of(period: Period) -> timedelta:
    return timedelta(days=7) if period == "weekly" else timedelta(days=1)


@dataclass(frozen=True, slots=True)
class DueCommitment:
    """A commitment in the digest: owner → recipient (when known), the action and its condition."""

    fact_id: str
    owner: str
    owner_name: str
    action: str
    due_at: datetime
    session: str | None
    recipient: str = ""
    recipient_name: str = ""
    condition: str = ""

    @property
    def people(self) -> str:
        return f"{self.owner_name} → {self.recipient_name}" if self.recipient_name else self.owner_name

    def what(self, zh: bool) -> str:
        if not self.condition:
            return self.action
        return f"{self.action}（条件：{self.condition}）" if zh else f"{self.action} (if {self.condition})"

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.fact_id, "owner": self.owner, "owner_name": self.owner_name,
                "recipient": self.recipient or None, "recipient_name": self.recipient_name or None,
                "action": self.action, "condition": self.condition or None, "due_at": self.due_at.isoformat(),
                "session": self.session}


@dataclass(frozen=True, slots=True)
class StaleDispute:
    session: str
    title: str
    opened_at: datetime
    days: float
    members: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"session": self.session, "title": self.title, "opened_at": self.opened_at.isoformat(),
                "days": round(self.days, 1), "members": list(self.members)}


@dataclass(frozen=True, slots=True)
class Digest:
    """One community's digest as of ``as_of`` covering ``since`` → ``as_of``."""

    tenant: str
    as_of: datetime
    since: datetime
    period: Period
    zone: str
    lang: Lang
    stale_days: float
    overdue: tuple[DueCommitment, ...]
    due_soon: tuple[DueCommitment, ...]
    stale_disputes: tuple[StaleDispute, ...]
    review: dict[str, int]
    erasures: tuple[str, ...]
    alerts: tuple[str, ...]
    #: Set when the digest channel refused Heyan's posts: (channel, the platform's reason).
    undeliverable: tuple[str, str] | None = None

    @property
    def review_total(self) -> int:
        return sum(self.review.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant, "as_of": self.as_of.isoformat(), "since": self.since.isoformat(),
            "period": self.period, "timezone": self.zone,
            "overdue": [c.as_dict() for c in self.overdue], "due_soon": [c.as_dict() for c in self.due_soon],
            "stale_disputes": [d.as_dict() for d in self.stale_disputes], "stale_days": self.stale_days,
            "review_queue": {"total": self.review_total, **self.review},
            "erasures": {"count": len(self.erasures), "members": list(self.erasures)},
            "alerts": {"count": len(self.alerts), "sessions": list(self.alerts)},
            "undeliverable": {"channel": self.undeliverable[0], "error": self.undeliverable[1]}
            if self.undeliverable else None,
        }

    def body(self) -> RichText:
        """The digest as a post (names are plain text: a digest pings nobody)."""
        zh = self.lang == "zh"

        def when(t: datetime) -> str:
            return show_time(t, self.zone, self.lang)

        head = ("和言每周摘要" if self.period == "weekly" else "和言每日摘要") if zh else (
            "Heyan weekly digest" if self.period == "weekly" else "Heyan daily digest")
        lines = [f"{head} · {when(self.as_of)}"]
        lines.append(f"逾期的承诺（{len(self.overdue)}）：" if zh else f"Overdue commitments ({len(self.overdue)}):")
        lines += [f"• {c.people}：{c.what(zh)}（{when(c.due_at)}到期，线程 {c.session}）[{c.fact_id[:8]}]" if zh else
                  f"• {c.people}: {c.what(zh)} (due {when(c.due_at)}, thread {c.session}) [{c.fact_id[:8]}]"
                  for c in self.overdue] or ["• （无）" if zh else "• (none)"]
        soon = "一天" if self.period == "daily" else "一周"
        lines.append(f"{soon}内到期（{len(self.due_soon)}）：" if zh else
                     f"Due within a {'day' if self.period == 'daily' else 'week'} ({len(self.due_soon)}):")
        lines += [f"• {c.people}：{c.what(zh)}（{when(c.due_at)}）[{c.fact_id[:8]}]" if zh else
                  f"• {c.people}: {c.what(zh)} ({when(c.due_at)}) [{c.fact_id[:8]}]"
                  for c in self.due_soon] or ["• （无）" if zh else "• (none)"]
        days = f"{self.stale_days:g}"
        lines.append(f"开启超过 {days} 天的争议（{len(self.stale_disputes)}）：" if zh else
                     f"Disputes open longer than {days} days ({len(self.stale_disputes)}):")
        lines += [f"• {d.title}（线程 {d.session}，{d.days:.0f} 天）" if zh else
                  f"• {d.title} (thread {d.session}, {d.days:.0f} days)" for d in self.stale_disputes] or [
            "• （无）" if zh else "• (none)"]
        queue = ", ".join(f"{k} {v}" for k, v in sorted(self.review.items()) if v)
        lines.append((f"待审核：{self.review_total}" if zh else f"Review queue: {self.review_total}")
                     + (f"（{queue}）" if zh and queue else f" ({queue})" if queue else ""))
        lines.append(f"期间完成的删除请求：{len(self.erasures)}" if zh else f"Erasures done: {len(self.erasures)}")
        lines.append(f"期间发出的升级预警：{len(self.alerts)}" if zh else f"Escalation alerts sent: {len(self.alerts)}")
        return RichText.of("\n".join(lines))


def _due(fact: Fact) -> DueCommitment:
    assert fact.due_at is not None
    condition = getattr(fact, "condition", "")  # a promise's condition, when its record holds one
    return DueCommitment(fact_id=fact.id, owner=fact.subject, owner_name=fact.subject_name or fact.subject,
                         action=for_everyone(promised_action(fact.value), fact), due_at=fact.due_at,
                         session=fact.session,
                         recipient=fact.recipient, recipient_name=fact.recipient_name or fact.recipient,
                         condition=condition.strip() if isinstance(condition, str) else "")


def build_digest(
    tenant: str, *, now: datetime, period: Period, zone: str, lang: Lang, commitments: Iterable[Fact],
    sessions: Iterable[SessionInfo], review: Iterable[Fact], audit: Sequence[AuditEntry],
    stale_days: float = STALE_DAYS, undeliverable: tuple[str, str] | None = None,
) -> Digest:
    """The digest from its inputs: ``commitments`` (any, the open ones are read), the tenant's
    ``sessions``, the review queue's records, recent ``audit`` entries. A promise of a closed dispute
    is listed too: its follow-ups may have stopped, but it is still a promise not kept."""
    span = period_of(period)
    since = now - span
    overdue: list[DueCommitment] = []
    soon: list[DueCommitment] = []
    for f in commitments:
        if f.status not in OPEN_COMMITMENT or f.due_at is None:
            continue
        if f.due_at < now or f.status is FactStatus.OVERDUE:
            overdue.append(_due(f))
        elif f.due_at <= now + span:
            soon.append(_due(f))
    overdue.sort(key=lambda c: (c.due_at, c.fact_id))
    soon.sort(key=lambda c: (c.due_at, c.fact_id))
    stale: list[StaleDispute] = []
    for info in sessions:
        if not info.is_open or info.opened_at is None:
            continue
        days = (now - info.opened_at).total_seconds() / 86400
        if days > stale_days:
            stale.append(StaleDispute(session=info.session, title=info.title or info.session, opened_at=info.opened_at,
                                      days=days, members=info.members))
    stale.sort(key=lambda d: d.opened_at)
    counts: dict[str, int] = {}
    for f in review:
        label = f.status.value if f.status is not FactStatus.ACTIVE else "low-confidence"
        counts[label] = counts.get(label, 0) + 1
    recent = [e for e in audit if since <= e.at <= now]
    erased = tuple(dict.fromkeys(e.target for e in recent if e.action == "member.erase"))
    alerts = tuple(e.target for e in recent if e.action == ALERT_ACTION)
    return Digest(tenant=tenant, as_of=now, since=since, period=period, zone=zone, lang=lang, stale_days=stale_days,
                  overdue=tuple(overdue), due_soon=tuple(soon), stale_disputes=tuple(stale), review=counts,
                  erasures=erased, alerts=alerts, undeliverable=undeliverable)
