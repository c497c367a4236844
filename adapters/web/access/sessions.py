"""Sign-in sessions of the web console, kept in Redis and sealed like every secret there.

The cookie holds a random id (HttpOnly, Secure, Lax); Redis keeps ``heyan:web:session:<sha256 of id>``
(a dump holds no live cookie), with name, platform access token and CSRF token sealed. A session ends
at ``expires_at`` (the app's clock; the TTL only cleans up) or sign-out. Does not import FastAPI.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import ClassVar, Literal

from redis.asyncio import Redis

from bot.privacy.sealing import Advance, open_fields, reseal_keys, reseal_value, seal_fields
from memory.models import utcnow
from memory.store.crypto import Cipher

__all__ = ["Kind", "SignInStates", "WebSession", "WebSessions"]

_PREFIX = "heyan:web:session:"
_STATE = "heyan:web:oauth-state:"
#: Seconds a sign-in may take between the redirect to the platform and its callback.
STATE_SECONDS = 600
Kind = Literal["operator", "discord", "slack"]


@dataclass(frozen=True, slots=True)
class WebSession:
    """One signed-in browser."""

    key: str
    kind: Kind
    user_id: str
    name: str
    csrf: str
    created_at: datetime
    expires_at: datetime
    #: The platform's OAuth access token (Discord), to ask again which servers the user moderates.
    access_token: str = ""
    #: Slack: the tenant signed in to, the workspace's domain (for links to messages) and its name.
    tenant: str = ""
    team_domain: str = ""
    team_name: str = ""


def _key(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def _context(key: str) -> str:
    return f"web-session/{key}"


class WebSessions:
    """Sessions in Redis; ``clock`` is the app's (tests move it)."""

    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_PREFIX}*",)

    def __init__(self, redis: Redis, *, cipher: Cipher | None = None, hours: float = 12.0,
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.redis = redis
        self.cipher = cipher
        self.hours = hours
        self.clock = clock

    async def create(self, kind: Kind, user_id: str, name: str, *, access_token: str = "", tenant: str = "",
                     team_domain: str = "", team_name: str = "") -> tuple[str, WebSession]:
        """A new session; returns the cookie value (never stored) and the session."""
        raw = secrets.token_urlsafe(32)
        now = self.clock()
        session = WebSession(key=_key(raw), kind=kind, user_id=user_id, name=name, csrf=secrets.token_urlsafe(32),
                             created_at=now, expires_at=now + timedelta(hours=self.hours),
                             access_token=access_token, tenant=tenant, team_domain=team_domain, team_name=team_name)
        clear = {"kind": kind, "user_id": user_id, "created_at": now.isoformat(),
                 "expires_at": session.expires_at.isoformat(), "tenant": tenant, "team_domain": team_domain,
                 "team_name": team_name}
        secret = {"name": name, "csrf": session.csrf, "access_token": access_token}
        value = seal_fields(clear, secret, self.cipher, _context(session.key))
        await self.redis.set(_PREFIX + session.key, json.dumps(value, ensure_ascii=False),
                             ex=max(60, int(self.hours * 3600)))
        return raw, session

    async def get(self, raw: str) -> WebSession | None:
        """The live session of a cookie value; None when unknown, ended or expired."""
        if not raw or len(raw) > 200:
            return None
        key = _key(raw)
        stored = await self.redis.get(_PREFIX + key)
        if stored is None:
            return None
        data = open_fields(json.loads(stored), self.cipher, _context(key))
        session = WebSession(
            key=key, kind=data["kind"], user_id=data["user_id"], name=data.get("name") or "",
            csrf=data.get("csrf") or "", created_at=datetime.fromisoformat(data["created_at"]),
            expires_at=datetime.fromisoformat(data["expires_at"]), access_token=data.get("access_token") or "",
            tenant=data.get("tenant") or "", team_domain=data.get("team_domain") or "",
            team_name=data.get("team_name") or "",
        )
        if session.expires_at <= self.clock():
            await self.redis.delete(_PREFIX + key)
            return None
        return session

    async def end(self, raw: str) -> None:
        """Sign out: the session is gone at once."""
        if raw:
            await self.redis.delete(_PREFIX + _key(raw))

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: seal every session with the first key; returns how many were rewritten."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher

        async def one(key: str) -> int:
            context = _context(key.removeprefix(_PREFIX))

            def rewrite(raw: str) -> str:
                data = open_fields(json.loads(raw), cipher, context)
                secret = {k: data.pop(k, "") for k in ("name", "csrf", "access_token")}
                return json.dumps(seal_fields(data, secret, cipher, context), ensure_ascii=False)

            return int(await reseal_value(self.redis, key, cipher, rewrite))

        return await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance, one)


class SignInStates:
    """The one-time ``state`` of a sign-in in progress (login CSRF): which platform it is for, kept
    ``STATE_SECONDS`` and taken once."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    def __repr__(self) -> str:
        return "SignInStates()"

    async def put(self, state: str, platform: str) -> None:
        await self.redis.set(_STATE + state, platform, ex=STATE_SECONDS)

    async def take(self, state: str) -> str | None:
        """The platform ``state`` was made for, once; None when unknown, expired or already used."""
        stored = await self.redis.getdel(_STATE + state)
        return stored.decode() if isinstance(stored, bytes) else stored
