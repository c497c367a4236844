"""Console tables for the promise record and the moderator digest."""

from __future__ import annotations

from rich.table import Table

from bot.agreements.digest import Digest
from bot.agreements.promises import PromiseRecord
from bot.text.clock import show_time

__all__ = ["digest_tables", "promise_table"]


def promise_table(record: PromiseRecord, zone: str = "UTC") -> Table:
    table = Table(title=f"{record.name or record.user}: commitments", title_justify="left")
    for name in ("id", "outcome", "promise", "due", "done", "thread"):
        table.add_column(name)
    for line in record.lines:
        table.add_row(line.fact_id[:8], line.outcome.value, line.action,
                      show_time(line.due_at, zone, "en") if line.due_at else "—",
                      show_time(line.done_at, zone, "en") if line.done_at else "—", line.session or "—")
    return table


def digest_tables(digest: Digest) -> list[Table]:
    """One table per section of the digest that has something in it."""
    zone = digest.zone
    out: list[Table] = []
    for title, rows in (("overdue commitments", digest.overdue), ("due soon", digest.due_soon)):
        if rows:
            table = Table(title=title, title_justify="left")
            for name in ("id", "who", "promise", "due", "thread"):
                table.add_column(name)
            for c in rows:
                table.add_row(c.fact_id[:8], c.people, c.what(False), show_time(c.due_at, zone, "en"),
                              c.session or "—")
            out.append(table)
    if digest.stale_disputes:
        table = Table(title=f"disputes open longer than {digest.stale_days:g} days", title_justify="left")
        for name in ("thread", "title", "opened", "days"):
            table.add_column(name)
        for d in digest.stale_disputes:
            table.add_row(d.session, d.title, show_time(d.opened_at, zone, "en"), f"{d.days:.0f}")
        out.append(table)
    return out
