"""Every string the Slack adapter shows people: the ``slack:`` keys of the one catalog
(``bot.text.catalog``). Values filled in are untrusted (names, quotes, memory values): callers escape
them for Slack (``adapters.slack.display.render.escape``) first, as the templates are sent as mrkdwn."""

from __future__ import annotations

from typing import Any

from bot.text.catalog import label, say
from memory.models import Lang

__all__ = ["kind_label", "status_label", "t"]


def t(key: str, lang: Lang, **values: Any) -> str:
    """The Slack text ``key`` in ``lang`` (``slack:`` keys of ``bot.text.catalog``; ``n`` picks the plural)."""
    return say(lang, f"slack:{key}", **values)


def kind_label(kind: str, lang: Lang) -> str:
    """A fact kind as shown to people: a label of ``bot.text.kinds`` ("agreement") or a store kind."""
    return label("kind", kind, lang)


def status_label(status: str, lang: Lang) -> str:
    """A fact status (``disputed``) as shown to people."""
    return label("status", status, lang)
