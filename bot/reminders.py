"""The follow-up text a reminder posts, in the commitment's language and the tenant's timezone."""

from __future__ import annotations

from datetime import tzinfo

from memory.models import Fact

__all__ = ["reminder_text"]


def _when(fact: Fact, tz: tzinfo, lang: str) -> str:
    if fact.due_at is None:
        return ""
    local = fact.due_at.astimezone(tz)
    if lang == "zh":
        return f"{local.month}月{local.day}日 {local:%H:%M}"
    return f"{local:%a %d %b %H:%M}"


def reminder_text(fact: Fact, tz: tzinfo) -> str:
    """A friendly question to the owner about progress, citing the promise and when it was made."""
    said = fact.sources[0] if fact.sources else None
    who = fact.subject_name or fact.subject
    if fact.lang == "zh":
        when = _when(fact, tz, "zh")
        due = f"（约定在{when}前）" if when else ""
        quote = f"：“{said.quote}”" if said else ""
        return f"@{who} 跟进一下之前的承诺{due}{quote}。进展如何？如果已经完成，请告诉大家一声。"
    when = _when(fact, tz, "en")
    due = f" (due {when})" if when else ""
    quote = f': "{said.quote}"' if said else ""
    return f"@{who} a gentle follow-up on your commitment{due}{quote}. How is it going? If it is done, let everyone know."
