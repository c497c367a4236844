"""How memories, commitments, disputes and the audit trail look on Discord: embeds and short lines.

Everything a member, a quote or an LLM wrote is untrusted: markdown and mention markup are escaped
(``safe``), and every message carrying these is sent with ``allowed_mentions`` that ping nobody.
Times are Discord timestamps (``<t:…:f>``), which each reader's client shows in their own zone.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from adapters.discord.render import escape
from adapters.discord.translate import kind_label, stage_label, status_label, t
from bot.audit import AuditEntry
from bot.moderation import DisputeStatus
from memory.models import Fact, Lang, Summary, Visibility
from memory.normalize import strip_controls

__all__ = [
    "LIST_LIMIT",
    "audit_embed",
    "fact_embed",
    "fact_line",
    "facts_embed",
    "safe",
    "short_id",
    "status_embed",
    "summary_embed",
]

#: Lines in one list embed (its description holds 4,096 characters; a line is at most ~200).
LIST_LIMIT = 20
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


def facts_embed(facts: Sequence[Fact], lang: Lang, title: str) -> discord.Embed:
    """A list of facts, at most ``LIST_LIMIT`` lines, saying how many were left out."""
    shown = list(facts)[:LIST_LIMIT]
    embed = discord.Embed(title=strip_controls(title), colour=_COLOUR,
                          description="\n".join(fact_line(f, lang) for f in shown))
    if len(facts) > len(shown):
        embed.set_footer(text=t(lang, "memory.more", shown=len(shown), total=len(facts)))
    return embed


def fact_embed(fact: Fact, lang: Lang) -> discord.Embed:
    """One memory in full: value, status, who said it where, sources, due time, competing accounts."""
    title = f"{kind_label(fact, lang)} · {fact.subject_name or fact.subject}: {fact.attribute}"
    embed = discord.Embed(title=discord.utils.escape_markdown(strip_controls(title))[:256], colour=_COLOUR,
                          description=safe(fact.value, 2000))
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
        embed.add_field(name=t(lang, "fact.sources"), value=quotes[:1024], inline=False)
    if fact.contested:
        other = "\n".join(f"{safe(c.value, 200)} — <@{c.asserted_by}>" if c.asserted_by.isdigit()
                          else safe(c.value, 200) for c in fact.contested[:3])
        embed.add_field(name=t(lang, "fact.contested"), value=other[:1024], inline=False)
    embed.set_footer(text=fact.id)
    return embed


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
        embed.add_field(name=t(lang, "status.members"), value=" ".join(f"<@{m}>" for m in info.members)[:1024],
                        inline=False)
    embed.add_field(name=t(lang, "status.stage"), value=stage_label(status.stage, lang))
    embed.add_field(name=t(lang, "status.turns"), value=str(status.turns))
    if status.open_commitments:
        lines = "\n".join(fact_line(f, lang) for f in status.open_commitments[:8])
        embed.add_field(name=t(lang, "status.commitments"), value=lines[:1024], inline=False)
    if status.summary:
        embed.add_field(name=t(lang, "status.summary"), value=safe(status.summary.text, 1000), inline=False)
    return embed


def summary_embed(summary: Summary, lang: Lang) -> discord.Embed:
    embed = discord.Embed(title=t(lang, "summary.title", version=summary.version), colour=_COLOUR,
                          description=safe(summary.text, 4000))
    embed.timestamp = summary.updated_at
    return embed


def audit_embed(entries: Sequence[AuditEntry], lang: Lang) -> discord.Embed:
    """The latest audit entries, newest first: when, who, what, on what, why."""
    lines = []
    for e in list(entries)[:LIST_LIMIT]:  # the audit log lists newest first
        who = f"<@{e.actor_id}>" if e.actor_id.isdigit() else safe(e.actor_name or e.actor_id, 40)
        reason = f" — {safe(e.reason, 80)}" if e.reason else ""
        lines.append(f"{discord.utils.format_dt(e.at, 'f')} {who} `{e.action}` `{e.target[:12]}`{reason}")
    return discord.Embed(title=t(lang, "audit.title", count=len(lines)), colour=_COLOUR,
                         description="\n".join(lines) or t(lang, "audit.none"))
