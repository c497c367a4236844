"""Every word Heyan shows people, from one gettext catalog per language
(``bot/text/locale/<lang>/LC_MESSAGES/heyan.po``, compiled by ``make catalogs``, read with the stdlib).

Keys name a surface or vocabulary (``web:…``, ``discord:…``, ``kind:claim``, ``command:<name>``). Plural
keys take ``n``; values fill with ``str.format``, and a number in a placeholder named after a ``count:``
word (``{memories}``) is told with its noun: "1 memory", "3 条记忆".
"""

from __future__ import annotations

import functools
import gettext
from pathlib import Path

from memory.errors import HeyanError

__all__ = ["LOCALE", "MissingText", "has", "label", "say", "translated"]

#: Where the catalogs live.
LOCALE = Path(__file__).resolve().parent / "locale"
DOMAIN = "heyan"


class MissingText(HeyanError, KeyError):
    """A key the catalog does not hold: a code path asks for words nobody wrote."""


@functools.cache
def _catalog(lang: str) -> gettext.GNUTranslations:
    try:
        found = gettext.translation(DOMAIN, LOCALE, languages=[lang])
    except OSError as exc:
        raise MissingText(f"no compiled catalog for {lang!r} under {LOCALE}; run `make catalogs`") from exc
    assert isinstance(found, gettext.GNUTranslations)
    return found


def translated(key: str, lang: str) -> str | None:
    """The catalog's text for ``key`` in ``lang`` (any locale with a catalog: en, zh, zh_TW), or None."""
    text = _catalog(lang).gettext(key)
    return None if text == key else text


def has(key: str) -> bool:
    return translated(key, "en") is not None


def say(lang: str, key: str, /, **values: object) -> str:
    """The text ``key`` in ``lang`` (zh, else English), its plural form chosen by ``n`` when given."""
    catalog = _catalog("zh" if lang == "zh" else "en")
    n = values.get("n")
    text = catalog.ngettext(key, key, n) if isinstance(n, int) else key
    if text == key:
        text = catalog.gettext(key)
    if text == key:
        raise MissingText(f"no text {key!r} in the catalog ({LOCALE})")
    if not values:
        return text
    return text.format(**{name: _counted(catalog, name, value) for name, value in values.items()})


def _counted(catalog: gettext.GNUTranslations, name: str, value: object) -> object:
    """``value`` told as a count of ``name`` when the catalog has that noun, else as it is."""
    if not isinstance(value, int) or isinstance(value, bool):
        return value
    key = f"count:{name}"
    text = catalog.ngettext(key, key, value)
    return value if text == key else text.format(n=value)


def label(vocabulary: str, name: str, lang: str) -> str:
    """A word of a vocabulary (``kind``, ``status``, ``stage``, ``permission``) in ``lang``; a name
    the vocabulary does not hold is shown as it is."""
    key = f"{vocabulary}:{name}"
    return say(lang, key) if has(key) else name
