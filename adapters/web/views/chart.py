"""Charts as inline SVG drawn on the server: kept and overdue commitments per week, and a thread's
temperature over time (large, and as a sparkline for lists).

No JavaScript and no chart library: the numbers are drawn as text or carried in each shape's
``<title>``, and each chart has a ``<title>`` and ``<desc>`` so a screen reader gets the same
numbers. Labels (member names among them) are escaped; links come from ``adapters.web.views.links``, which
only makes them from ids of the expected shape."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from bot.moderation import WeekTally

__all__ = ["HeatMark", "nice_ticks", "sparkline_svg", "temperature_svg", "weeks_svg"]

_W, _H = 560, 180
_TOP, _BOTTOM, _LEFT = 16, 34, 8
KEPT_COLOR = "#2e7d32"
OVERDUE_COLOR = "#c62828"


def weeks_svg(weeks: Sequence[WeekTally], *, title: str, kept_label: str, overdue_label: str, y_label: str = "",
              x_label: str = "") -> str:
    """The chart as an ``<svg>`` element (a string of markup safe to insert as is): each bar carries
    its count as text; ``y_label`` and ``x_label`` name what the axes count."""
    most = max([1, *(max(w.kept, w.overdue) for w in weeks)])
    slot = (_W - _LEFT * 2) / max(1, len(weeks))
    bar = max(4.0, slot * 0.32)
    height = _H - _TOP - _BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" role="img" class="chart" '
        f'aria-labelledby="chart-title chart-desc">',
        f'<title id="chart-title">{escape(title)}</title>',
        '<desc id="chart-desc">' + escape("; ".join(
            f"{w.start.isoformat()}: {kept_label} {w.kept}, {overdue_label} {w.overdue}" for w in weeks)) + "</desc>",
        f'<line x1="{_LEFT}" y1="{_H - _BOTTOM}" x2="{_W - _LEFT}" y2="{_H - _BOTTOM}" stroke="#999"/>',
    ]
    for i, w in enumerate(weeks):
        x = _LEFT + i * slot + (slot - 2 * bar) / 2
        for j, (count, color) in enumerate(((w.kept, KEPT_COLOR), (w.overdue, OVERDUE_COLOR))):
            h = height * count / most
            bx = x + j * bar
            y = _H - _BOTTOM - h
            parts.append(f'<rect x="{bx:.1f}" y="{y:.1f}" width="{bar - 1:.1f}" height="{h:.1f}" fill="{color}"/>')
            if count:
                parts.append(f'<text x="{bx + bar / 2:.1f}" y="{y - 3:.1f}" font-size="11" text-anchor="middle">'
                             f"{count}</text>")
        parts.append(f'<text x="{_LEFT + i * slot + slot / 2:.1f}" y="{_H - _BOTTOM + 16}" font-size="11" '
                     f'text-anchor="middle">{escape(w.start.strftime("%m-%d"))}</text>')
    if y_label:
        parts.append(f'<text x="{_LEFT}" y="11" font-size="11" fill="#5f6368">{escape(y_label)}</text>')
    if x_label:
        parts.append(f'<text x="{_W - _LEFT}" y="{_H - 4}" font-size="11" text-anchor="end" fill="#5f6368">'
                     f"{escape(x_label)}</text>")
    legend_y = _H - 4
    parts.append(f'<rect x="{_LEFT}" y="{legend_y - 9}" width="10" height="10" fill="{KEPT_COLOR}"/>'
                 f'<text x="{_LEFT + 14}" y="{legend_y}" font-size="11">{escape(kept_label)}</text>'
                 f'<rect x="{_LEFT + 110}" y="{legend_y - 9}" width="10" height="10" fill="{OVERDUE_COLOR}"/>'
                 f'<text x="{_LEFT + 124}" y="{legend_y}" font-size="11">{escape(overdue_label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


HOT_COLOR = "#c62828"
LINE_COLOR = "#3451b2"
THRESHOLD_COLOR = "#b26a00"
GRID_COLOR = "#e3e3e8"
# sized for a phone too: the chart is drawn 1:1 at 560 px and scaled down to the page's width, so
# its text is set large enough to stay readable at ~360 px (a 16-unit label is ~10 px there)
_TW, _TH = 560, 300
_TTOP, _TBOTTOM, _TLEFT, _TRIGHT = 34, 62, 66, 16
_FONT = 16


@dataclass(frozen=True, slots=True)
class HeatMark:
    """One point of a temperature chart: its value, what it says in words (author, time, value) and,
    when one can be made, the link to its message."""

    value: float
    label: str
    link: str | None = None


def _scale(values: Sequence[float], threshold: float) -> float:
    """The top of the value axis: the threshold or the peak, with a little room above."""
    return max([threshold, *values]) * 1.15 or 1.0


def nice_ticks(top: float, count: int = 6) -> list[float]:
    """Round values from 0 up to at least ``top`` for an axis: steps of 1, 2, 2.5 or 5 × 10ⁿ, about
    ``count`` of them — so a peak of 22.6 reads against 0, 5, 10, 15, 20, 25."""
    top = top if top > 0 and math.isfinite(top) else 1.0
    raw = top / max(1, count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 10) for i in range(n + 1)]


def temperature_svg(points: Sequence[HeatMark], *, threshold: float, title: str, desc: str, threshold_label: str,
                    first: str = "", last: str = "", y_label: str = "", x_label: str = "") -> str:
    """A thread's temperature, one point per message in order (evenly spaced: a burst after a quiet
    day stays readable), against a value axis with round ticks and grid lines (``y_label`` names its
    unit, ``x_label`` the time axis). The alert threshold is a dashed line; points at or above it are
    drawn larger in red and carry their value as text, as does the peak — readable without hovering —
    each point's ``label`` is its tooltip and, with a link, a link to its message. ``first`` and
    ``last`` label the time axis's ends."""
    values = [p.value for p in points]
    ticks = nice_ticks(max([threshold, *values]) * 1.05)
    top = ticks[-1]
    width, height = _TW - _TLEFT - _TRIGHT, _TH - _TTOP - _TBOTTOM
    step = width / max(1, len(points) - 1)

    def x(i: int) -> float:
        return _TLEFT + (i * step if len(points) > 1 else width / 2)

    def y(value: float) -> float:
        return _TTOP + height * (1 - min(max(value, 0.0), top) / top)

    base = _TTOP + height
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_TW} {_TH}" role="img" class="chart heat" '
        f'aria-labelledby="heat-title heat-desc" font-size="{_FONT}">',
        f'<title id="heat-title">{escape(title)}</title>',
        f'<desc id="heat-desc">{escape(desc)}</desc>',
    ]
    for tick in ticks:
        parts.append(f'<line x1="{_TLEFT}" y1="{y(tick):.1f}" x2="{_TW - _TRIGHT}" y2="{y(tick):.1f}" '
                     f'stroke="{GRID_COLOR if tick else "#999"}"/>'
                     f'<text x="{_TLEFT - 6}" y="{y(tick) + 5:.1f}" text-anchor="end" class="tick">{tick:g}</text>')
    if y_label:
        parts.append(f'<text x="16" y="{_TTOP + height / 2:.1f}" text-anchor="middle" class="axis" '
                     f'transform="rotate(-90 16 {_TTOP + height / 2:.1f})">{escape(y_label)}</text>')
    parts += [
        f'<line x1="{_TLEFT}" y1="{y(threshold):.1f}" x2="{_TW - _TRIGHT}" y2="{y(threshold):.1f}" '
        f'stroke="{THRESHOLD_COLOR}" stroke-width="2" stroke-dasharray="6 4"/>',
        f'<text x="{_TW - _TRIGHT}" y="{y(threshold) - 6:.1f}" text-anchor="end" fill="{THRESHOLD_COLOR}" '
        f'class="threshold">{escape(threshold_label)} {threshold:g}</text>',
    ]
    if len(points) > 1:
        line = " ".join(f"{x(i):.1f},{y(p.value):.1f}" for i, p in enumerate(points))
        parts.append(f'<polyline points="{line}" fill="none" stroke="{LINE_COLOR}" stroke-width="2.5"/>')
    peak = max(range(len(points)), key=lambda i: points[i].value) if points else -1
    for i, p in enumerate(points):
        hot = p.value >= threshold
        dot = (f'<circle cx="{x(i):.1f}" cy="{y(p.value):.1f}" r="{7 if hot else 4.5}" '
               f'fill="{HOT_COLOR if hot else LINE_COLOR}" class="{"hot" if hot else "calm"}">'
               f"<title>{escape(p.label)}</title></circle>")
        parts.append(f'<a href="{escape(p.link)}">{dot}</a>' if p.link else dot)
        if hot or i == peak:  # the values that matter are written out, not left to a tooltip
            parts.append(f'<text x="{x(i):.1f}" y="{y(p.value) - 11:.1f}" text-anchor="middle" class="value" '
                         f'fill="{HOT_COLOR if hot else LINE_COLOR}" font-weight="600">{p.value:.1f}</text>')
    parts.append(f'<text x="{_TLEFT}" y="{base + 20}" class="end">{escape(first)}</text>'
                 f'<text x="{_TW - _TRIGHT}" y="{base + 20}" text-anchor="end" class="end">{escape(last)}</text>')
    if x_label:
        parts.append(f'<text x="{_TLEFT + width / 2:.1f}" y="{_TH - 8}" text-anchor="middle" class="axis">'
                     f"{escape(x_label)}</text>")
    parts.append("</svg>")
    return "".join(parts)


