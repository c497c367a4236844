"""A thread's temperature as the console shows it: each point with its author's name, its message's
link and its signals in words, the large chart, and the sparkline of a list. Built from the
moderation service's ``ThreadHeat``; nothing is decided here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from adapters.web.chart import HeatMark, sparkline_svg, temperature_svg
from adapters.web.i18n import t
from adapters.web.links import message_link
from bot.escalation_alerts import signal_label
from bot.heat import HeatPoint
from bot.moderation import ThreadHeat
from memory.models import Lang

__all__ = ["PointRow", "heat_chart", "heat_spark", "point_rows", "when"]


def when(value: datetime | None) -> str:
    """A time as every page shows it."""
    return value.strftime("%Y-%m-%d %H:%M UTC") if value is not None else ""


@dataclass(frozen=True, slots=True)
class PointRow:
    """One point of a timeline for a page or the API."""

    point: HeatPoint
    name: str
    link: str | None
    hot: bool
    signals: tuple[str, ...]


def point_rows(heat: ThreadHeat, lang: Lang, slack_domain: str = "") -> list[PointRow]:
    """The timeline's points, oldest first, with names, links and signal labels."""
    return [PointRow(point=p, name=heat.name(p.author), hot=p.temperature >= heat.threshold,
                     link=message_link(heat.info.tenant, heat.session, p.message_id, slack_domain=slack_domain),
                     signals=tuple(signal_label(s, lang) for s in p.signals)) for p in heat.points]


def _title(heat: ThreadHeat) -> str:
    return heat.info.title or heat.session


def heat_chart(heat: ThreadHeat, rows: list[PointRow], lang: Lang) -> str:
    """The large chart, its description saying in words what it draws."""
    hot = [r for r in rows if r.hot]
    sep = "、" if lang == "zh" else ", "
    desc = t(lang, "dispute.desc", n=len(rows), first=when(rows[0].point.at) if rows else "-",
             last=when(rows[-1].point.at) if rows else "-", threshold=f"{heat.threshold:g}", above=len(hot),
             who=sep.join(f"{r.name} {when(r.point.at)} ({r.point.temperature:.1f})" for r in hot) or "-",
             now=f"{heat.now:.1f}", peak=f"{heat.peak:.1f}")
    marks = [HeatMark(value=r.point.temperature, link=r.link,
                      label=f"{r.name} · {when(r.point.at)} · {r.point.temperature:.1f}"
                            + (f" · {sep.join(r.signals)}" if r.signals else "")) for r in rows]
    return temperature_svg(marks, threshold=heat.threshold, title=t(lang, "dispute.chart", title=_title(heat)),
                           desc=desc, threshold_label=t(lang, "dispute.threshold"),
                           first=when(rows[0].point.at) if rows else "", last=when(rows[-1].point.at) if rows else "")


def heat_spark(heat: ThreadHeat, lang: Lang) -> str:
    """The list's sparkline, named in words."""
    label = t(lang, "disputes.spark", title=_title(heat), n=len(heat.points), now=f"{heat.now:.1f}",
              peak=f"{heat.peak:.1f}", threshold=f"{heat.threshold:g}")
    return sparkline_svg([p.temperature for p in heat.points], threshold=heat.threshold, label=label)
