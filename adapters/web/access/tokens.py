"""API tokens for scripts: scoped to one tenant, optionally read-only, revocable, stored hashed.

``heyan web token create --tenant T`` prints ``heyan_<id>_<secret>`` once. Redis keeps
``heyan:web:token:<id>``: tenant, scope and times clear, label and the secret's SHA-256 sealed; never
the secret. Revoking deletes the key (next request: 401). Importing this does not import FastAPI.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from redis.asyncio import Redis

from bot.actors import OPERATOR_ID
from bot.privacy.sealing import Advance, open_fields, reseal_keys, reseal_value, scan, seal_fields
from memory.errors import HeyanError
from memory.models import utcnow
from memory.store.crypto import Cipher

__all__ = ["ApiToken", "ApiTokens", "TokenError"]

_PREFIX = "heyan:web:token:"
_FORM = re.compile(r"heyan_([0-9a-f]{8})_([A-Za-z0-9_-]{20,100})")
#: Longest label kept (it is shown in listings and audit entries).
MAX_LABEL = 100


class TokenError(HeyanError, ValueError):
    """A token command was given something it cannot use; the message says what to give."""


@dataclass(frozen=True, slots=True)
class ApiToken:
    """One API token (never its secret): what it may touch and who made it when."""

    id: str
    tenant: str
    label: str
    read_only: bool
    created_at: datetime
    created_by: str

    @property
    def actor_id(self) -> str:
        """The user id its requests act as (in audit entries)."""
        return f"token:{self.id}"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _context(token_id: str) -> str:
    return f"web-token/{token_id}"


class ApiTokens:
    """The API tokens in Redis."""

    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_PREFIX}*",)

    def __init__(self, redis: Redis, *, cipher: Cipher | None = None) -> None:
        self.redis = redis
        self.cipher = cipher

    async def create(self, tenant: str, *, label: str = "", read_only: bool = False,
                     created_by: str = OPERATOR_ID) -> tuple[ApiToken, str]:
        """A new token for ``tenant``; returns it and the text to hand over (shown only now)."""
        tenant = tenant.strip()
        if not tenant or ":" not in tenant:
            raise TokenError(f"a token needs a tenant such as discord:<guild id> or slack:<team id>; got {tenant!r}")
        label = " ".join(label.split())
        if len(label) > MAX_LABEL:
            raise TokenError(f"the label is {len(label)} characters; keep it to {MAX_LABEL}")
        token_id = secrets.token_hex(4)
        secret = secrets.token_urlsafe(32)
        token = ApiToken(id=token_id, tenant=tenant, label=label, read_only=read_only, created_at=utcnow(),
                         created_by=created_by)
        clear = {"id": token_id, "tenant": tenant, "read_only": read_only,
                 "created_at": token.created_at.isoformat(), "created_by": created_by}
        value = seal_fields(clear, {"label": label, "digest": _digest(secret)}, self.cipher, _context(token_id))
        if not await self.redis.set(_PREFIX + token_id, json.dumps(value, ensure_ascii=False), nx=True):
            raise TokenError("a token with that id exists already; run the command again")  # 1 in 4 billion
        return token, f"heyan_{token_id}_{secret}"

    async def _read(self, token_id: str) -> tuple[ApiToken, str] | None:
        raw = await self.redis.get(_PREFIX + token_id)
        if raw is None:
            return None
        data = open_fields(json.loads(raw), self.cipher, _context(token_id))
        token = ApiToken(id=data["id"], tenant=data["tenant"], label=data.get("label") or "",
                         read_only=bool(data.get("read_only")), created_at=datetime.fromisoformat(data["created_at"]),
                         created_by=data.get("created_by") or "")
        return token, str(data.get("digest") or "")

    async def check(self, presented: str) -> ApiToken | None:
        """The token ``presented`` is, or None when it is malformed, unknown or revoked."""
        match = _FORM.fullmatch(presented.strip())
        if match is None:
            return None
        found = await self._read(match.group(1))
        if found is None:
            return None
        token, digest = found
        return token if secrets.compare_digest(digest, _digest(match.group(2))) else None

    async def list(self, tenant: str | None = None) -> list[ApiToken]:
        """Every token (of ``tenant`` when given), oldest first."""
        out = []
        async for key in scan(self.redis, f"{_PREFIX}*"):
            found = await self._read(key.removeprefix(_PREFIX))
            if found is not None and (tenant is None or found[0].tenant == tenant):
                out.append(found[0])
        return sorted(out, key=lambda t: (t.created_at, t.id))

    async def revoke(self, token_id: str) -> bool:
        """Delete a token by its id (the 8 characters after ``heyan_``); False when there was none."""
        token_id = token_id.strip().removeprefix("heyan_")[:8]
        if not re.fullmatch(r"[0-9a-f]{8}", token_id):
            raise TokenError(f"a token id is 8 hexadecimal characters (see `heyan web token list`); got {token_id!r}")
        return bool(await self.redis.delete(_PREFIX + token_id))

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: seal every token with the first key; returns how many were rewritten."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher

        async def one(key: str) -> int:
            context = _context(key.removeprefix(_PREFIX))

            def rewrite(raw: str) -> str:
                data = open_fields(json.loads(raw), cipher, context)
                secret = {"label": data.pop("label", ""), "digest": data.pop("digest", "")}
                return json.dumps(seal_fields(data, secret, cipher, context), ensure_ascii=False)

            return int(await reseal_value(self.redis, key, cipher, rewrite))

        return await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance, one)
