"""A terminal that members' text cannot drive.

``SafeConsole`` is the rich console every ``heyan`` command prints through: each string's control and
invisible characters are written as visible escapes (``memory.normalize.escape_controls``) before
layout, and any text arriving otherwise is escaped as rendered; rich's own styling is untouched.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.markup import escape as escape_markup
from rich.segment import Segment
from rich.text import Text

from memory.normalize import escape_controls

__all__ = ["SafeConsole", "escape_controls", "shown"]


def shown(text: str) -> str:
    """Member text for a line printed with rich markup on: controls made visible and ``[`` escaped,
    so neither the terminal nor rich's markup reads it as instructions."""
    return escape_markup(escape_controls(text))


class SafeConsole(Console):
    """A rich ``Console`` that never writes a control or invisible character it was given as text."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(escape_controls(text), **kwargs)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not segment.text:
                yield segment
            else:
                yield Segment(escape_controls(segment.text), segment.style, segment.control)
