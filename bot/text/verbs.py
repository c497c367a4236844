"""The base form of an English verb ("sending" → "send", "re-tracing" → "re-trace"), for an action a reply
writes after "promised to". lemminflect's tables, loaded on the first verb read."""

from __future__ import annotations

from functools import lru_cache

__all__ = ["base_form", "never_a_verb"]


@lru_cache(maxsize=4096)
def base_form(verb: str) -> str:
    """``verb``'s base form, keeping its case as typed; the word itself when the tables do not know it."""
    from lemminflect import getLemma

    lemmas = getLemma(verb.casefold(), upos="VERB")
    base = lemmas[0] if lemmas else verb
    return base.capitalize() if verb[:1].isupper() and verb[1:2].islower() else base


@lru_cache(maxsize=4096)
def never_a_verb(word: str) -> bool:
    """Does the dictionary know ``word`` only as something else ("everyone", "photos")? An unknown word
    ("venmo", "re-trace") may be a verb."""
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(word.casefold())
    return bool(lemmas) and "VERB" not in lemmas
