"""The one catalog of what Heyan says (bot/text): compiled catalogs match their sources, every text is
in both languages with the same placeholders, plurals and counts are told right, and one record's kind,
status and stage read the same on the console, Discord and Slack."""

from __future__ import annotations

import io
import string
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from adapters.discord.display import translate as discord_text
from adapters.slack.display import texts as slack_text
from adapters.web.views import i18n as web_text
from bot.models import Stage
from bot.text.catalog import LOCALE, MissingText, label, say
from memory.models import FactStatus

PO = sorted(LOCALE.glob("*/LC_MESSAGES/heyan.po"))


def _catalog(lang: str):  # type: ignore[no-untyped-def]
    with (LOCALE / lang / "LC_MESSAGES" / "heyan.po").open("rb") as f:
        return read_po(f)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("po", PO, ids=lambda p: p.parts[-3])
def test_each_compiled_catalog_is_its_source_compiled(po: Path) -> None:
    with po.open("rb") as f:
        catalog = read_po(f)
    built = io.BytesIO()
    write_mo(built, catalog)
    assert po.with_suffix(".mo").read_bytes() == built.getvalue(), f"{po} changed: run `make catalogs`"


def test_every_text_is_in_english_and_chinese_with_the_same_placeholders() -> None:
    en, zh = _catalog("en"), _catalog("zh")
    assert {m.id if isinstance(m.id, str) else m.id[0] for m in en if m.id} == \
           {m.id if isinstance(m.id, str) else m.id[0] for m in zh if m.id}
    wrong = []
    for message in en:
        if not message.id:
            continue
        other = zh[message.id]
        en_forms = message.string if isinstance(message.string, tuple) else (message.string,)
        zh_forms = other.string if isinstance(other.string, tuple) else (other.string,)
        if not all(zh_forms) or not all(en_forms):
            wrong.append(f"{message.id}: empty")
        # the English "other" form holds every placeholder (its "one" form may write "1" out)
        elif {frozenset(_fields(s)) for s in zh_forms} != {frozenset(_fields(en_forms[-1]))}:
            wrong.append(f"{message.id}: {en_forms} / {zh_forms}")
    assert wrong == []


def test_plurals_and_counts_are_told_with_their_noun() -> None:
    assert say("en", "web:member.records", memories=1, summaries=1) == "1 memory, 1 summary"
    assert say("en", "web:member.records", memories=3, summaries=0) == "3 memories, 0 summaries"
    assert say("zh", "web:member.records", memories=3, summaries=1) == "3 条记忆，1 份总结"
    assert say("en", "web:erase.done", records=1, name="Bea") == "Erased 1 record of Bea."
    assert say("en", "discord:dispute.cancelled", followups=1) == "1 pending follow-up cancelled."
    assert say("en", "slack:memory.count", n=1) == "*1 memory*" and say("en", "slack:memory.count", n=2) == "*2 memories*"
    assert say("zh", "slack:memory.count", n=1) == "*共 1 条记忆*"


def test_a_key_nobody_wrote_is_an_error_not_a_blank() -> None:
    with pytest.raises(MissingText, match=r"web:no\.such\.key"):
        say("en", "web:no.such.key")
    assert label("status", "not-a-status", "zh") == "not-a-status"  # an unknown word is shown as it is


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_record_reads_the_same_on_every_surface(lang: str) -> None:
    for status in FactStatus:
        assert discord_text.status_label(status, lang) == slack_text.status_label(status.value, lang) \
            == web_text.status_label(status.value, lang)
    for kind in ("commitment", "agreement", "refusal", "claim", "consensus", "event"):
        assert discord_text.kind_label(kind, lang) == slack_text.kind_label(kind, lang) == web_text.kind_label(kind, lang)
    for stage in Stage:
        assert discord_text.stage_label(stage.value, lang) == web_text.stage_label(stage.value, lang)
    if lang == "zh":
        assert web_text.status_label("superseded", "zh") == "已取代" and web_text.stage_label("gathering", "zh") == "了解情况"


_SURFACES = {"adapters/discord": "discord", "adapters/slack": "slack", "adapters/web": "web",
             "bot/offline/templates.py": "answer"}
ROOT = Path(__file__).resolve().parents[1]
#: The functions that read the catalog for a surface, and the part of the key they add.
_CALLS = {"t": "", "_t": "card.", "card_text": "card."}
_ANSWER_CALLS = {"_t": ""}


def _calls() -> list[tuple[str, str, set[str] | None]]:
    """(where, catalog key, the names filled in — None when some are passed as **values) for every
    ``t(...)`` of a surface with a literal key, in its Python modules and web templates."""
    import ast
    import re

    found: list[tuple[str, str, set[str] | None]] = []
    for folder, prefix in _SURFACES.items():
        where = ROOT / folder
        for path in [where] if where.is_file() else sorted(where.rglob("*.py")):
            calls = _ANSWER_CALLS if prefix == "answer" else _CALLS
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in calls:
                    keys = [a.value for a in node.args[:2] if isinstance(a, ast.Constant) and isinstance(a.value, str)
                            and a.value not in ("en", "zh")]
                    names = {k.arg for k in node.keywords if k.arg}
                    starred = any(k.arg is None for k in node.keywords)
                    found += [(f"{path.relative_to(ROOT)}:{node.lineno}", f"{prefix}:{calls[node.func.id]}{key}",
                               None if starred else names)
                              for key in keys]
    for path in sorted((ROOT / "adapters/web/templates").glob("*.html")):
        for match in re.finditer(r"\bt\('([\w.]+)'((?:,\s*\w+=[^,)]+)*)\)", path.read_text(encoding="utf-8")):
            names = set(re.findall(r"(\w+)=", match.group(2)))
            found.append((path.name, f"web:{match.group(1)}", names))
    return found


def test_every_text_a_surface_asks_for_exists_and_gets_its_values() -> None:
    calls = _calls()
    assert len(calls) > 300  # the scan sees the surfaces' calls at all
    en = _catalog("en")
    wrong = []
    for where, key, names in calls:
        message = en.get(key) or en.get((key, key))
        if message is None:
            wrong.append(f"{where}: {key} is not in the catalog")
            continue
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        needed = set().union(*(_fields(s) for s in forms)) - {"n"} if names is not None else set()
        if names is not None and not needed <= names | {"n"}:
            wrong.append(f"{where}: {key} needs {sorted(needed - names)}")
    assert wrong == []
