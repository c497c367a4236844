"""The console's own words (``web:`` keys of the one catalog, ``bot.text.catalog``), and choosing between them for a request: the
``?lang=`` switch (remembered in a cookie), else the browser's ``Accept-Language``, else English.
Refusals from the moderation service carry their own two languages (``error.text(lang)``)."""

from __future__ import annotations

from collections.abc import Mapping

from bot.text import kinds
from bot.text.catalog import label, say
from memory.models import Fact, Lang

__all__ = ["LANG_COOKIE", "fact_kind", "kind_label", "pick_lang", "stage_label", "status_label", "t"]

LANG_COOKIE = "heyan_lang"

def t(lang: Lang, key: str, **values: object) -> str:
    """The console's text ``key`` in ``lang`` (``web:`` keys of ``bot.text.catalog``)."""
    return say(lang, f"web:{key}", **values)


def kind_label(kind: str, lang: Lang) -> str:
    """A kind by its name (a store kind, or a label of ``bot.text.kinds``) in ``lang``."""
    return label("kind", kind, lang)


def fact_kind(fact: Fact, lang: Lang) -> str:
    """A record's kind as every surface names it (``bot.text.kinds``: "claim", "agreement", …)."""
    return kinds.label_in(kinds.label(fact), lang)


def status_label(status: str, lang: Lang) -> str:
    return label("status", status, lang)


def stage_label(stage: str, lang: Lang) -> str:
    return label("stage", stage, lang)


def pick_lang(query: str | None, cookie: str | None, accept: str | None) -> Lang:
    """The switch, else the cookie, else the browser's first Chinese or English preference by weight."""
    for value in (query, cookie):
        if value in ("zh", "en"):
            return "zh" if value == "zh" else "en"
    ranked: list[tuple[float, int, Lang]] = []
    for i, part in enumerate((accept or "")[:500].split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        params_map: Mapping[str, str] = dict(p.strip().partition("=")[::2] for p in params.split(";") if "=" in p)
        try:
            weight = float(params_map.get("q", "1"))
        except ValueError:
            weight = 0.0
        low = tag.strip().lower()
        if low.startswith("zh"):
            ranked.append((weight, -i, "zh"))
        elif low.startswith("en"):
            ranked.append((weight, -i, "en"))
    return max(ranked)[2] if ranked else "en"
