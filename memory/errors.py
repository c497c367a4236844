"""The memory layer's exceptions, one tree.

    MemoryError_ (HeyanMemoryError)
    ├── ScopeError            a call without a tenant, or a record outside the call's scope
    ├── InvalidTextError      empty or whitespace text to store or embed
    ├── StoreError            the vector store failed or is unreachable
    │   ├── StoreLockedError      another process holds the embedded store
    │   └── EmbedderMismatchError the collection was built with another embedder
    ├── EmbedderError         the embedder failed (model missing, endpoint down, bad reply)
    └── ConfigError           an unknown store or embedder name in settings
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "EmbedderError",
    "EmbedderMismatchError",
    "HeyanMemoryError",
    "InvalidTextError",
    "ScopeError",
    "StoreError",
    "StoreLockedError",
]


class HeyanMemoryError(Exception):
    """Base of every error raised by ``memory``."""


class ScopeError(HeyanMemoryError, ValueError):
    """A store call came without a tenant scope, or touched records of another tenant."""


class InvalidTextError(HeyanMemoryError, ValueError):
    """Text to store or embed was empty or whitespace."""


class StoreError(HeyanMemoryError):
    """The vector store failed or could not be reached."""


class StoreLockedError(StoreError):
    """Another process holds the embedded store's data directory."""


class EmbedderMismatchError(StoreError):
    """A collection was built with a different embedder (name or dimension) than the one configured."""


class EmbedderError(HeyanMemoryError):
    """The embedder failed: model missing, endpoint unreachable or a malformed reply."""


class ConfigError(HeyanMemoryError, ValueError):
    """Settings name an unknown store or embedder."""
