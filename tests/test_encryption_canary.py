"""Encryption at rest, end to end: a secret sentence and PII-like strings go through the real runtime
in the embedded shape (conversation window, offline extraction and summary jobs, a reminder post, a
dispute opened, a moderator's edit in the audit trail), then every Redis key and value and every
file under the data dir — the embedded Valkey's append-only files included, after a rewrite and a
graceful stop — is scanned: no plaintext hit. Positive controls show the scan sees what is there."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

import adapters.runtime.composition
from adapters.runtime.composition import Runtime
from bot.actors import Actor
from bot.config.settings import (
    JobSettings,
    LimitSettings,
    LLMSettings,
    QdrantSettings,
    RedisSettings,
    Settings,
)
from bot.delivery.reminders import reminder_post_id
from bot.models import Message
from bot.text.richtext import Mention
from jobs.tasks import send_reminder
from memory.models import Kind, Scope, utcnow
from memory.store.crypto import KEY_FILE
from tests.jobs_helpers import HashEmbedder

TENANT = "console:canary"
SESSION = "thread-canary"
SECRET = "Quetzalrook hid the brass ledger beneath the ninth lantern"
NAME = "Wintermothe"
EMAIL = "wintermothe.canary@example.org"
PHONE = "13912345678"
CN_ID = "11010519491231002X"
#: What must never be found in the clear.
CANARIES = (SECRET, "Quetzalrook", "ninth lantern", NAME, EMAIL, PHONE, CN_ID)
#: Written in the clear on purpose: proves the file scan reads the append-only files.
CONTROL = b"CONTROL-PLAINTEXT-7731"


def _settings(data_dir: Path) -> Settings:
    return Settings(
        data_dir=data_dir, timezone="UTC", store="edge", redis=RedisSettings(url=None),
        qdrant=QdrantSettings(url=None), llm=LLMSettings(base_url=None, api_key=None),
        limits=LimitSettings(enabled=False),
        jobs=JobSettings(batch_turns=1, idle_seconds=1, summary_turns=2, job_timeout=10),
    )  # fmt: skip


def _msg(n: int, user: str, name: str, text: str) -> Message:
    return Message(id=f"m{n}", scope=Scope(tenant=TENANT, session=SESSION, user=user), author_name=name,
                   text=text, ts=utcnow() - timedelta(minutes=10 - n))  # fmt: skip


async def _redis_dump(redis: Redis) -> bytes:
    """Every key and every value of every type, as bytes."""
    out: list[bytes] = []
    async for key in redis.scan_iter(count=500):
        out.append(key)
        kind = (await redis.type(key)).decode()
        value: Any
        if kind == "string":
            value = [await redis.get(key)]
        elif kind == "hash":
            value = [b for kv in (await redis.hgetall(key)).items() for b in kv]  # type: ignore[misc]
        elif kind == "list":
            value = await redis.lrange(key, 0, -1)  # type: ignore[misc]
        elif kind == "set":
            value = list(await redis.smembers(key))  # type: ignore[misc]
        elif kind == "zset":
            value = [m for m, _ in await redis.zrange(key, 0, -1, withscores=True)]
        elif kind == "stream":
            value = [b for _, fields in await redis.xrange(key) for kv in fields.items() for b in kv]
        elif kind == "none":
            # gone between SCAN and TYPE (an arq job finished, a lease expired — seen on a busy machine): it holds
            # nothing any more; what is read is still checked, and SCAN reports every key present throughout
            value = []
        else:
            raise AssertionError(f"unexpected Redis type {kind} for {key!r}")
        out += [v if isinstance(v, bytes) else str(v).encode() for v in value if v is not None]
    return b"\n".join(out)


def _files(root: Path) -> Iterator[Path]:
    return (p for p in root.rglob("*") if p.is_file() and not p.is_socket())


def _hits(blob: bytes) -> list[str]:
    return [c for c in CANARIES if c.encode() in blob]


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded default: no HEYAN_ENCRYPTION_KEYS (the key file), a cheap embedder."""
    monkeypatch.delenv("HEYAN_ENCRYPTION_KEYS", raising=False)
    monkeypatch.setattr(adapters.runtime.composition, "build_embedder", lambda _s: HashEmbedder())


