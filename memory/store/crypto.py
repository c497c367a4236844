"""Encryption at rest: the one cipher for every free-text value Heyan stores, and where its keys come from.

AES-256-GCM, not Fernet: each value is sealed with the identity of its record as associated data, so a
ciphertext copied onto another record does not open. Format ``hy1.<key id>.<…>``; keys from
``HEYAN_ENCRYPTION_KEYS`` (the first seals, all open), else the embedded shape's ``<data>/keys/heyan.key``
(made 0600 at first start); the distributed shape refuses to start without them. Errors name the
variable, never a key. More: docs/DEPLOY.md, "Encryption at rest".
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from memory.errors import DecryptionError, KeyConfigError

__all__ = [
    "ENV",
    "KEY_FILE",
    "TOKEN_PREFIX",
    "Cipher",
    "generate_key",
    "key_id",
    "load_cipher",
    "parse_keys",
    "read_or_create_key_file",
]

log = logging.getLogger(__name__)

#: The environment variable holding the keys.
ENV = "HEYAN_ENCRYPTION_KEYS"
#: The embedded shape's key file, relative to the data dir.
KEY_FILE = Path("keys") / "heyan.key"
#: Every sealed value starts with this (format version 1).
TOKEN_PREFIX = "hy1."
_KEY_BYTES = 32
_NONCE_BYTES = 12


def key_id(key: bytes) -> str:
    """A short public name for a key (8 hex characters of a hash): shown in errors and status,
    written in every sealed value; it cannot be turned back into the key."""
    return hashlib.sha256(b"heyan key id\x00" + key).hexdigest()[:8]


def generate_key() -> str:
    """A new random key in the form ``HEYAN_ENCRYPTION_KEYS`` takes."""
    return base64.urlsafe_b64encode(os.urandom(_KEY_BYTES)).decode()


def parse_keys(text: str, where: str = ENV) -> list[bytes]:
    """The keys of a comma-separated list; ``KeyConfigError`` naming ``where`` and the key's position
    (never its value) for an empty, malformed or wrong-sized one. Repeats are dropped."""
    keys: list[bytes] = []
    parts = [p.strip() for p in text.split(",")]
    for n, part in enumerate(parts, 1):
        if not part:
            raise KeyConfigError(f"{where}: key {n} of {len(parts)} is empty; give comma-separated keys "
                                 f"from `heyan keys generate`")
        try:
            raw = base64.b64decode(part + "=" * (-len(part) % 4), altchars=b"-_", validate=True)
        except (binascii.Error, ValueError):
            raise KeyConfigError(f"{where}: key {n} of {len(parts)} is not url-safe base64; make one with "
                                 f"`heyan keys generate`") from None
        if len(raw) != _KEY_BYTES:
            raise KeyConfigError(f"{where}: key {n} of {len(parts)} is {len(raw)} bytes, a key is "
                                 f"{_KEY_BYTES}; make one with `heyan keys generate`")
        if raw not in keys:
            keys.append(raw)
    return keys


class Cipher:
    """AES-256-GCM with a key list: the first key seals, every key opens. ``context`` is the
    associated data (the record's identity): a value opens only with the context it was sealed with.

    The repr shows key ids only; the keys themselves are never exposed.
    """

    __slots__ = ("_keys", "_pseudonym_key", "primary")

    def __init__(self, keys: Sequence[bytes]) -> None:
        if not keys:
            raise KeyConfigError(f"{ENV}: no key given; make one with `heyan keys generate`")
        self._keys: dict[str, AESGCM] = {}
        for key in keys:
            if len(key) != _KEY_BYTES:
                raise KeyConfigError(f"{ENV}: a key is {len(key)} bytes, a key is {_KEY_BYTES}")
            self._keys.setdefault(key_id(key), AESGCM(key))
        #: The id of the key that seals.
        self.primary: str = key_id(keys[0])
        self._pseudonym_key = hmac.new(keys[0], b"heyan pseudonym", hashlib.sha256).digest()

    def __repr__(self) -> str:
        return f"Cipher(keys={list(self._keys)!r})"

    @property
    def key_ids(self) -> tuple[str, ...]:
        """Every configured key's id, the sealing one first."""
        return tuple(self._keys)

    # --- sealing -------------------------------------------------------------------------------

    def seal(self, data: bytes, context: str) -> str:
        """``data`` sealed with the first key, bound to ``context``."""
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._keys[self.primary].encrypt(nonce, data, context.encode())
        return f"{TOKEN_PREFIX}{self.primary}.{base64.urlsafe_b64encode(nonce + sealed).decode().rstrip('=')}"

    def open(self, token: str, context: str) -> bytes:
        """The data of a sealed value; ``DecryptionError`` when it is not one, its key is not
        configured, or it was altered or sealed for another context (record)."""
        kid, body = self._split(token, context)
        aead = self._keys.get(kid)
        if aead is None:
            raise DecryptionError(
                f"{_what(context)} was encrypted with key {kid}, which is not in {ENV} (it holds "
                f"{', '.join(self._keys)}): add that key back, then run `heyan keys rotate`"
            )
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
            return aead.decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], context.encode())
        except (InvalidTag, binascii.Error, ValueError):
            raise DecryptionError(
                f"{_what(context)} failed authentication with key {kid}: it was altered or copied from "
                f"another record (check {ENV} and restore the data from a backup)"
            ) from None

    def seal_json(self, value: Any, context: str) -> str:
        return self.seal(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(), context)

    def open_json(self, token: str, context: str) -> Any:
        return json.loads(self.open(token, context))

    # --- rotation ------------------------------------------------------------------------------

    @staticmethod
    def sealed_with(token: str) -> str | None:
        """The id of the key that sealed ``token``; None when it is not a sealed value."""
        if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
            return None
        kid, dot, _ = token[len(TOKEN_PREFIX):].partition(".")
        return kid if dot else None

    def is_current(self, token: str) -> bool:
        """True when ``token`` is sealed with the first key (rotation leaves it alone)."""
        return self.sealed_with(token) == self.primary

    def pseudonym(self, text: str) -> str:
        """A keyed, stable stand-in for a name that must stay filterable but not readable (a fact's
        subject that is not a user id): equal names give equal pseudonyms under one key."""
        digest = hmac.new(self._pseudonym_key, text.encode(), hashlib.sha256).hexdigest()[:16]
        return f"~{digest}"

    def _split(self, token: str, context: str) -> tuple[str, str]:
        kid = self.sealed_with(token)
        if kid is None:
            raise DecryptionError(f"{_what(context)} holds no value sealed by Heyan ({ENV})")
        return kid, token[len(TOKEN_PREFIX) + len(kid) + 1:]


