"""A thread's temperature as the console shows it: each point with its author's name, its message's
link and its signals in words, the large chart, and the sparkline of a list. Built from the
moderation service's ``ThreadHeat``; nothing is decided here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from adapters.web.views.chart import HeatMark, sparkline_svg, temperature_svg
from adapters.web.views.i18n import t
from adapters.web.views.links import message_link
from bot.disputes.escalation_alerts import signal_label
from bot.disputes.heat import HeatPoint
from bot.moderation import ThreadHeat
from bot.text.clock import show_stamp, show_time
from bot.text.zones import zone_label
from memory.models import Lang

__all__ = ["PointRow", "heat_chart", "heat_spark", "point_rows", "stamp", "when"]


def when(value: datetime | None, zone: str = "UTC", lang: Lang = "en") -> str:
    """A time as every page shows it: in the community's zone, named ("Thu 5 Nov 15:00 (UTC+08:00)")."""
    return show_time(value, zone, lang) if value is not None else ""


def stamp(value: datetime | None, zone: str = "UTC") -> str:
    """A time for a chart's axis or a table cell whose heading names the zone: "Thu 11-05 15:00"."""
    return show_stamp(value, zone) if value is not None else ""


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


def heat_chart(heat: ThreadHeat, rows: list[PointRow], lang: Lang, zone: str = "UTC") -> str:
    """The large chart, its description saying in words what it draws; times in ``zone``."""
    hot = [r for r in rows if r.hot]
    sep = "、" if lang == "zh" else ", "
    first = when(rows[0].point.at, zone, lang) if rows else "-"
    last = when(rows[-1].point.at, zone, lang) if rows else "-"
    desc = t(lang, "dispute.desc", n=len(rows), first=first, last=last, threshold=f"{heat.threshold:g}",
             above=len(hot), who=sep.join(f"{r.name} {when(r.point.at, zone, lang)} ({r.point.temperature:.1f})"
                                          for r in hot) or "-",
             now=f"{heat.now:.1f}", peak=f"{heat.peak:.1f}")
    marks = [HeatMark(value=r.point.temperature, link=r.link,
                      label=f"{r.name} · {when(r.point.at, zone, lang)} · {r.point.temperature:.1f}"
                            + (f" · {sep.join(r.signals)}" if r.signals else "")) for r in rows]
    return temperature_svg(marks, threshold=heat.threshold, title=t(lang, "dispute.chart", title=_title(heat)),
                           desc=desc, threshold_label=t(lang, "dispute.threshold"),
                           first=stamp(rows[0].point.at, zone) if rows else "",
                           last=stamp(rows[-1].point.at, zone) if rows else "",
                           y_label=t(lang, "dispute.axis_y"), x_label=t(lang, "dispute.axis_x", zone=zone_label(zone)))


def heat_spark(heat: ThreadHeat, lang: Lang) -> str:
    """The list's sparkline, named in words."""
    label = t(lang, "disputes.spark", title=_title(heat), n=len(heat.points), now=f"{heat.now:.1f}",
              peak=f"{heat.peak:.1f}", threshold=f"{heat.threshold:g}")
    return sparkline_svg([p.temperature for p in heat.points], threshold=heat.threshold, label=label)
