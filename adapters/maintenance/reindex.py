"""``heyan memory reindex``: re-embed every memory with the configured embedder, safe to kill and re-run.

A new copy is built beside the old one and put in place only once complete (``adapters.maintenance.rebuild``):
embedded, ``<data>/qdrant.reindex`` swapped in by renames; on a server, the next generation and one
alias switch (a legacy collection is deleted before its alias is made; the next open finishes an
interrupted switch). Stop the bot and every worker first. The protocol: docs/DEPLOY.md, "How a reindex
or a migration stays safe to kill".
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import Progress

from adapters.maintenance.rebuild import (
    LAYER_NAMES,
    Outcome,
    RebuildError,
    Records,
    build_edge,
    build_server,
    codec_for,
    drop_leftovers,
    read_edge,
    read_records,
    ready_embedder,
    server_is_current,
    tally_edge,
    tally_server,
)
from bot.config.settings import Settings
from memory.index.sparse import Bm25Encoder
from memory.ports import Embedder, SparseEncoder
from memory.store.codec import PayloadCodec
from memory.store.files import read_meta, recover_interrupted_swap, take_swap_guard
from memory.store.server import ServerAdmin

__all__ = ["reindex"]


async def reindex(settings: Settings, *, console: Console, embedder: Embedder | None = None) -> Outcome:
    """Re-embed every record of the configured store with the configured embedder (or ``embedder``)."""
    codec = codec_for(settings)
    chosen = await ready_embedder(settings, embedder)
    sparse = Bm25Encoder()
    with Progress(console=console, transient=True) as progress:
        if settings.use_server_store:
            return await _reindex_server(settings, chosen, sparse, progress, codec)
        return await _reindex_edge(settings, chosen, sparse, progress, codec)


async def _reindex_edge(
    settings: Settings, embedder: Embedder, sparse: SparseEncoder, progress: Progress, codec: PayloadCodec
) -> Outcome:
    path = settings.data_dir / "qdrant"
    guard = take_swap_guard(path)
    try:
        recovered = recover_interrupted_swap(path, guard=guard)
        recorded = read_meta(path)
        if recorded is None:
            return Outcome(0, {}, f"there is no memory store at {path} yet: nothing to re-index")
        if recovered is not None and recovered.action == "finished" and recorded == (embedder.name, embedder.dim):
            counts = await tally_edge(path, embedder, guard)
            return Outcome(0, counts, f"{recovered.message}; the interrupted reindex is complete")
        records = await read_edge(path, recorded, guard, codec=codec)

        async def desired() -> Records:
            return records  # the guard keeps every other process out: the source cannot change

        written = await build_edge(path, guard, desired, embedder, sparse, progress, codec=codec)
        counts = await tally_edge(path, embedder, guard)
    finally:
        guard.release()
    return Outcome(written, counts, f"re-embedded {written} records with {embedder.name} (dim {embedder.dim}) at {path}")


async def _reindex_server(
    settings: Settings, embedder: Embedder, sparse: SparseEncoder, progress: Progress, codec: PayloadCodec
) -> Outcome:
    q = settings.qdrant
    api_key = q.api_key.get_secret_value() if q.api_key else None
    admin = await ServerAdmin.connect(url=q.url, api_key=api_key, prefix=q.prefix)
    try:
        states = {layer: await admin.state(layer) for layer in LAYER_NAMES}
        for st in states.values():
            if st.live is None and st.other:
                raise RebuildError(
                    f"{st.alias} at {admin.where} has no live collection, only {', '.join(g.name for g in st.other)} "
                    f"from an interrupted `heyan memory migrate --to server`: run that again to finish it"
                )
        if all(st.live is None for st in states.values()):
            return Outcome(0, {}, f"there are no memories at {admin.where} (prefix {q.prefix}) yet: nothing to re-index")
        if server_is_current(states, embedder) and any(st.other for st in states.values()):
            dropped = await drop_leftovers(admin, states)
            note = f"the interrupted reindex had already switched; dropped {dropped} old collection(s)"
            return Outcome(0, await tally_server(admin, states, embedder), note)
        live = {layer: st.live.name for layer, st in states.items() if st.live is not None}
        source = admin.store(live, embedder.dim)  # read only: its dimension is never checked
        where = f"{', '.join(live.values())} at {admin.where}"

        async def desired() -> Records:
            return await read_records(source, where, layers=tuple(live), codec=codec)

        written = await build_server(admin, states, desired, embedder, sparse, progress, codec=codec)
        counts = await tally_server(admin, states, embedder)
    finally:
        await admin.close()
    return Outcome(written, counts, f"re-embedded {written} records with {embedder.name} (dim {embedder.dim}) at {admin.where}")
