"""A small bar chart of kept and overdue commitments per week, as inline SVG drawn on the server.

No JavaScript and no chart library: two bars per week, their counts as text, and a ``<title>`` and
``<desc>`` so a screen reader gets the same numbers. Only numbers and dates reach the markup, and
the labels are escaped anyway."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from bot.moderation import WeekTally

__all__ = ["weeks_svg"]

_W, _H = 560, 180
_TOP, _BOTTOM, _LEFT = 16, 34, 8
KEPT_COLOR = "#2e7d32"
OVERDUE_COLOR = "#c62828"


def weeks_svg(weeks: Sequence[WeekTally], *, title: str, kept_label: str, overdue_label: str) -> str:
    """The chart as an ``<svg>`` element (a string of markup safe to insert as is)."""
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
    legend_y = _H - 4
    parts.append(f'<rect x="{_LEFT}" y="{legend_y - 9}" width="10" height="10" fill="{KEPT_COLOR}"/>'
                 f'<text x="{_LEFT + 14}" y="{legend_y}" font-size="11">{escape(kept_label)}</text>'
                 f'<rect x="{_LEFT + 110}" y="{legend_y - 9}" width="10" height="10" fill="{OVERDUE_COLOR}"/>'
                 f'<text x="{_LEFT + 124}" y="{legend_y}" font-size="11">{escape(overdue_label)}</text>')
    parts.append("</svg>")
    return "".join(parts)
