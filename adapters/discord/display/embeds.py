"""How memories, commitments, disputes and the audit trail look on Discord: embeds and short lines.

Untrusted text is escaped (``safe``) and sent with ``allowed_mentions`` that ping nobody; times are
Discord timestamps (each reader's own zone); embeds are fitted after escaping (``limits.bounded``) and
lists paged, never cut.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from adapters.discord.display.limits import DESCRIPTION, EMBED_TOTAL, FIELD_VALUE, bounded, clip
from adapters.discord.display.render import escape
from adapters.discord.display.translate import kind_label, stage_label, status_label, t
from bot.moderation import DisputeStatus
from bot.privacy.audit import AuditEntry
from memory.models import Fact, Lang, Summary, Visibility
from memory.normalize import strip_controls

__all__ = [
    "audit_embed",
    "fact_embed",
    "fact_line",
    "safe",
    "short_id",
    "status_embed",
    "summary_embed",
]

_COLOUR = discord.Colour(0x4F7CAC)


def safe(text: str, limit: int = 300) -> str:
    """Untrusted text made inert (no markdown, no mentions) and bounded."""
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return escape(discord.utils.escape_markdown(text))


def short_id(fact: Fact) -> str:
    return fact.id[:8]


def _when(fact: Fact, lang: Lang) -> str:
    return t(lang, "due", when=discord.utils.format_dt(fact.due_at, "f")) if fact.due_at else ""


def fact_line(fact: Fact, lang: Lang) -> str:
    """`` `1a2b3c4d` commitment · Bob: send the draft — by Friday (active, due …)``"""
    who = safe(fact.subject_name or fact.subject, 60)
    extra = ", ".join(x for x in (status_label(fact.status, lang), _when(fact, lang)) if x)
    return (f"`{short_id(fact)}` **{kind_label(fact, lang)}** · {who}: {safe(fact.attribute, 60)} — "
            f"{safe(fact.value, 120)} ({extra})")


def fact_embed(fact: Fact, lang: Lang, *, total: int = EMBED_TOTAL) -> discord.Embed:
    """One memory in full: value, status, who said it where, sources, due time, competing accounts;
    within ``total`` characters (a page of several shares a message's 6,000)."""
    title = f"{kind_label(fact, lang)} · {fact.subject_name or fact.subject}: {fact.attribute}"
    embed = discord.Embed(title=discord.utils.escape_markdown(strip_controls(title))[:256], colour=_COLOUR,
                          description=clip(safe(fact.value, 2000), DESCRIPTION))
    embed.add_field(name=t(lang, "fact.status"), value=f"{status_label(fact.status, lang)} · {fact.confidence.value}")
    embed.add_field(name=t(lang, "fact.said_by"), value=f"<@{fact.asserted_by}>" if fact.asserted_by.isdigit()
                    else safe(fact.asserted_by, 60))
    visibility = t(lang, "fact.private" if fact.visibility is Visibility.PRIVATE else "fact.public")
    where = f"<#{fact.session}> ({visibility})" if fact.session and fact.session.isdigit() else visibility
    embed.add_field(name=t(lang, "fact.where"), value=where)
    if fact.due_at:
        embed.add_field(name=t(lang, "fact.due"), value=discord.utils.format_dt(fact.due_at, "f"))
    embed.add_field(name=t(lang, "fact.version"), value=str(fact.version))
    if fact.sources:
        quotes = "\n".join(f"> {safe(s.quote, 200)} — {safe(s.author_name or s.author_id, 40)}, "
                           f"{discord.utils.format_dt(s.ts, 'd')}" for s in fact.sources[:3])
        embed.add_field(name=t(lang, "fact.sources"), value=clip(quotes, FIELD_VALUE), inline=False)
    if fact.contested:
        other = "\n".join(f"{safe(c.value, 200)} — <@{c.asserted_by}>" if c.asserted_by.isdigit()
                          else safe(c.value, 200) for c in fact.contested[:3])
        embed.add_field(name=t(lang, "fact.contested"), value=clip(other, FIELD_VALUE), inline=False)
    embed.set_footer(text=fact.id)
    return bounded(embed, total)


def status_embed(status: DisputeStatus, lang: Lang) -> discord.Embed:
    """Where a dispute stands: state, opener, members, stage, messages, open commitments, summary."""
    info = status.info
    title = t(lang, "status.title", title=info.title) if info and info.title else t(lang, "status.session")
    embed = discord.Embed(title=discord.utils.escape_markdown(strip_controls(title))[:256], colour=_COLOUR)
    state = ("status.open" if info.is_open else "status.closed") if info and info.title else "status.never"
    embed.add_field(name=t(lang, "status.state"), value=t(lang, state))
    if info and info.opened_by:
        embed.add_field(name=t(lang, "status.opened_by"), value=f"<@{info.opened_by}>")
    if info and info.members:
        embed.add_field(name=t(lang, "status.members"), value=clip(" ".join(f"<@{m}>" for m in info.members),
                                                                   FIELD_VALUE), inline=False)
    embed.add_field(name=t(lang, "status.stage"), value=stage_label(status.stage, lang))
    embed.add_field(name=t(lang, "status.turns"), value=str(status.turns))
    if status.open_commitments:
        lines = "\n".join(fact_line(f, lang) for f in status.open_commitments[:8])
        embed.add_field(name=t(lang, "status.commitments"), value=clip(lines, FIELD_VALUE), inline=False)
    if status.summary:
        embed.add_field(name=t(lang, "status.summary"), value=clip(safe(status.summary.text, 1000), FIELD_VALUE),
                        inline=False)
    return bounded(embed)


def summary_embed(summary: Summary, lang: Lang) -> discord.Embed:
    embed = discord.Embed(title=t(lang, "summary.title", version=summary.version), colour=_COLOUR,
                          description=clip(safe(summary.text, 4000), DESCRIPTION))
    embed.timestamp = summary.updated_at
    return bounded(embed)


def audit_embed(entries: Sequence[AuditEntry], lang: Lang) -> discord.Embed:
    """The latest audit entries, newest first: when, who, what, on what, why — as many as fit."""
    lines: list[str] = []
    used = 0
    for e in entries:  # the audit log lists newest first
        who = f"<@{e.actor_id}>" if e.actor_id.isdigit() else safe(e.actor_name or e.actor_id, 40)
        reason = f" — {safe(e.reason, 80)}" if e.reason else ""
        line = f"{discord.utils.format_dt(e.at, 'f')} {who} `{e.action}` `{e.target[:12]}`{reason}"
        if used + len(line) + 1 > DESCRIPTION:
            break
        lines.append(line)
        used += len(line) + 1
    return bounded(discord.Embed(title=t(lang, "audit.title", count=len(lines)), colour=_COLOUR,
                                 description="\n".join(lines) or t(lang, "audit.none")))
