"""What ``heyan memory reindex`` and ``heyan memory migrate`` share: read every record of a store,
decide what the new copy must hold, fill a staged copy, mark it complete and put it in place.

The staged copy is never the live one (``<data>/qdrant.reindex``, or the server's next generation).
Filling is a sync by id, not a copy: same content is kept, the rest (re-)embedded and written through
``index_facts``/``index_summaries``, extras deleted, so a killed fill resumes and a finished one writes
nothing again. The new copy is sealed with the first key.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError
from rich.progress import Progress

from adapters.runtime import composition as runtime
from bot.config.settings import Settings
from memory.errors import StoreError
from memory.models import Fact, Scope, Summary
from memory.ports import Embedder, Hit, Layer, MemoryStore, RecordFilter, SparseEncoder
from memory.recall.retrieval import index_facts, index_summaries
from memory.store.codec import PLAIN, PayloadCodec
from memory.store.edge import EdgeStore
from memory.store.files import (
    DirLock,
    clear_complete,
    mark_complete,
    read_meta,
    remove_store,
    staging_path,
    swap_in,
)
from memory.store.server import Generation, LayerState, ServerAdmin

__all__ = [
    "LAYER_NAMES",
    "Outcome",
    "RebuildError",
    "Records",
    "build_edge",
    "build_server",
    "codec_for",
    "drop_leftovers",
    "merge",
    "read_edge",
    "read_records",
    "ready_embedder",
    "server_is_current",
    "tally",
    "tally_edge",
    "tally_server",
]

R = TypeVar("R", Fact, Summary)

LAYER_NAMES: tuple[Layer, ...] = ("facts", "summaries")
#: Records embedded per call: one embedder batch (the local model's measured sweet spot is 64).
BATCH = 64
#: Scroll page size when reading a store.
_PAGE = 256
#: Fills of a server copy while its source keeps changing, before giving up (bots were left running).
_SETTLE_ROUNDS = 3


class RebuildError(StoreError):
    """A reindex or migrate refused or could not finish; the message says what to do."""


@dataclass(slots=True)
class Records:
    """Every record of a store, by id, per layer."""

    facts: dict[str, Fact] = field(default_factory=dict)
    summaries: dict[str, Summary] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.facts) + len(self.summaries)

    def same_as(self, other: Records) -> bool:
        return _same_layer(self.facts, other.facts) and _same_layer(self.summaries, other.summaries)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a rebuild did: records written, records per layer and tenant now in the target, one line."""

    written: int
    counts: dict[str, dict[str, int]]
    note: str

    @property
    def total(self) -> int:
        return sum(sum(per.values()) for per in self.counts.values())


def _decode(layer: Layer, hit: Hit, where: str, codec: PayloadCodec) -> Fact | Summary:
    try:
        record = codec.decode(layer, hit.payload)
    except ValidationError as exc:
        reason = str(exc).splitlines()[0]
        raise RebuildError(
            f"record {hit.id} in {layer} of {where} cannot be read ({reason}); nothing was changed. Delete it "
            f"(`heyan memory delete {hit.id}`) or restore the store from a backup, then run this again"
        ) from exc
    # The point id is the record's identity; a payload without one (older data) takes the point's.
    return record if record.id == hit.id else record.model_copy(update={"id": hit.id})


async def read_records(
    store: MemoryStore, where: str, layers: Sequence[Layer] = LAYER_NAMES, *, codec: PayloadCodec = PLAIN
) -> Records:
    """Every record of ``layers`` in ``store``, tenant by tenant; RebuildError naming one that cannot be read."""
    records = Records()
    for layer in layers:
        for tenant in await store.tenants(layer):
            offset: str | None = None
            while True:
                hits, offset = await store.scroll(layer, Scope(tenant=tenant), RecordFilter(), _PAGE, offset)
                for hit in hits:
                    record = _decode(layer, hit, where, codec)
                    if isinstance(record, Fact):
                        records.facts[hit.id] = record
                    else:
                        records.summaries[hit.id] = record
                if offset is None:
                    break
    return records


async def tally(store: MemoryStore) -> dict[str, dict[str, int]]:
    """Records per layer and tenant, counted by the store."""
    return {
        layer: {tenant: await store.count(layer, Scope(tenant=tenant)) for tenant in await store.tenants(layer)}
        for layer in LAYER_NAMES
    }


def _same(a: Fact | Summary, b: Fact | Summary) -> bool:
    # ``truncated`` is set by the write path when the embed text was cut: not a difference in content.
    return a.model_dump(exclude={"truncated"}) == b.model_dump(exclude={"truncated"})


def _same_layer(a: Mapping[str, Fact] | Mapping[str, Summary], b: Mapping[str, Fact] | Mapping[str, Summary]) -> bool:
    return a.keys() == b.keys() and all(_same(a[i], b[i]) for i in a)


