"""``heyan memory migrate --to server|edge``: move every memory between the embedded store
(``<data>/qdrant``) and a Qdrant server (``HEYAN_QDRANT_URL``), through the same safe path as a reindex.

The source is only read; the target is built beside what it holds and switched in
(``adapters.maintenance.rebuild``), so a re-run finishes a killed one. A target holding data from elsewhere
(records only it has, or newer) stops the command unless ``--merge`` (the newer version wins, the
source's on a tie).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from adapters.maintenance.rebuild import (
    LAYER_NAMES,
    Outcome,
    RebuildError,
    Records,
    build_edge,
    build_server,
    codec_for,
    drop_leftovers,
    merge,
    read_edge,
    read_records,
    ready_embedder,
    server_is_current,
    tally_edge,
    tally_server,
)
from bot.config.settings import Settings
from memory.index.sparse import Bm25Encoder
from memory.ports import Embedder, Layer, SparseEncoder
from memory.store.codec import PayloadCodec
from memory.store.files import DirLock, read_meta, recover_interrupted_swap, take_swap_guard
from memory.store.server import LayerState, ServerAdmin

__all__ = ["Direction", "counts_table", "migrate"]

Direction = Literal["server", "edge"]


async def migrate(
    settings: Settings,
    *,
    to: Direction,
    merge_target: bool = False,
    console: Console,
    embedder: Embedder | None = None,
) -> Outcome:
    """Copy every record of one store into the other (``to``), re-embedded with the configured embedder."""
    q = settings.qdrant
    if q.url is None:
        raise RebuildError(
            "`heyan memory migrate` moves memories to or from a Qdrant server: set HEYAN_QDRANT_URL "
            "(and HEYAN_QDRANT_API_KEY if it needs one)"
        )
    codec = codec_for(settings)
    chosen = await ready_embedder(settings, embedder)
    path = settings.data_dir / "qdrant"
    guard = take_swap_guard(path)
    try:
        recover_interrupted_swap(path, guard=guard)
        api_key = q.api_key.get_secret_value() if q.api_key else None
        admin = await ServerAdmin.connect(url=q.url, api_key=api_key, prefix=q.prefix)
        try:
            job = _Job(path, guard, admin, chosen, Bm25Encoder(), merge_target, codec)
            with Progress(console=console, transient=True) as progress:
                return await (job.to_server(progress) if to == "server" else job.to_edge(progress))
        finally:
            await admin.close()
    finally:
        guard.release()


def counts_table(outcome: Outcome, title: str) -> Table:
    """Records per layer and tenant in the target, for the terminal."""
    table = Table(title=title)
    table.add_column("layer")
    table.add_column("tenant")
    table.add_column("records", justify="right")
    for layer, per_tenant in outcome.counts.items():
        for tenant, n in sorted(per_tenant.items()):
            table.add_row(layer, tenant, str(n))
    return table


class _Job:
    """One migration: the embedded store at ``path`` (its guard held) and the server behind ``admin``."""

    def __init__(
        self, path: Path, guard: DirLock, admin: ServerAdmin, embedder: Embedder, sparse: SparseEncoder, merge: bool,
        codec: PayloadCodec,
    ) -> None:
        self.codec = codec
        self.path = path
        self.guard = guard
        self.admin = admin
        self.embedder = embedder
        self.sparse = sparse
        self.merge = merge
        self.server = f"the Qdrant server at {admin.where} (prefix {admin.prefix})"
        self.edge = f"the embedded store at {path}"

    async def _states(self) -> dict[Layer, LayerState]:
        return {layer: await self.admin.state(layer) for layer in LAYER_NAMES}

    async def _read_server(self, states: dict[Layer, LayerState]) -> Records:
        live = {layer: st.live.name for layer, st in states.items() if st.live is not None}
        store = self.admin.store(live, self.embedder.dim)  # read only
        return await read_records(store, self.server, layers=tuple(live), codec=self.codec)

    def _check(self, source: Records, target: Records, source_name: str, target_name: str) -> Records:
        desired, foreign = merge(source, target)
        if any(foreign.values()) and not self.merge:
            raise RebuildError(
                f"{target_name} already holds {foreign['facts']} facts and {foreign['summaries']} summaries "
                f"that are not from {source_name}: pass --merge to keep both (the newer version of each "
                f"record wins), or migrate into an empty store"
            )
        return desired

    async def to_server(self, progress: Progress) -> Outcome:
        recorded = read_meta(self.path)
        if recorded is None:
            raise RebuildError(
                f"there is no embedded memory store at {self.path} to migrate: set HEYAN_DATA_DIR to the "
                f"data dir that holds it"
            )
        source = await read_edge(self.path, recorded, self.guard, codec=self.codec)
        states = await self._states()
        target = await self._read_server(states)
        desired = self._check(source, target, self.edge, self.server)
        if server_is_current(states, self.embedder) and target.same_as(desired):
            await drop_leftovers(self.admin, states)
            written, note = 0, f"{self.server} already holds every record of {self.edge}: nothing to do"
        else:

            async def want() -> Records:  # the server may gain records meanwhile: keep them
                return merge(source, await self._read_server(states))[0]

            written = await build_server(self.admin, states, want, self.embedder, self.sparse, progress, codec=self.codec)
            note = f"copied {written} records from {self.edge} to {self.server}; set HEYAN_QDRANT_URL to use it"
        return Outcome(written, await tally_server(self.admin, states, self.embedder), note)

    async def to_edge(self, progress: Progress) -> Outcome:
        states = await self._states()
        for st in states.values():
            if st.live is None and st.other:
                raise RebuildError(
                    f"{st.alias} at {self.admin.where} has only the unfinished {', '.join(g.name for g in st.other)}: "
                    f"finish the command that was building it first"
                )
        if all(st.live is None for st in states.values()):
            raise RebuildError(f"{self.server} holds no Heyan memories: nothing to migrate")
        recorded = read_meta(self.path)
        target = await read_edge(self.path, recorded, self.guard, codec=self.codec) if recorded is not None else Records()
        desired = self._check(await self._read_server(states), target, self.server, self.edge)
        if recorded == (self.embedder.name, self.embedder.dim) and target.same_as(desired):
            written, note = 0, f"{self.edge} already holds every record of {self.server}: nothing to do"
        else:

            async def want() -> Records:  # the server may still change: fill until it stops
                return merge(await self._read_server(states), target)[0]

            written = await build_edge(self.path, self.guard, want, self.embedder, self.sparse, progress, settle=True,
                                       codec=self.codec)
            note = f"copied {written} records from {self.server} to {self.edge}; unset HEYAN_QDRANT_URL to use it"
        return Outcome(written, await tally_edge(self.path, self.embedder, self.guard), note)
