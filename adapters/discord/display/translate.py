"""Heyan's words on Discord, from the one catalog (``bot.text.catalog``): command names and
descriptions (``command:``/``describe:``, through ``app_commands.Translator`` at sync) and every
member-facing string (``discord:``, ``t(lang, key, **values)``).

Names stay English by default (Chinese clients see zh-CN/zh-TW names; option names stay English).
Text follows ``Actor.lang``: the tenant's setting, else the interaction's, else the guild's locale.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.text import kinds
from bot.text.catalog import has, label, say, translated
from memory.models import Fact, FactStatus, Kind, Lang

__all__ = ["HeyanTranslator", "kind_label", "permission_label", "stage_label", "status_label", "t"]

_NAME_LOCATIONS = frozenset({app_commands.TranslationContextLocation.command_name,
                             app_commands.TranslationContextLocation.group_name})
_DESCRIPTION_LOCATIONS = frozenset({app_commands.TranslationContextLocation.command_description,
                                    app_commands.TranslationContextLocation.group_description,
                                    app_commands.TranslationContextLocation.parameter_description})


class HeyanTranslator(app_commands.Translator):
    """Chinese names and descriptions for the slash commands; None (Discord shows the English
    default) for every other locale and for strings without a translation."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        catalog = _CATALOGS.get(locale)
        if catalog is None:
            return None
        if context.location in _NAME_LOCATIONS:
            return translated(f"command:{string.message}", catalog)
        if context.location in _DESCRIPTION_LOCATIONS:
            return translated(f"describe:{string.message}", catalog)
        return None


#: The catalogs Discord's Chinese clients read command names from.
_CATALOGS = {discord.Locale.chinese: "zh", discord.Locale.taiwan_chinese: "zh_TW"}


def t(lang: Lang, key: str, **values: object) -> str:
    """The member-facing string ``key`` in ``lang`` (``discord:`` keys of ``bot.text.catalog``)."""
    return say(lang, f"discord:{key}", **values)


def permission_label(name: str, lang: Lang) -> str:
    """A Discord permission as the client names it (``send_messages_in_threads`` -> "Send Messages in Threads")."""
    if has(f"permission:{name}"):
        return say(lang, f"permission:{name}")
    return name.replace("_", " ").title() if lang != "zh" else name


def kind_label(kind: Kind | Fact | str, lang: Lang) -> str:
    """A record's kind as every surface names it (``bot.text.kinds``): a Fact gives agreement/refusal/claim."""
    if isinstance(kind, Fact):
        return kinds.label_in(kinds.label(kind), lang)
    return label("kind", kind.value if isinstance(kind, Kind) else kind, lang)


def status_label(status: FactStatus, lang: Lang) -> str:
    return label("status", status.value, lang)


def stage_label(stage: str, lang: Lang) -> str:
    return label("stage", stage, lang)