def _newer(a: Fact | Summary, b: Fact | Summary) -> bool:
    return (a.updated_at, a.version) > (b.updated_at, b.version)


def _merge_layer(source: dict[str, R], target: dict[str, R]) -> tuple[dict[str, R], int]:
    merged = dict(source)
    foreign = 0
    for rid, theirs in target.items():
        ours = source.get(rid)
        if ours is not None and _same(ours, theirs):
            continue
        if ours is None or not _newer(ours, theirs):
            foreign += 1  # only the target has it, or has a version at least as new: not our copy
        if ours is None or _newer(theirs, ours):
            merged[rid] = theirs
    return merged, foreign


def merge(source: Records, target: Records) -> tuple[Records, dict[str, int]]:
    """What the target must hold after a migration: every record of both, the newer version where both
    have one (the source's on a tie); and per layer how many target records did not come from the
    source (only there, or newer there) — data a migration without ``--merge`` must not mix in."""
    facts, foreign_facts = _merge_layer(source.facts, target.facts)
    summaries, foreign_summaries = _merge_layer(source.summaries, target.summaries)
    return Records(facts, summaries), {"facts": foreign_facts, "summaries": foreign_summaries}


async def _sync_layer(
    store: MemoryStore,
    layer: Layer,
    want: dict[str, R],
    have: dict[str, R],
    write: Callable[[Sequence[R]], Awaitable[object]],
    progress: Progress,
) -> int:
    stale: dict[str, list[str]] = {}
    for rid, record in have.items():
        if rid not in want:
            stale.setdefault(record.tenant, []).append(rid)
    for tenant, ids in stale.items():
        for i in range(0, len(ids), _PAGE):
            await store.delete(layer, Scope(tenant=tenant), RecordFilter(ids=frozenset(ids[i : i + _PAGE])))
    todo = [r for rid, r in want.items() if rid not in have or not _same(have[rid], r)]
    task = progress.add_task(f"embedding {layer}", total=len(todo))
    for i in range(0, len(todo), BATCH):
        batch = todo[i : i + BATCH]
        await write(batch)
        progress.advance(task, len(batch))
    return len(todo)


async def sync(
    store: MemoryStore, where: str, desired: Records, embedder: Embedder, sparse: SparseEncoder, progress: Progress,
    *, codec: PayloadCodec = PLAIN,
) -> int:
    """Make ``store`` hold exactly ``desired``; returns how many records were embedded and written."""
    have = await read_records(store, where, codec=codec)

    async def facts(batch: Sequence[Fact]) -> object:
        return await index_facts(store, embedder, sparse, batch, codec=codec)

    async def summaries(batch: Sequence[Summary]) -> object:
        return await index_summaries(store, embedder, sparse, batch, codec=codec)

    written = await _sync_layer(store, "facts", desired.facts, have.facts, facts, progress)
    return written + await _sync_layer(store, "summaries", desired.summaries, have.summaries, summaries, progress)


async def _fill(
    store: MemoryStore,
    where: str,
    desired: Callable[[], Awaitable[Records]],
    embedder: Embedder,
    sparse: SparseEncoder,
    progress: Progress,
    *,
    settle: bool,
    codec: PayloadCodec = PLAIN,
) -> int:
    """Sync ``store`` to ``desired()``; with ``settle`` (a source others may still write to), read the
    source again after each fill and fill again until it stops changing."""
    want = await desired()
    written = 0
    for _ in range(_SETTLE_ROUNDS):
        written += await sync(store, where, want, embedder, sparse, progress, codec=codec)
        if not settle:
            return written
        again = await desired()
        if again.same_as(want):
            return written
        want = again
    raise RebuildError(
        f"the records kept changing while {where} was being filled: stop every Heyan bot and worker that "
        f"uses this store, then run the command again (it resumes)"
    )


def _staged_for(staging: Path, embedder: Embedder) -> bool:
    try:
        return read_meta(staging) == (embedder.name, embedder.dim)
    except StoreError:  # an unreadable meta file: the copy cannot be trusted, so it is rebuilt
        return False


async def build_edge(
    path: Path,
    guard: DirLock,
    desired: Callable[[], Awaitable[Records]],
    embedder: Embedder,
    sparse: SparseEncoder,
    progress: Progress,
    *,
    settle: bool = False,
    codec: PayloadCodec = PLAIN,
) -> int:
    """Fill ``<path>.reindex`` (resuming one built for this embedder), mark it complete once flushed and
    closed, and swap it in for ``path``; the caller holds ``guard``. Returns records written."""
    staging = staging_path(path)
    if staging.exists() and not _staged_for(staging, embedder):
        remove_store(staging)  # built for another embedder, or never got as far as its meta file
    if staging.exists():
        clear_complete(staging)  # written to again: not complete until marked again
    try:
        store = await EdgeStore.open(staging, embedder_name=embedder.name, dim=embedder.dim, guard=guard)
    except StoreError:  # a copy killed while its shards were being created: start it over
        remove_store(staging)
        store = await EdgeStore.open(staging, embedder_name=embedder.name, dim=embedder.dim, guard=guard)
    try:
        written = await _fill(store, str(staging), desired, embedder, sparse, progress, settle=settle, codec=codec)
    except BaseException:
        # The fill's failure is the one to report; closing flushes what was written for the resume.
        with contextlib.suppress(StoreError):
            await store.close()
        raise
    await store.close()
    mark_complete(staging, {"embedder": embedder.name, "dim": embedder.dim, "records": written})
    swap_in(path)
    return written


