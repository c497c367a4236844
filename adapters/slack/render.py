"""Heyan's text on Slack: structured mentions become ``<@U…>``, everything else pings nobody.

Slack turns ``<!channel>``, ``<!here>``, ``<!everyone>``, ``<!subteam^…>`` and ``<@U…>`` into
notifications, and it reads them only as raw ``<…>`` markup. Escaping ``&``, ``<`` and ``>`` in
untrusted text (quotes, names, LLM output) makes such markup show as plain text; plain-text words
like "@channel" notify nobody when posts are sent with ``link_names`` off, which Heyan always does.
"""

from __future__ import annotations

from bot.richtext import RichText

__all__ = ["escape", "render"]


def escape(text: str) -> str:
    """Slack's three control characters, escaped as its docs require."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render(text: RichText) -> str:
    """``text`` as Slack message text: mentions as ``<@U…>``, the rest escaped."""
    return text.render(lambda m: f"<@{escape(m.user_id)}>", escape)