def sparkline_svg(values: Sequence[float], *, threshold: float, label: str) -> str:
    """A small line of a thread's temperature for a list: the threshold dashed, points at or above it
    in red; ``label`` (what it shows in words) is its accessible name."""
    w, h, pad = 120, 28, 3
    top = _scale(values, threshold)
    step = (w - 2 * pad) / max(1, len(values) - 1)

    def y(value: float) -> float:
        return pad + (h - 2 * pad) * (1 - min(value, top) / top)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
             f'class="spark"><title>{escape(label)}</title>',
             f'<line x1="0" y1="{y(threshold):.1f}" x2="{w}" y2="{y(threshold):.1f}" stroke="{THRESHOLD_COLOR}" '
             f'stroke-dasharray="3 2"/>']
    if len(values) > 1:
        line = " ".join(f"{pad + i * step:.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline points="{line}" fill="none" stroke="{LINE_COLOR}" stroke-width="1.5"/>')
    parts += [f'<circle cx="{pad + i * step:.1f}" cy="{y(v):.1f}" r="2.2" '
              f'fill="{HOT_COLOR if v >= threshold else LINE_COLOR}"/>'
              for i, v in enumerate(values) if v >= threshold or len(values) == 1]
    parts.append("</svg>")
    return "".join(parts)