async def _target_generation(admin: ServerAdmin, layer: Layer, state: LayerState, embedder: Embedder) -> Generation:
    """The generation to fill: an earlier run's above the live one and made for this embedder (resumed),
    else a new one; every other non-live generation is a leftover and is dropped."""
    base = state.live.number or 0 if state.live is not None else 0
    fits = [g for g in state.other if (g.number or 0) > base and (g.embedder, g.dim) == (embedder.name, embedder.dim)]
    keep = fits[-1] if fits else None
    for g in state.other:
        if g is not keep:
            await admin.drop(g.name)
    if keep is None:
        top = max([base, *(g.number or 0 for g in state.other)])
        made = await admin.create(layer, top + 1, embedder.name, embedder.dim, complete=False)
        if made.complete:  # not ours: a Heyan process opening a new server made it meanwhile
            raise RebuildError(f"{made.name} at {admin.where} was created by another process meanwhile: run this again")
        return made
    if keep.complete:
        await admin.set_complete(keep.name, False)
    return keep


async def build_server(
    admin: ServerAdmin,
    states: Mapping[Layer, LayerState],
    desired: Callable[[], Awaitable[Records]],
    embedder: Embedder,
    sparse: SparseEncoder,
    progress: Progress,
    *,
    codec: PayloadCodec = PLAIN,
) -> int:
    """Fill the next generation of each layer, mark it complete, switch both aliases in one call and
    drop the previous generations. Returns records written."""
    targets = {layer: (await _target_generation(admin, layer, st, embedder)).name for layer, st in states.items()}
    store = admin.store(targets, embedder.dim)
    where = f"{', '.join(targets.values())} at {admin.where}"
    written = await _fill(store, where, desired, embedder, sparse, progress, settle=True, codec=codec)
    for name in targets.values():
        await admin.set_complete(name, True)
    await admin.switch(states, targets)
    for st in states.values():
        if st.live is not None and st.live.number is not None:
            await admin.drop(st.live.name)
    return written


def server_is_current(states: Mapping[Layer, LayerState], embedder: Embedder) -> bool:
    """Every layer is live on a collection made for ``embedder``, and no rebuild is pending above it."""
    for st in states.values():
        live = st.live
        if live is None or (live.embedder, live.dim) != (embedder.name, embedder.dim):
            return False
        if any((g.number or 0) > (live.number or 0) for g in st.other):
            return False
    return True


async def drop_leftovers(admin: ServerAdmin, states: Mapping[Layer, LayerState]) -> int:
    """Drop the non-live generations (an earlier run killed before its clean-up); returns how many."""
    names = [g.name for st in states.values() for g in st.other]
    for name in names:
        await admin.drop(name)
    return len(names)


def codec_for(settings: Settings) -> PayloadCodec:
    """The codec of this process's keys (``HEYAN_ENCRYPTION_KEYS`` or the embedded key file)."""
    return PayloadCodec(runtime.build_cipher(settings))


async def ready_embedder(settings: Settings, embedder: Embedder | None = None) -> Embedder:
    """The configured embedder (or the one given: the tests' seam), started if it needs a start
    (the OpenAI embedder learns its dimension with one probe call)."""
    chosen = embedder or runtime.build_embedder(settings)
    start = getattr(chosen, "start", None)
    if start is not None:
        await start()
    return chosen


async def read_edge(
    path: Path, recorded: tuple[str, int], guard: DirLock, *, codec: PayloadCodec = PLAIN
) -> Records:
    """Every record of the embedded store at ``path``, opened with the embedder it records."""
    store = await EdgeStore.open(path, embedder_name=recorded[0], dim=recorded[1], guard=guard)
    try:
        return await read_records(store, str(path), codec=codec)
    finally:
        await store.close()


async def tally_edge(path: Path, embedder: Embedder, guard: DirLock) -> dict[str, dict[str, int]]:
    store = await EdgeStore.open(path, embedder_name=embedder.name, dim=embedder.dim, guard=guard)
    try:
        return await tally(store)
    finally:
        await store.close()


async def tally_server(admin: ServerAdmin, states: Mapping[Layer, LayerState], embedder: Embedder) -> dict[str, dict[str, int]]:
    return await tally(admin.store({layer: st.alias for layer, st in states.items()}, embedder.dim))