def _what(context: str) -> str:
    return f"the stored value of {context}"


# --- where the keys come from --------------------------------------------------------------------


def read_or_create_key_file(path: Path) -> str:
    """The key list in ``path``; on the first start a new key is written there with mode 0600 (its
    folder 0700). Created through a temporary file and a hard link, so two starts racing never
    write two different keys: the second reads the first's."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise KeyConfigError(f"cannot read the key file {path}: {exc.strerror}; fix it or set {ENV}") from exc
    if text:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            log.warning("the key file %s was readable by others (mode %o); set to 0600", path, mode)
            path.chmod(0o600)
        return text
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, (generate_key() + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another start won the race: its key is the one, read below
        finally:
            tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise KeyConfigError(f"cannot create the key file {path}: {exc.strerror}; fix the data dir or set "
                             f"{ENV}") from exc
    log.warning("created a new encryption key in %s: back it up with the data dir (without it the "
                "memories cannot be read)", path)
    return path.read_text(encoding="utf-8").strip()


def load_cipher(keys: str | None, data_dir: Path, *, distributed: bool) -> Cipher:
    """The cipher of a Heyan process: from ``keys`` (``HEYAN_ENCRYPTION_KEYS``) when set; else, in the
    embedded shape, from the key file under ``data_dir``; the distributed shape refuses without keys."""
    if keys and keys.strip():
        return Cipher(parse_keys(keys))
    if distributed:
        raise KeyConfigError(
            f"{ENV} is not set: with HEYAN_QDRANT_URL or HEYAN_REDIS_URL every process must share the "
            f"encryption keys; set {ENV} (make one with `heyan keys generate`)"
        )
    path = data_dir / KEY_FILE
    return Cipher(parse_keys(read_or_create_key_file(path), where=f"{ENV} (from {path})"))
