"""Erasure, end to end: a dispute replayed through the real embedded runtime (Qdrant Edge, the embedded
Valkey, the in-process worker, a connected platform) with one distinctive member — a display name and
sentences holding marker words found nowhere else — then her own erasure and its second pass, then a
scan of every store for anything of hers:

* the Qdrant store: every fact and summary of every tenant, decrypted, history included;
* Redis: every key and every value of every type, with every sealed value opened with the test's key
  (AES-GCM opened as counter mode, so no value escapes for want of its context);
* through their own APIs: the outbox (every post, whatever its state), the dead letters (their sealed
  details opened), the audit stream (entries and details), disputes;
* every file under the data dir — the store's files, Valkey's append-only files after a rewrite, and
  the process's log (INFO and above) written there.

Positive controls run the same scan before the erasure and find her in each store.

What is allowed to remain: opaque ids — her user id (the tombstone's key, audit entries' actor and
``users`` ids, the erasure's own audit entry, arq job ids), message and record ids, digests of message
texts — and what the other members wrote themselves (here, none of it names her or uses her words).
Sealed (encrypted) copies of erased payloads remain in Qdrant's write-ahead log and payload pages
until Qdrant compacts them: no plaintext, but they open with the keys; the test allows them there and
nowhere else (Valkey's append-only files, rewritten, hold none).
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher as RawCipher
from cryptography.hazmat.primitives.ciphers import algorithms, modes

import adapters.runtime.composition
from adapters.runtime.composition import Runtime
from adapters.runtime.logs import TextFormatter
from bot.actors import Actor, Capability
from bot.config.settings import (
    JobSettings,
    LimitSettings,
    LLMSettings,
    QdrantSettings,
    RedisSettings,
    Settings,
)
from bot.delivery.deliverer import DeliveryError
from bot.delivery.outbox import Post, PostKind
from bot.models import Message
from bot.text.richtext import Mention, RichText
from jobs import admin
from jobs.tasks import forget_user, send_reminder
from jobs.worker import resilient
from memory.models import Kind, Scope, Visibility, utcnow
from memory.ports import RecordFilter
from memory.store.crypto import KEY_FILE, parse_keys
from tests.jobs_helpers import HashEmbedder
from tests.test_encryption_canary import _files, _redis_dump

TENANT = "console:erasure"
SESSION, SIDE = "thread-dispute", "thread-side"
NAME = "Orlaith Brackenridge"
HER = "u-orlaith"
MARKERS = ("Thistlecrown", "glimmerfen", "Vorpalheart", "quillowbrook")
CANARIES = (NAME, "Orlaith", "Brackenridge", *MARKERS)
#: Control markers: Bob's own words, which must stay (the scan is not just finding nothing).
BOBS = "rota"
#: Where Qdrant keeps sealed copies of deleted payloads until it compacts them.
_QDRANT_FILES = re.compile(r"qdrant/(facts|summaries)/(wal/open-\d+|segments/[^/]+/payload_storage/page_\d+\.dat)")


def _settings(data_dir: Path) -> Settings:
    return Settings(
        data_dir=data_dir, timezone="UTC", store="edge", redis=RedisSettings(url=None),
        qdrant=QdrantSettings(url=None), llm=LLMSettings(base_url=None, api_key=None),
        limits=LimitSettings(enabled=False), window_size=4,
        jobs=JobSettings(batch_turns=1, idle_seconds=1, summary_turns=2, job_timeout=10, max_tries=2),
    )  # fmt: skip


class Platform:
    """The console platform: accepts every post but one, which it refuses for good (a dead post)."""

    platform = "console"

    def __init__(self) -> None:
        self.sent: list[Post] = []

    async def send(self, post: Post) -> str:
        if post.id.startswith("notice:refused"):
            raise DeliveryError("the thread was deleted", permanent=True)
        self.sent.append(post)
        return f"platform-{len(self.sent)}"


# --- the scan ------------------------------------------------------------------------------------

_TOKEN = re.compile(rb"hy1\.([0-9a-f]{8})\.([A-Za-z0-9_-]+)")


def _opened(blob: bytes, keys: dict[str, bytes]) -> bytes:
    """Every sealed value in ``blob`` opened: AES-GCM's ciphertext is AES-CTR from the counter block
    nonce ‖ 2, so the text reads back without knowing what record it was bound to."""
    out: list[bytes] = []
    for match in _TOKEN.finditer(blob):
        key = keys.get(match.group(1).decode())
        if key is None:
            continue
        body = match.group(2)
        if len(body) % 4 == 1:  # in a binary file the token may run into a following word: not base64
            body = body[:-1]
        raw = base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))
        if len(raw) <= 12:
            continue  # cut before its ciphertext (a token split across a binary page): nothing to read
        # a token cut short keeps no tag: read what ciphertext there is (CTR opens any prefix)
        nonce, ciphertext = raw[:12], (raw[12:-16] if len(raw) >= 12 + 16 + 1 else raw[12:])
        decryptor = RawCipher(algorithms.AES(key), modes.CTR(nonce + b"\x00\x00\x00\x02")).decryptor()
        out.append(decryptor.update(ciphertext) + decryptor.finalize())
    return b"\n".join(out)


def _hits(blob: bytes | str) -> list[str]:
    data = blob.encode() if isinstance(blob, str) else blob
    return [c for c in CANARIES if c.encode() in data or c.encode("unicode_escape") in data]


async def _stores(rt: Runtime, keys: dict[str, bytes]) -> dict[str, bytes]:
    """What every store holds, opened, one blob per store."""
    out: dict[str, bytes] = {}
    records: list[str] = []
    for layer in ("facts", "summaries"):
        for tenant in await rt.store.tenants(layer):  # type: ignore[arg-type]
            offset: str | None = None
            while True:
                hits, offset = await rt.store.scroll(layer, Scope(tenant=tenant), RecordFilter(), 256, offset)  # type: ignore[arg-type]
                records += [rt.codec.decode(layer, h.payload).model_dump_json() for h in hits]  # type: ignore[arg-type]
                if offset is None:
                    break
    out["qdrant (decrypted)"] = "\n".join(records).encode()
    dump = await _redis_dump(rt.redis)
    out["redis"] = dump
    out["redis (sealed values opened)"] = _opened(dump, keys)
    posts = [await rt.outbox.get(k.decode().removeprefix("heyan:outbox:post:"))
             async for k in rt.redis.scan_iter(match="heyan:outbox:post:*")]
    out["outbox"] = json.dumps([[p.post.body.to_json(), p.error] for p in posts if p], ensure_ascii=False).encode()
    dead = await admin.dead_letters(rt.redis, rt.services.dead_letters)
    out["dead letters"] = json.dumps([[d.error, d.detail] for d in dead], ensure_ascii=False).encode()
    entries = await rt.audit.entries(TENANT, limit=10_000)
    out["audit"] = json.dumps([e.as_dict() for e in entries], ensure_ascii=False, default=str).encode()
    sessions = await rt.sessions.tenant_sessions(TENANT)
    out["disputes"] = json.dumps([[s.title, s.close_reason] for s in sessions], ensure_ascii=False).encode()
    return out


def _leaks(blobs: dict[str, bytes]) -> dict[str, list[str]]:
    return {name: hits for name, blob in blobs.items() if (hits := _hits(blob))}


def _keys(data: Path) -> dict[str, bytes]:
    from memory.store.crypto import key_id

    return {key_id(k): k for k in parse_keys((data / KEY_FILE).read_text().strip())}


# --- the replay ----------------------------------------------------------------------------------

def _msg(n: int, user: str, name: str, text: str, *, session: str = SESSION, mention: bool = False) -> Message:
    return Message(id=f"m{n}", scope=Scope(tenant=TENANT, session=session, user=user), author_name=name,
                   text=text, ts=utcnow() - timedelta(minutes=60 - n), mention=mention)


async def _replay(rt: Runtime) -> None:
    """The dispute: everything that stores member text, with her in every part of it."""
    said: Iterable[tuple[int, str, str, str, str]] = [
        (0, "u-bob", "Bob", "Good morning, let us talk about the garden.", SESSION),
        (1, "u-bob", "Bob", "I want the shared garden rota settled by Friday.", SESSION),
        (2, HER, NAME, "I promise to return the Thistlecrown ledger to Bob by Friday.", SESSION),
        (3, HER, NAME, "I want the glimmerfen lantern back before the market opens.", SESSION),
        (4, "u-bob", "Bob", "We agreed the rota starts next Monday.", SESSION),
        (5, HER, NAME, "I am furious about the Vorpalheart incident.", SESSION),
        # …and a relation of hers (issue 23 item 5): "she complained about the quillowbrook fence"
        (6, HER, NAME, "I want the quillowbrook fence repaired this week. I complained about the quillowbrook fence.",
         SIDE),
    ]
    for n, user, name, text, session in said:
        assert await rt.engine.observe(_msg(n, user, name, text, session=session))
        await rt.drain()  # as a live thread: each message's jobs run before the next message
    await rt.engine.flush(Scope(tenant=TENANT, session=SIDE))  # the side thread goes quiet: summarised
    await rt.drain()
    mine = Actor(tenant=TENANT, user_id=HER, name=NAME)
    moderator = Actor(tenant=TENANT, user_id="u-mod", name="Mo", capabilities=frozenset({Capability.MODERATE}))
    facts = await rt.memory.list_facts(Scope(tenant=TENANT, user=HER))
    promise = next(f for f in facts if f.kind is Kind.COMMITMENT)
    assert any(f.kind is Kind.RELATION and f.subject == HER and f.target == "quillowbrook fence" for f in facts)
    wanted = next(f for f in facts if "glimmerfen" in f.value and f.kind is not Kind.RELATION)
    # the follow-up is posted (sent), a notice about her is refused for good (dead)
    ctx = {"heyan": rt.services, "redis": rt.redis, "max_tries": 2}
    assert await send_reminder(ctx, TENANT, promise.id, promise.version) == "queued"
    await rt.deliver_now()  # sent before the edit below (a new version withdraws an unsent follow-up)
    await rt.outbox.append(Post(id="notice:refused", tenant=TENANT, session=SESSION, kind=PostKind.NOTICE,
                                body=RichText.of(Mention(HER, NAME), " about the Vorpalheart incident")))
    # she asks; Bob asks about her: both answers go out through the outbox
    for n, user, name in ((7, HER, NAME), (8, "u-bob", "Bob")):
        ask = _msg(n, user, name, "@Heyan what did we agree and who promised what?", mention=True)
        reply = await rt.engine.handle(ask)
        assert reply is not None
        await rt.outbox.append(Post(id=f"reply:{TENANT}:{ask.id}", tenant=TENANT, session=SESSION, body=reply.body,
                                    kind=PostKind.REPLY, ref={"reply_to": ask.id}))
    # a dispute she opened, her own correction, a moderator's edit naming her
    await rt.sessions.open(TENANT, SESSION, title="Orlaith and the Thistlecrown ledger", opened_by=HER,
                           members=["u-bob"], visibility=Visibility.PUBLIC)
    await rt.moderation.correct(mine, wanted.id, "the glimmerfen lantern, polished", reason="glimmerfen typo")
    await rt.moderation.memory_edit(moderator, promise.id, "return the Thistlecrown ledger on Friday",
                                    reason=f"{NAME} clarified")

    # a job that read her words and failed for good (an LLM's invalid output quoting her)
    async def extract_memories(ctx: dict[str, Any], tenant: str, session: str, ids: list[str]) -> None:
        raise ValueError("output invalid: 'Vorpalheart incident, says Orlaith'")

    with pytest.raises(Exception):  # noqa: B017 (the job's own failure)
        await resilient(extract_memories)({**ctx, "job_try": 2, "job_id": f"extract:{TENANT}:{SESSION}:x"},
                                          TENANT, SESSION, ["m5"])
    # Bob goes on: her messages leave the window, the summary carries them forward
    for n in range(9, 14):
        assert await rt.engine.observe(_msg(n, "u-bob", "Bob", f"The rota for week {n} is pinned.", session=SESSION))
    await rt.drain()


async def test_after_erasure_nothing_of_the_member_is_left_in_any_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HEYAN_ENCRYPTION_KEYS", raising=False)
    monkeypatch.setattr(adapters.runtime.composition, "build_embedder", lambda _s: HashEmbedder())
    data = tmp_path / "data"
    (data / "logs").mkdir(parents=True)
    handler = logging.FileHandler(data / "logs" / "heyan.log", encoding="utf-8")
    handler.setFormatter(TextFormatter())
    handler.setLevel(logging.INFO)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    platform = Platform()
    rt = await Runtime.start(_settings(data), worker=True, senders=[platform])
    try:
        await _replay(rt)
        keys = _keys(data)
        scope = Scope(tenant=TENANT, session=SESSION)
        summary = await rt.memory.summary(scope)
        assert summary is not None and HER in summary.users
        assert all(m.author_id != HER for m in await rt.window.recent(scope))  # scrolled out, still summarised
        before = _leaks(await _stores(rt, keys))
        # positive controls: the scan finds her in every store before the erasure
        assert set(before) >= {"qdrant (decrypted)", "redis (sealed values opened)", "outbox", "dead letters",
                               "audit", "disputes"}, before
        assert "redis" not in before  # …and only sealed (encryption at rest holds)
        assert any(p.id.startswith("remind:") for p in platform.sent)

        mine = Actor(tenant=TENANT, user_id=HER, name=NAME)
        ticket = await rt.moderation.request_erasure(mine)
        report = await rt.moderation.erase_member(mine, ticket.token)
        # the dispute's summary goes back to the version before her first message; the side thread's,
        # all hers, goes
        assert report.facts >= 4 and (report.summaries_rewritten, report.summaries_deleted) == (1, 1)
        assert report.posts >= 4 and report.audit_entries >= 3 and report.dead_letters == 1
        assert report.disputes == 1 and report.messages == 5
        # the second pass, as the deferred job runs it once in-flight jobs are done
        await forget_user({"heyan": rt.services, "redis": rt.redis, "max_tries": 2}, TENANT, HER)
        # life goes on: Bob talks, summaries are written again from what is left
        for n in range(20, 24):
            assert await rt.engine.observe(_msg(n, "u-bob", "Bob", f"The rota for day {n} is fine.", session=SESSION))
        await rt.engine.flush(scope)
        await rt.drain()
        rewritten = await rt.memory.summary(scope)
        assert rewritten is not None and not rewritten.stale and BOBS in rewritten.text

        after = await _stores(rt, keys)
        assert _leaks(after) == {}
        # her relation went with her, and no relation names her or holds her as asserter
        assert not [f for f in await rt.memory.list_facts(Scope(tenant=TENANT))
                    if f.kind is Kind.RELATION and HER in (f.subject, f.target, f.asserted_by, *f.users)]
        assert BOBS.encode() in after["qdrant (decrypted)"]  # Bob's words stay: the scan reads the store
        # the append-only files: rewritten so they hold what is stored now, then more writes
        rewrites = (await rt.redis.info("persistence"))["aof_rewrites"]
        await rt.redis.bgrewriteaof()
        for _ in range(20_000):  # wait on the rewrite itself (a PING round trip per look)
            info = await rt.redis.info("persistence")
            if info["aof_rewrites"] > rewrites and not info["aof_rewrite_in_progress"]:
                break
            await rt.redis.execute_command("PING")
        assert info["aof_rewrites"] > rewrites, "the append-only file was not rewritten"
    finally:
        await rt.stop()
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()

    log_text = (data / "logs" / "heyan.log").read_text(encoding="utf-8")
    assert "erased u-orlaith" in log_text  # the log was written to, and names her only by id
    files = list(_files(data))
    assert any("appendonly" in p.name or p.suffix == ".aof" for p in files), files
    leaks = {str(p.relative_to(data)): h for p in files if (h := _hits(p.read_bytes()))}
    assert leaks == {}
    # sealed copies of what was erased: only in the store's write-ahead logs and payload pages, which
    # Qdrant compacts on its own schedule (docs/ARCHITECTURE.md, "Erasure"); nowhere else
    sealed = {str(p.relative_to(data)) for p in files if _hits(_opened(p.read_bytes(), keys))}
    assert {p for p in sealed if not _QDRANT_FILES.fullmatch(p)} == set(), sealed
