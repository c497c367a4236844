"""Why a record waits for a moderator, in words a moderator reads without the docs.

A flagged record's attribute is the rule that fired ("instruction: tells Heyan to drop its rules",
``bot.guard.poisoning.Attempt.reason``): the page says what that family of rule looks for and quotes the
rule's own words. A disputed, unverified or low-confidence record says what that status means and
what Confirm and Reject do to it. The buttons' own help is in ``i18n`` (``help.*``).
"""

from __future__ import annotations

from adapters.web.views.i18n import t
from bot.guard.poisoning import flag_of
from memory.models import Confidence, Fact, FactStatus, Lang

__all__ = ["confirm_help", "why_in_review"]


def why_in_review(fact: Fact, lang: Lang) -> list[str]:
    """Sentences saying why ``fact`` is in the review queue (none when it is not)."""
    if fact.status is FactStatus.FLAGGED:
        flag = flag_of(fact.attribute)
        rule = t(lang, f"why.rule.{flag.value}") if flag is not None else t(lang, "why.rule.other")
        detail = fact.attribute.split(":", 1)[-1].strip() if flag is not None else fact.attribute
        return [t(lang, "why.flagged", rule=rule), t(lang, "why.rule_words", detail=detail)]
    out = []
    if fact.status is FactStatus.DISPUTED:
        out.append(t(lang, "why.disputed"))
    if fact.status is FactStatus.UNVERIFIED:
        out.append(t(lang, "why.unverified"))
    if fact.confidence is Confidence.LOW and fact.status is FactStatus.ACTIVE:
        out.append(t(lang, "why.low"))
    return out


def confirm_help(fact: Fact, lang: Lang) -> str:
    """What Confirm does to this record (a flagged one is read again as an ordinary message)."""
    return t(lang, "help.confirm_flagged" if fact.status is FactStatus.FLAGGED else "help.confirm")
