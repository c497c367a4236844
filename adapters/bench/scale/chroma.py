"""Chroma, as ``heyan bench load`` drives it: the same vectors, a tenant metadata field, and a dense
top-k query filtered by tenant.

Optional (``pip install -e '.[bench]'``), imported only when asked for. An embedded
``PersistentClient`` (closest to Heyan's store) given precomputed vectors, no telemetry; it has no
BM25, so the comparison is dense-only.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["ChromaDense", "chroma_missing"]

#: Rows per ``add`` call: Chroma caps a batch (by SQLite's variable limit); 1,000 stays well below it.
ADD_BATCH = 1000


def chroma_missing() -> str | None:
    """Why Chroma cannot run here (None when it can)."""
    if importlib.util.find_spec("chromadb") is None:
        return "chromadb is not installed: pip install -e '.[bench]'"
    return None


class ChromaDense:
    """One Chroma collection of facts with cosine HNSW, written and queried per tenant."""

    name = "chroma"

    def __init__(self, path: Path) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        self.path = path
        self._client: Any = chromadb.PersistentClient(
            path=str(path), settings=ChromaSettings(anonymized_telemetry=False)
        )
        self._collection: Any = self._client.create_collection(
            "facts", metadata={"hnsw:space": "cosine"}, embedding_function=None
        )

    def add(
        self, ids: Sequence[str], vectors: Any, tenants: Sequence[str], documents: Sequence[str]
    ) -> None:
        """Write rows (``vectors``: a float32 array with one row per id)."""
        for start in range(0, len(ids), ADD_BATCH):
            stop = start + ADD_BATCH
            self._collection.add(
                ids=list(ids[start:stop]),
                embeddings=vectors[start:stop],
                metadatas=[{"tenant": t} for t in tenants[start:stop]],
                documents=list(documents[start:stop]),
            )

    def query(self, tenant: str, vector: Sequence[float], k: int) -> list[str]:
        """Ids of the ``k`` nearest rows of ``tenant``."""
        result = self._collection.query(
            query_embeddings=[list(vector)], n_results=k, where={"tenant": tenant}, include=["distances"]
        )
        return [str(i) for i in result["ids"][0]]

    def close(self) -> None:
        # PersistentClient writes as it goes; dropping the reference releases its files.
        self._collection = None
        self._client = None
