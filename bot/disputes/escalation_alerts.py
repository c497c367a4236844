"""Early escalation alerts: each observed message moves its thread's temperature (``bot.disputes.escalation``);
a thread that crosses the threshold sends the moderators one alert.

The alert goes through the outbox to ``digest_channel``: a neutral summary, the hottest lines, links
and the timeline (``bot.disputes.heat``: ids and numbers, never words); with an LLM, the crossing is confirmed
first. At most one per thread per ``COOLDOWN_SECONDS``; a private thread's alert names and quotes
nobody; no usable channel, no alert (the digest says so). Each alert is audited (``escalation.alert``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta

from redis.asyncio import Redis

from bot.agreements.digest import ALERT_ACTION
from bot.config.tenants import TenantConfig
from bot.conversation import MessageLog
from bot.delivery.outbox import Outbox, Post, PostKind
from bot.disputes.escalation import THRESHOLD, Heat, Turn, cool, score, signals
from bot.disputes.heat import TIMELINE, HeatBook, HeatPoint
from bot.llm.base import MediatorProvider
from bot.models import Message
from bot.moderation.digests import channel_usable, note_posted
from bot.privacy.audit import SYSTEM, AuditEntry, AuditLog
from bot.stages import ESCALATION
from bot.text.clock import show_time
from bot.text.lang import session_lang
from bot.text.richtext import RichText
from memory.models import Lang, Scope, Visibility

__all__ = ["COOLDOWN_SECONDS", "TIMELINE", "Confirm", "EscalationMonitor", "HeatBook", "HeatPoint", "message_link",
           "model_confirm", "signal_label", "sparkline"]

log = logging.getLogger(__name__)

#: One alert per thread per this many seconds.
COOLDOWN_SECONDS = 6 * 3600
#: Lines quoted in an alert, and how much of each.
QUOTED = 4
QUOTE_CHARS = 120

#: With an LLM: does the model confirm that this thread is escalating? (``scope``, its recent messages)
Confirm = Callable[[Scope, Sequence[Message]], Awaitable[bool]]

_BARS = "▁▂▃▄▅▆▇█"


def model_confirm(provider: MediatorProvider) -> Confirm:
    """A ``Confirm`` asking the model (not its offline fallback: a failure must raise) to classify the
    latest turn in its thread: escalating when it reads anger or hurt at ``bot.stages.ESCALATION`` or above."""

    async def confirm(scope: Scope, recent: Sequence[Message]) -> bool:
        if not recent:
            return False
        turns = [m.utterance() for m in recent]
        lang = session_lang([m.text for m in recent])
        found = await provider.classify(turns[-1], turns[:-1], lang)
        return found.emotion in ("angry", "hurt") and found.intensity >= ESCALATION

    return confirm


def sparkline(points: Sequence[HeatPoint], threshold: float = THRESHOLD) -> str:
    """The timeline in eight bar heights, scaled to the threshold (a full bar is at or above it twice)."""
    top = 2 * threshold
    return "".join(_BARS[min(len(_BARS) - 1, int(len(_BARS) * min(p.temperature, top) / top))] for p in points)


def message_link(tenant: str, session: str, message_id: str) -> str | None:
    """A link to a message (Discord) or its channel (Slack); None where there is none (console)."""
    head, _, rest = tenant.partition(":")
    if head == "discord" and rest and message_id.isdigit():
        return f"https://discord.com/channels/{rest}/{session}/{message_id}"
    if head == "slack" and rest:
        team = rest.rpartition(":")[2]
        channel = session.partition(":")[0]
        return f"https://slack.com/app_redirect?team={team}&channel={channel}"
    return None


class EscalationMonitor:
    """Moves each observed message's thread temperature and sends the moderators' alert."""

    def __init__(self, *, redis: Redis, window: MessageLog, outbox: Outbox, audit: AuditLog, tenants: TenantConfig,
                 confirm: Confirm | None = None, cooldown_seconds: int = COOLDOWN_SECONDS,
                 threshold: float = THRESHOLD) -> None:
        self.redis = redis
        self.window = window
        self.outbox = outbox
        self.audit = audit
        self.tenants = tenants
        self.book = HeatBook(redis)
        self.confirm = confirm
        self.cooldown_seconds = cooldown_seconds
        self.threshold = threshold

    async def observe(self, msg: Message) -> Heat:
        """The message's heat (its thread's temperature after it); alerts when it crosses the threshold.
        Called after the message was recorded (so the window holds it)."""
        scope = Scope(tenant=msg.scope.tenant, session=msg.session)
        recent = await self.window.recent(scope)
        before = [m for m in recent if m.id != msg.id and m.ts <= msg.ts]
        previous = before[-1] if before else None
        prev_turn = Turn(previous.author_id, previous.text, previous.ts, previous.id) if previous else None
        gap = (msg.ts - previous.ts).total_seconds() if previous is not None else None
        found = signals(msg.text, prev_turn, gap_seconds=gap, author=msg.author_id)
        last = await self.book.last(scope)
        carried = cool(last.temperature, (msg.ts - last.at).total_seconds()) if last is not None else 0.0
        value = score(found)
        heat = Heat(score=value, temperature=carried + value, signals=found)
        await self.book.add(scope, HeatPoint(at=msg.ts, temperature=heat.temperature, score=value, message_id=msg.id,
                                             author=msg.author_id, signals=found.names()))
        if heat.temperature >= self.threshold and not msg.mention:
            await self._alert(msg, scope, [*before, msg])
        return heat

    async def _alert(self, msg: Message, scope: Scope, recent: list[Message]) -> bool:
        settings = await self.tenants.get(scope.tenant)
        channel = settings.digest_channel
        if not channel:
            log.info("thread %s of %s is heating up; no moderators' channel is set", scope.session, scope.tenant)
            return False
        key = f"heyan:heat-alerted:{scope.tenant}:{scope.session}"
        if await self.redis.exists(key):
            return False  # alerted within the cooldown
        if not await channel_usable(self.redis, self.outbox, self.audit, scope.tenant, channel):
            return False
        if self.confirm is not None:
            try:
                if not await self.confirm(scope, recent):
                    return False
            except Exception as exc:  # the model failed: the offline verdict stands (logged by type only)
                log.warning("escalation check by the model failed (%s); alerting on the offline signal",
                            type(exc).__name__)
        if not await self.redis.set(key, msg.id, nx=True, ex=self.cooldown_seconds):
            return False
        timeline = await self.book.timeline(scope)
        lang: Lang = "zh" if settings.language == "zh" else "en" if settings.language == "en" else session_lang(
            [m.text for m in recent])
        private = msg.visibility is Visibility.PRIVATE
        body = _private_body(scope, msg, lang) if private else _body(scope, recent, timeline, lang, settings.timezone)
        post_id = f"alert:{scope.tenant}:{scope.session}:{msg.id}"
        if await self.outbox.append(Post(id=post_id, tenant=scope.tenant, session=channel, body=body,
                                         kind=PostKind.NOTICE, lang=lang, ref={"alert_for": scope.session or ""})):
            await note_posted(self.redis, scope.tenant, post_id, channel)
        hot = [p for p in timeline if p.score > 0][-QUOTED:]
        await self.audit.record(AuditEntry(
            tenant=scope.tenant, actor_id=SYSTEM, actor_name="Heyan", action=ALERT_ACTION, target=scope.session or "",
            users=tuple(dict.fromkeys(p.author for p in hot)),
            after={"post": post_id, "temperature": round(timeline[-1].temperature, 2) if timeline else None,
                   "private": private}))
        return True


def _body(scope: Scope, recent: list[Message], timeline: list[HeatPoint], lang: Lang, zone: str) -> RichText:
    """A public thread's alert: neutral summary, who said what, links, the temperature timeline."""
    zh = lang == "zh"
    points = timeline[-len(recent):] if recent else timeline
    by_id = {m.id: m for m in recent}
    hot = [p for p in points if p.score > 0 and p.message_id in by_id][-QUOTED:]
    people = list(dict.fromkeys(by_id[p.message_id].author_name or p.author for p in hot))
    span = recent[-1].ts - recent[0].ts if len(recent) > 1 else timedelta(0)
    minutes = max(1, round(span.total_seconds() / 60))
    seen = sorted({s for p in hot for s in p.signals if s != "fast"})
    names = ("、" if zh else ", ").join(people)
    if zh:
        lines = [f"和言提醒：线程 {scope.session} 的气氛正在升温（{len(recent)} 条消息，约 {minutes} 分钟，涉及{names}）。"
                 f"看到的信号：{'、'.join(_SIGNALS_ZH.get(s, s) for s in seen) or '情绪'}。"]
        lines.append("最近的发言：")
    else:
        lines = [f"Heyan: thread {scope.session} is heating up ({len(recent)} messages over about {minutes} min, "
                 f"between {names}). Signals: {', '.join(_SIGNALS_EN.get(s, s) for s in seen) or 'emotion'}."]
        lines.append("Recent lines:")
    for p in hot:
        m = by_id[p.message_id]
        quote = " ".join(m.text.split())
        quote = quote if len(quote) <= QUOTE_CHARS else quote[: QUOTE_CHARS - 1] + "…"
        link = message_link(scope.tenant, scope.session or "", m.id)
        when = show_time(m.ts, zone, lang)
        lines.append(f"• {m.author_name or m.author_id}（{when}）：“{quote}”" + (f" {link}" if link else "") if zh else
                     f"• {m.author_name or m.author_id} ({when}): “{quote}”" + (f" {link}" if link else ""))
    last = timeline[-1].temperature if timeline else 0.0
    lines.append(f"温度：{sparkline(timeline)} {last:.1f}（提醒阈值 {THRESHOLD:g}）" if zh else
                 f"Temperature: {sparkline(timeline)} {last:.1f} (alert at {THRESHOLD:g})")
    lines.append("这只是提醒，和言不会对任何人采取行动。" if zh else "This is only a heads-up; Heyan takes no action on anyone.")
    return RichText.of("\n".join(lines))