async def _write_everything(rt: Runtime) -> str:
    """Drive every path that stores member text; returns the commitment's id."""
    said = [
        (1, "u-alice", NAME, f"I promise to send the Quetzalrook brass ledger to Bob by Friday. {SECRET}. "
                             f"Mail me at {EMAIL} or call {PHONE}."),
        (2, "u-bob", "Bob", f"I want the Quetzalrook ledger back before the market opens. My id is {CN_ID}."),
        (3, "u-alice", NAME, f"I am furious that Bob said {SECRET} in public."),
        (4, "u-bob", "Bob", "We agreed the Quetzalrook ledger stays with the ninth lantern keeper."),
    ]
    for n, user, name, text in said:
        assert await rt.engine.observe(_msg(n, user, name, text))
    await rt.drain()
    operator = Actor.operator(TENANT)
    summary = await rt.moderation.dispute_summary(operator, SESSION)
    assert summary is not None and "Quetzalrook" in summary.text  # the summary job's output holds it
    facts = await rt.memory.list_facts(Scope(tenant=TENANT))
    assert any("Quetzalrook" in f.value for f in facts), [f.value for f in facts]  # read back: decrypted
    promise = next(f for f in facts if f.kind is Kind.COMMITMENT and "Quetzalrook" in f.value)
    ctx = {"heyan": rt.services, "redis": rt.redis, "max_tries": 3}
    assert await send_reminder(ctx, TENANT, promise.id, promise.version) == "queued"
    post = await rt.outbox.get(reminder_post_id(promise))
    assert post is not None and "Quetzalrook" in post.post.body.plain()
    await rt.moderation.dispute_open(operator, SESSION, title=f"The ledger: {SECRET}",
                                     members=[Mention("u-alice", NAME), Mention("u-bob", "Bob")])
    edited = await rt.moderation.memory_edit(operator, promise.id, f"{SECRET}, edited", reason=f"{NAME} asked")
    entries = await rt.moderation.audit_log(operator)
    assert any(e.after and SECRET in str(e.after) for e in entries)  # the audit holds it, sealed
    assert (await rt.sessions.get(TENANT, SESSION)).title.endswith(SECRET)  # type: ignore[union-attr]
    return edited.id


async def test_no_plaintext_anywhere_under_the_data_dir_or_in_redis(tmp_path: Path, embedded: None) -> None:
    data = tmp_path / "data"
    rt = await Runtime.start(_settings(data), worker=True)
    try:
        fact_id = await _write_everything(rt)
        dump = await _redis_dump(rt.redis)
        assert b"heyan:msg:" in dump and b"heyan:outbox:post:" in dump and b"heyan:audit:" in dump
        assert _hits(dump) == []
        # the append-only files: a rewrite (the base file) and then more writes (the increment)
        await rt.redis.bgrewriteaof()
        for _ in range(200):
            info = await rt.redis.info("persistence")
            if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]:
                break
            await rt.redis.execute_command("PING")
        assert await rt.engine.observe(_msg(5, "u-alice", NAME, f"Once more: {SECRET}, {EMAIL}."))
        await rt.drain()
        await rt.redis.set("heyan:test:control", CONTROL)
        assert _hits(await _redis_dump(rt.redis)) == []
    finally:
        await rt.stop()  # Valkey stops gracefully (the append-only file is flushed), the store flushes

    files = list(_files(data))
    assert any("appendonly" in p.name or p.suffix == ".aof" for p in files), files
    assert any(CONTROL in p.read_bytes() for p in files), "the scan must see the append-only files"
    leaks = {str(p.relative_to(data)): _hits(p.read_bytes()) for p in files}
    assert {p: h for p, h in leaks.items() if h} == {}

    key_file = data / KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # the same data dir starts again with its key file, and everything is readable
    rt = await Runtime.start(_settings(data), worker=False)
    try:
        fact = await rt.memory.get(Scope(tenant=TENANT), fact_id)
        assert fact is not None and fact.value.startswith(SECRET)
        window = await rt.window.recent(Scope(tenant=TENANT, session=SESSION))
        # the address was redacted before it was stored (bot.privacy.redaction); the name was sealed
        assert any("[EMAIL_1]" in m.text for m in window) and all(EMAIL not in m.text for m in window)
        assert any(m.author_name == NAME for m in window)
    finally:
        await rt.stop()
