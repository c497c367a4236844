"""Key rotation (``heyan keys rotate``): killed half way and run again, every record stays readable,
ends under the new key without re-embedding, and the old key can then be dropped; records written
before encryption are read and sealed by it; a start with keys that cannot read the data is refused in
one line naming HEYAN_ENCRYPTION_KEYS."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from rich.progress import Progress

import adapters.runtime.composition
from adapters.cli.keys_cli import rotate
from adapters.runtime.composition import Runtime, StartupError
from bot.actors import Actor
from bot.conversation import MessageLog
from bot.delivery.outbox import Outbox, Post
from bot.models import Message
from bot.privacy.audit import AuditEntry, AuditLog
from bot.sessions import SessionBook, SessionInfo
from bot.text.richtext import RichText
from memory.index.sparse import Bm25Encoder
from memory.models import Fact, Kind, Scope, Summary, utcnow
from memory.ports import DENSE, RecordFilter, VectorQuery
from memory.recall.retrieval import index_facts
from memory.store.codec import PLAIN
from memory.store.crypto import Cipher, key_id, parse_keys
from tests.jobs_helpers import HashEmbedder, settings
from tests.keys import OTHER_KEY, TEST_KEY
from tests.rebuild_helpers import Interrupt, quiet

OLD, NEW = TEST_KEY, OTHER_KEY
OLD_ID, NEW_ID = key_id(parse_keys(OLD)[0]), key_id(parse_keys(NEW)[0])
T = "discord:rot"
S = "thread-1"


class CountingEmbedder(HashEmbedder):
    calls = 0

    async def embed(self, texts: Any) -> list[list[float]]:
        CountingEmbedder.calls += len(texts)
        return await super().embed(texts)


@pytest.fixture(autouse=True)
def counting_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adapters.runtime.composition, "build_embedder", lambda _s: CountingEmbedder())


def _settings(tmp_path: Path, redis_url: str, keys: str) -> Any:
    s = settings(tmp_path / "data", redis_url)
    return s.model_copy(update={"privacy": s.privacy.model_copy(update={"encryption_keys": SecretStr(keys)})})


def _fact(n: int, value: str) -> Fact:
    return Fact(tenant=T, session=S, kind=Kind.DEMAND, subject=f"u{n % 3}", subject_name=f"Name {n}",
                attribute=f"wants thing {n}", value=value, asserted_by=f"u{n % 3}", users=(f"u{n % 3}",)).with_id()


@dataclass
class Snapshot:
    facts: list[Fact]
    summary: Summary | None
    window: list[Message]
    posts: list[Any]
    session: SessionInfo | None
    audit: list[AuditEntry]


async def _snapshot(rt: Runtime) -> Snapshot:
    return Snapshot(
        facts=await rt.memory.list_facts(Scope(tenant=T)),
        summary=await rt.memory.summary(Scope(tenant=T, session=S)),
        window=await rt.window.recent(Scope(tenant=T, session=S)),
        posts=[await rt.outbox.get(i) for i in ("post-sealed", "post-legacy")],
        session=await rt.sessions.get(T, S),
        audit=await rt.audit.entries(T, limit=100),
    )


async def _seed(rt: Runtime) -> None:
    """Records under the old key, and records written before encryption (in the clear)."""
    await rt.memory.remember([_fact(n, f"the sealed value {n}") for n in range(12)])
    await rt.memory.save_summary(Summary(tenant=T, session=S, text="they argued about the fence"))
    for n in range(3):
        msg = Message(id=f"m{n}", scope=Scope(tenant=T, session=S, user="u1"), author_name="Ann",
                      text=f"sealed message {n}", ts=utcnow())
        await rt.window.append(msg)
    await rt.outbox.append(Post(id="post-sealed", tenant=T, session=S, body=RichText.of("a sealed post")))
    operator = Actor.operator(T)
    await rt.moderation.dispute_open(operator, S, title="the fence", announce=False)
    facts = await rt.memory.list_facts(Scope(tenant=T))
    await rt.moderation.memory_edit(operator, facts[0].id, "an edited value", reason="fixing a typo in the value")
    # written before encryption existed: the plain codec and components without a cipher
    legacy = [_fact(100 + n, f"the legacy value {n}") for n in range(3)]
    await index_facts(rt.store, rt.embedder, Bm25Encoder(), legacy, codec=PLAIN)
    await MessageLog(rt.redis).append(Message(id="legacy-msg", scope=Scope(tenant=T, session=S, user="u2"),
                                                      author_name="Bo", text="legacy message", ts=utcnow()))
    await Outbox(rt.redis).append(Post(id="post-legacy", tenant=T, session=S, body=RichText.of("a legacy post")))
    await SessionBook(rt.redis).put(SessionInfo(tenant=T, session="thread-legacy", title="legacy title"))
    await AuditLog(rt.redis).record(AuditEntry(tenant=T, actor_id="op", actor_name="Old Op", action="memory.edit",
                                               target=legacy[0].id, reason="legacy reason",
                                               before={"value": "x"}, after={"value": "legacy after"}))


async def _keys_in_store(rt: Runtime) -> set[str | None]:
    found: set[str | None] = set()
    for layer in ("facts", "summaries"):
        hits, _ = await rt.store.scroll(layer, Scope(tenant=T), RecordFilter(), 1000)  # type: ignore[arg-type]
        found |= {rt.codec.sealed_with(h.payload) for h in hits}
    return found


async def _redis_blob(rt: Runtime) -> bytes:
    from tests.test_encryption_canary import _redis_dump

    return await _redis_dump(rt.redis)


def _fail_after(n: int, real: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    calls = 0

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls > n:
            raise Interrupt(f"killed after {n} writes")
        return await real(*args, **kwargs)

    return wrapper


@pytest.mark.parametrize("where", ["store", "redis"])
async def test_rotation_killed_half_way_then_resumed(tmp_path: Path, redis_url: str, where: str) -> None:
    rt = await Runtime.start(_settings(tmp_path, redis_url, OLD), worker=False)
    try:
        await _seed(rt)
        before = await _snapshot(rt)
    finally:
        await rt.stop()
    assert len(before.facts) == 15 and before.summary is not None and len(before.window) == 4
    assert all(before.posts) and before.session is not None and len(before.audit) == 3

    # the new key first, the old one after it; the processes restart; rotate is killed half way
    rt = await Runtime.start(_settings(tmp_path, redis_url, f"{NEW},{OLD}"), worker=False)
    try:
        assert await _snapshot(rt) == before
        if where == "store":
            rt.store.set_payload = _fail_after(4, rt.store.set_payload)  # type: ignore[method-assign]
        else:
            rt.redis.eval = _fail_after(2, rt.redis.eval)  # type: ignore[method-assign]
        with pytest.raises(Interrupt), Progress(console=quiet()) as progress:
            await rotate(rt, progress)
        assert await _snapshot(rt) == before  # nothing unreadable in between
        assert NEW_ID in await _keys_in_store(rt)
    finally:
        await rt.stop()
    # a start with only the new key is refused while the rotation is unfinished
    with pytest.raises(StartupError, match="HEYAN_ENCRYPTION_KEYS") as refused:
        await Runtime.start(_settings(tmp_path, redis_url, NEW), worker=False)
    assert "\n" not in str(refused.value) and OLD not in str(refused.value) and OLD_ID in str(refused.value)

    rt = await Runtime.start(_settings(tmp_path, redis_url, f"{NEW},{OLD}"), worker=False)
    try:
        embedded = CountingEmbedder.calls
        with Progress(console=quiet()) as progress:
            report = await rotate(rt, progress)
        assert report.total > 0 and CountingEmbedder.calls == embedded  # payload-only: nothing re-embedded
        assert await _keys_in_store(rt) == {NEW_ID}
        blob = await _redis_blob(rt)
        assert f"hy1.{OLD_ID}.".encode() not in blob
        for clear in (b"legacy message", b"a legacy post", b"legacy title", b"legacy reason", b"legacy after",
                      b"sealed message", b"the fence", b"fixing a typo in the value"):
            assert clear not in blob, clear
        hits, _ = await rt.store.scroll("facts", Scope(tenant=T), RecordFilter(), 1000)
        assert all(h.payload.get("value") is None and h.payload.get("text") is None for h in hits)
        with Progress(console=quiet()) as progress:
            assert (await rotate(rt, progress)).total == 0  # a finished rotation writes nothing again
    finally:
        await rt.stop()

    # the old key can go now
    rt = await Runtime.start(_settings(tmp_path, redis_url, NEW), worker=False)
    try:
        assert await _snapshot(rt) == before
        target = before.facts[5]
        [vector] = await rt.embedder.embed([target.embed_text()])
        [found] = await rt.store.search("facts", Scope(tenant=T), RecordFilter(), [VectorQuery(DENSE, dense=vector)], 1)
        assert found[0].id == target.id  # the vectors were kept
    finally:
        await rt.stop()


async def test_a_wrong_key_is_refused_in_one_line(tmp_path: Path, redis_url: str) -> None:
    rt = await Runtime.start(_settings(tmp_path, redis_url, OLD), worker=False)
    try:
        await rt.memory.remember([_fact(1, "a value")])
    finally:
        await rt.stop()
    with pytest.raises(StartupError) as refused:
        await Runtime.start(_settings(tmp_path, redis_url, NEW), worker=False)
    message = str(refused.value)
    assert "HEYAN_ENCRYPTION_KEYS" in message and OLD_ID in message and "\n" not in message
    assert OLD not in message and NEW not in message
    assert Cipher(parse_keys(NEW)).primary == NEW_ID
