"""Reading a thread's acts in order: one embedding batch, then each line with the act before it."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

import numpy as np

from bot.acts.features import Line, cheap, stack
from bot.acts.labels import ACTS, Act
from bot.acts.model import ActModel, ActModelError
from bot.extraction.candidates import Utterance
from memory.errors import EmbedderError

__all__ = ["ActReader", "Embed", "default_reader", "thread_acts", "thread_distributions", "thread_scores"]

log = logging.getLogger(__name__)

#: A blocking batch embedder: texts → one vector each (``LocalEmbedder.embed_sync``).
Embed = Callable[[list[str]], list[list[float]]]
#: Characters of a line the classifier reads (acts are said early; the rest is detail).
_READ = 300


def _text(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()[:_READ] or "."


class ActReader:
    """The acts of a sequence of lines, each read with the act of the line before it."""

    def __init__(self, model: ActModel, embed: Embed) -> None:
        self.model = model
        self.embed = embed

    def read(self, lines: Sequence[Line], speakers: Sequence[str]) -> list[Act]:
        """One act per line; ``speakers`` (one per line) says whether a line follows its own speaker."""
        return [act for act, _ in self.scored(lines, speakers)]

    def scored(self, lines: Sequence[Line], speakers: Sequence[str]) -> list[tuple[Act, float]]:
        """One (act, its probability) per line."""
        return [(ACTS[int(p.argmax())], float(p.max())) for p in self.distributions(lines, speakers)]

    def distributions(self, lines: Sequence[Line], speakers: Sequence[str]) -> list[np.ndarray]:
        """Each line's probability of every act (``ACTS`` order), read after the act of the line before."""
        if not lines:
            return []
        vectors = self.embed([_text(x.text) for x in lines])
        out: list[np.ndarray] = []
        for i, (line, vector) in enumerate(zip(lines, vectors, strict=True)):
            previous = ACTS[int(out[-1].argmax())] if out else None
            same = bool(i) and speakers[i] == speakers[i - 1]
            out.append(self.model.probabilities(stack([vector], [cheap(line, previous, same_speaker=same)]))[0])
        return out


def thread_acts(reader: ActReader, thread: Sequence[Utterance]) -> list[Act]:
    """The acts of a thread of messages, each read after the ones before it."""
    return [act for act, _ in thread_scores(reader, thread)]


def thread_scores(reader: ActReader, thread: Sequence[Utterance]) -> list[tuple[Act, float]]:
    """(act, probability) of each message of a thread, each read after the ones before it."""
    return [(ACTS[int(p.argmax())], float(p.max())) for p in thread_distributions(reader, thread)]


def thread_distributions(reader: ActReader, thread: Sequence[Utterance]) -> list[np.ndarray]:
    """Each message's probability of every act (``ACTS`` order), each read after the ones before it."""
    names = {u.author_name for u in thread if u.author_name}
    lines = [Line(u.text, addressed=u.addressed,
                  names_other=any(n != u.author_name and len(n) >= 2 and n in u.text for n in names)) for u in thread]
    return reader.distributions(lines, [u.author_id for u in thread])


_DEFAULT: list[ActReader | None] = []


def default_reader() -> ActReader | None:
    """The reader over the committed weights and the shipped local embedder (USE multilingual), built
    once; None when either is unavailable — extraction then runs on its rules alone."""
    if not _DEFAULT:
        reader: ActReader | None = None
        try:
            from memory.index.embedders import line_vectors

            model = ActModel.load()
            reader = ActReader(model, line_vectors())
        except (ActModelError, EmbedderError) as exc:
            log.warning("dialogue acts are off (rules only): %s", exc)
        _DEFAULT.append(reader)
    return _DEFAULT[0]
