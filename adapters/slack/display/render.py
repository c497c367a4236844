"""Heyan's text on Slack: structured mentions become ``<@U…>``, everything else pings nobody.

Slack notifies only on raw ``<…>`` markup, so escaping ``&``, ``<``, ``>`` in untrusted text shows it as
text, and posts go with ``link_names`` off. Untrusted text also loses control and invisible characters
(``memory.normalize.strip_controls``).
"""

from __future__ import annotations

from bot.text.richtext import RichText
from memory.normalize import strip_controls

__all__ = ["escape", "render"]


def escape(text: str) -> str:
    """Slack's three control characters, escaped as its docs require (hidden and control
    characters stripped first)."""
    return strip_controls(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render(text: RichText) -> str:
    """``text`` as Slack message text: mentions as ``<@U…>``, the rest escaped."""
    return text.render(lambda m: f"<@{escape(m.user_id)}>", escape)
