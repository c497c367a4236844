"""A terminal that members' text cannot drive.

Names, quotes, values and replies reach the moderator's terminal from members who may have typed
escape sequences (clear screen, colours, a window title), NUL, BEL or bidi overrides. ``SafeConsole``
is the rich console every ``heyan`` command prints through: each string it renders has its control
and invisible characters written as visible escapes (``memory.normalize.escape_controls``) before
layout, so a table still lines up, and any text that reaches it by another road (a ``Text``, pretty
JSON) is escaped as its segments are rendered. Rich's own styling is not text and is untouched.
The views escape their cells too (``adapters.views``), so a plain rich ``Console`` is safe for them.
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
