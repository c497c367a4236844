"""Sealed values in Redis: the helpers the components that keep member text there share.

Each component seals its own free text with the process's cipher and keeps ids, times and states
clear. Shared here: opening a value that may predate encryption, the compare-and-set key rotation
writes with (never an older copy over a newer value), and the key marker that tells at start whether
the configured keys can read what is stored.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, ClassVar, Protocol, TypeVar

from redis.asyncio import Redis

from memory.errors import DecryptionError, KeyConfigError
from memory.models import Scope
from memory.ports import MemoryStore, RecordFilter
from memory.store.codec import PayloadCodec
from memory.store.crypto import ENV, Cipher

__all__ = [
    "MARKER",
    "SEALED",
    "Advance",
    "Resealable",
    "check_keys",
    "check_marker",
    "needs_reseal",
    "open_fields",
    "reseal_hash_field",
    "reseal_keys",
    "reseal_value",
    "scan",
    "seal_fields",
    "write_marker",
]

#: The key of a JSON value holding its sealed fields.
SEALED = "sealed"
#: Records which key last sealed everything (written at first start and after a finished rotation).
MARKER = "heyan:crypto:marker"
_MARKER_CONTEXT = "marker"
_MARKER_TEXT = b"heyan"

#: Called once per key visited by a rotation (a progress bar's ``advance``).
Advance = Callable[[int], object]

T = TypeVar("T")


class Resealable(Protocol):
    """A component keeping sealed member text in Redis: the keys it keeps it under, and key rotation."""

    SEALED_PATTERNS: ClassVar[tuple[str, ...]]

    async def reseal(self, advance: Advance) -> int:
        """Seal every value with the first key; returns how many were rewritten."""
        ...

_CAS_SET = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""

_CAS_HSET = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""


async def _aw(value: Awaitable[T] | T) -> T:
    return await value if inspect.isawaitable(value) else value


def seal_fields(data: dict[str, Any], secret: dict[str, Any], cipher: Cipher | None, context: str) -> dict[str, Any]:
    """``data`` with ``secret`` sealed under ``SEALED`` (or merged in the clear without a cipher)."""
    if cipher is None:
        return {**data, **secret}
    return {**data, SEALED: cipher.seal_json(secret, context)}


def open_fields(data: dict[str, Any], cipher: Cipher | None, context: str) -> dict[str, Any]:
    """``data`` with its sealed fields opened; a value from before encryption is returned as it is."""
    token = data.get(SEALED)
    if token is None:
        return data
    if cipher is None:
        raise DecryptionError(f"the stored value of {context} is encrypted, but no keys are configured ({ENV})")
    opened: dict[str, Any] = cipher.open_json(token, context)
    return {**{k: v for k, v in data.items() if k != SEALED}, **opened}


def needs_reseal(raw: str, cipher: Cipher) -> bool:
    """True when a stored JSON value is not sealed with the first key (in the clear, or an older key)."""
    token = _sealed_token(raw)
    return token is None or not cipher.is_current(token)


def _sealed_token(raw: str) -> str | None:
    # cheap: a value that cannot hold a token is not parsed
    if f'"{SEALED}"' not in raw:
        return None
    value = json.loads(raw)
    token = value.get(SEALED) if isinstance(value, dict) else None
    return token if isinstance(token, str) else None


async def scan(redis: Redis, pattern: str) -> AsyncIterator[str]:
    """Every key matching ``pattern``, as text."""
    async for key in redis.scan_iter(match=pattern, count=500):
        yield key.decode() if isinstance(key, bytes) else str(key)


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


async def reseal_keys(
    redis: Redis, pattern: str, advance: Advance, reseal_one: Callable[[str], Awaitable[int]]
) -> int:
    """Key rotation over every key matching ``pattern``: ``reseal_one(key)`` each (how many it
    rewrote), ``advance(1)`` per key visited; returns the total rewritten."""
    written = 0
    async for key in scan(redis, pattern):
        written += await reseal_one(key)
        advance(1)
    return written


async def reseal_value(redis: Redis, key: str, cipher: Cipher, rewrite: Callable[[str], str]) -> bool:
    """Rotate one string value: ``rewrite`` (decode, then encode with the first key) is applied and
    written only if the value is still the one read (compare-and-set, TTL kept). True if rewritten."""
    raw = _text(await redis.get(key))
    if raw is None or not needs_reseal(raw, cipher):
        return False
    return bool(await redis.eval(_CAS_SET, 1, key, raw, rewrite(raw)))  # type: ignore[misc]


async def reseal_hash_field(
    redis: Redis, key: str, field: str, cipher: Cipher, rewrite: Callable[[str], str]
) -> bool:
    """``reseal_value`` for one field of a hash."""
    raw = _text(await _aw(redis.hget(key, field)))
    if raw is None or not needs_reseal(raw, cipher):
        return False
    return bool(await redis.eval(_CAS_HSET, 1, key, field, raw, rewrite(raw)))  # type: ignore[misc]


# --- the key marker ----------------------------------------------------------------------------


async def check_marker(redis: Redis, cipher: Cipher) -> None:
    """At start: the configured keys must open the marker (which names the oldest key data may
    still be sealed with: a rotation rewrites it only once everything is under the first key).
    Written on the first start. ``KeyConfigError`` when the keys cannot read what is stored."""
    raw = _text(await redis.get(MARKER))
    if raw is None:
        await redis.set(MARKER, cipher.seal(_MARKER_TEXT, _MARKER_CONTEXT), nx=True)
        return
    try:
        cipher.open(raw, _MARKER_CONTEXT)
    except DecryptionError:
        kid = Cipher.sealed_with(raw) or "unknown"
        raise KeyConfigError(
            f"the data here was encrypted with key {kid}, which {ENV} does not hold (it holds "
            f"{', '.join(cipher.key_ids)}): set {ENV} to the keys this data was written with "
            f"(new key first), or restore <data>/keys/heyan.key"
        ) from None


async def write_marker(redis: Redis, cipher: Cipher) -> None:
    """After a finished rotation: everything is sealed with the first key, older keys may go."""
    await redis.set(MARKER, cipher.seal(_MARKER_TEXT, _MARKER_CONTEXT))


async def check_keys(redis: Redis, store: MemoryStore, codec: PayloadCodec) -> None:
    """At start, before anything is read or written: the keys open the marker and one stored fact
    (a wrong key fails here, in one line, not in the middle of a reply)."""
    assert codec.cipher is not None
    await check_marker(redis, codec.cipher)
    tenants = await store.tenants("facts")
    if not tenants:
        return
    hits, _ = await store.scroll("facts", Scope(tenant=tenants[0]), RecordFilter(), 1)
    for hit in hits:
        try:
            codec.fact_from_payload(hit.payload)
        except DecryptionError as exc:
            raise KeyConfigError(f"{exc}") from None
