"""Heyan's exceptions have one root, ``HeyanError`` (here, in the lowest layer, so every package can
derive from it; the tree is in docs/ARCHITECTURE.md, "Exceptions"), and the memory layer's own under
``HeyanMemoryError``: scope, text, store (locked, embedder mismatch), embedder, config and
encryption (key config, decryption) errors.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "DecryptionError",
    "EmbedderError",
    "EmbedderMismatchError",
    "EncryptionError",
    "HeyanError",
    "HeyanMemoryError",
    "InvalidTextError",
    "KeyConfigError",
    "ScopeError",
    "StoreError",
    "StoreLockedError",
]


class HeyanError(Exception):
    """The root of every error Heyan raises on purpose: one ``except HeyanError`` takes them all."""


class HeyanMemoryError(HeyanError):
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


class EncryptionError(HeyanMemoryError):
    """Encryption at rest failed; the message names ``HEYAN_ENCRYPTION_KEYS`` and never a key."""


class KeyConfigError(EncryptionError, ValueError):
    """The encryption keys are missing, malformed, or required (distributed shape) and not set."""


class DecryptionError(EncryptionError):
    """A stored value cannot be opened: sealed with a key that is not configured, altered, or moved
    from another record."""
