"""Heyan's text on Slack: structured mentions become ``<@U…>``, everything else pings nobody.

Slack turns ``<!channel>``, ``<!here>``, ``<!everyone>``, ``<!subteam^…>`` and ``<@U…>`` into
notifications, and it reads them only as raw ``<…>`` markup. Escaping ``&``, ``<`` and ``>`` in
untrusted text (quotes, names, LLM output) makes such markup show as plain text; plain-text words
like "@channel" notify nobody when posts are sent with ``link_names`` off, which Heyan always does.
Untrusted text also loses its control characters, escape sequences and bidi or zero-width
characters (``memory.normalize.strip_controls``): members read it, so they are removed.
"""

from __future__ import annotations

from bot.richtext import RichText
from memory.normalize import strip_controls

__all__ = ["escape", "render"]


def escape(text: str) -> str:
    """Slack's three control characters, escaped as its docs require (hidden and control
    characters stripped first)."""
    return strip_controls(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render(text: RichText) -> str:
    """``text`` as Slack message text: mentions as ``<@U…>``, the rest escaped."""
    return text.render(lambda m: f"<@{escape(m.user_id)}>", escape)