def _private_body(scope: Scope, msg: Message, lang: Lang) -> RichText:
    """A private thread's alert: no names, no words; a link only those who can see the thread can open."""
    link = message_link(scope.tenant, scope.session or "", msg.id) or f"thread {scope.session}"
    if lang == "zh":
        return RichText.of(f"和言提醒：一个私密线程的气氛正在升温，需要能看到它的管理员看一看：{link}")
    return RichText.of(f"Heyan: a private thread is heating up and needs a look from a moderator who can see it: {link}")


_SIGNALS_EN = {"insult": "insults", "accusation": "accusations (you always / you never)", "blame": "blame",
               "absolute": "absolutes", "anger": "anger", "hurt": "hurt feelings", "shout": "shouting",
               "exclaim": "exclamations", "echo": "words thrown back", "rebuke": "orders at each other",
               "contempt": "contempt"}
_SIGNALS_ZH = {"insult": "辱骂", "accusation": "指责（你总是/你从来）", "blame": "责怪", "absolute": "绝对化的说法",
               "anger": "愤怒", "hurt": "受伤的情绪", "shout": "喊叫", "exclaim": "感叹", "echo": "反唇相讥",
               "rebuke": "互相命令", "contempt": "轻蔑"}


def signal_label(name: str, lang: Lang) -> str:
    """What a timeline point's signal (``bot.disputes.escalation.Signals`` field) is called for moderators."""
    if name == "fast":
        return "回复很快" if lang == "zh" else "fast replies"
    return (_SIGNALS_ZH if lang == "zh" else _SIGNALS_EN).get(name, name)
