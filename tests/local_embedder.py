"""The local embedder, loaded once (~1.5 s) per test run and shared by every test module.

Each module wraps it in its own session fixture (importing a fixture trips ruff's F811)::

    @pytest.fixture(scope="session")
    def local_embedder() -> LocalEmbedder:
        return shared_local_embedder()
"""

from __future__ import annotations

import functools

from memory.index.embedders import LocalEmbedder


@functools.cache
def shared_local_embedder() -> LocalEmbedder:
    embedder = LocalEmbedder(threads=1)
    embedder.load()
    return embedder
