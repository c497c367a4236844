"""API tokens and sign-in sessions in Redis: only a digest of a token is kept, sealed; key rotation
re-seals them (``heyan keys rotate``); malformed or revoked tokens never pass."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from redis.asyncio import Redis

from adapters.web.access.sessions import WebSessions
from adapters.web.access.tokens import ApiTokens, TokenError
from memory.errors import DecryptionError
from memory.models import utcnow
from memory.store.crypto import Cipher


@pytest.fixture
async def redis(redis_url: str) -> Redis:
    return Redis.from_url(redis_url)


def _key() -> bytes:
    return os.urandom(32)


async def test_token_checks_revokes_and_refuses_what_it_should(redis: Redis) -> None:
    store = ApiTokens(redis, cipher=Cipher([_key()]))
    token, text = await store.create("discord:1", label="nightly export", read_only=True)
    assert (await store.check(text)) == token
    assert await store.check(text[:-1] + ("A" if text[-1] != "A" else "B")) is None  # a wrong secret
    assert await store.check("heyan_nothex!_" + "x" * 43) is None and await store.check("") is None
    assert [t.id for t in await store.list("discord:1")] == [token.id] and await store.list("slack:T") == []
    raw = await redis.get(f"heyan:web:token:{token.id}")
    assert b"nightly" not in raw and text.split("_", 2)[2].encode() not in raw
    assert await store.revoke(token.id) and await store.check(text) is None
    assert not await store.revoke(token.id)
    with pytest.raises(TokenError, match="8 hexadecimal"):
        await store.revoke("../*")
    with pytest.raises(TokenError, match="tenant"):
        await store.create("nothing")


async def test_rotation_reseals_tokens_and_sessions(redis: Redis) -> None:
    old, new = _key(), _key()
    tokens = ApiTokens(redis, cipher=Cipher([old]))
    sessions = WebSessions(redis, cipher=Cipher([old]))
    _, text = await tokens.create("discord:1")
    raw, _ = await sessions.create("discord", "42", "Mo", access_token="secret-token")
    both = Cipher([new, old])
    assert await ApiTokens(redis, cipher=both).reseal(lambda _: None) == 1
    assert await WebSessions(redis, cipher=both).reseal(lambda _: None) == 1
    assert await ApiTokens(redis, cipher=both).reseal(lambda _: None) == 0  # nothing left to do
    assert await ApiTokens(redis, cipher=Cipher([new])).check(text) is not None  # the old key can go
    session = await WebSessions(redis, cipher=Cipher([new])).get(raw)
    assert session is not None and session.access_token == "secret-token"
    with pytest.raises(DecryptionError):
        await ApiTokens(redis, cipher=Cipher([old])).check(text)


async def test_session_ends_at_its_time_and_at_sign_out(redis: Redis) -> None:
    now = [utcnow()]
    sessions = WebSessions(redis, cipher=Cipher([_key()]), hours=1, clock=lambda: now[0])
    raw, made = await sessions.create("slack", "U1", "Sue", tenant="slack:T1")
    assert (await sessions.get(raw)) == made
    now[0] += timedelta(minutes=61)
    assert await sessions.get(raw) is None
    raw, _ = await sessions.create("slack", "U1", "Sue")
    await sessions.end(raw)
    assert await sessions.get(raw) is None and await sessions.get("x" * 500) is None
