"""What only the embedded store does: persistence on disk, the single-process lock, the embedder record."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from memory.errors import EmbedderMismatchError, StoreError, StoreLockedError
from memory.models import Scope
from memory.ports import DENSE, SPARSE, RecordFilter, VectorQuery
from memory.store.codec import fact_from_payload
from memory.store.edge import EdgeStore
from tests.store_fakes import DIM, EMBEDDER, dense, fact, fact_point, sparse

T1 = Scope(tenant="discord:1")
ROOT = Path(__file__).resolve().parents[1]


async def run_python(script: str) -> str:
    """Run ``script`` in a fresh interpreter (another process) and return its stdout."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode == 0, err.decode()
    return out.decode()


async def open_edge(path: Path, name: str = EMBEDDER, dim: int = DIM) -> EdgeStore:
    return await EdgeStore.open(path, embedder_name=name, dim=dim)


async def test_reopen_reads_back_from_disk(tmp_path: Path) -> None:
    facts = [fact(subject=f"u{i}", value=f"value number {i}") for i in range(10)]
    store = await open_edge(tmp_path)
    await store.upsert("facts", T1, [fact_point(f) for f in facts])
    await store.set_payload("facts", T1, facts[3].id, {"status": "done"})
    await store.delete("facts", T1, RecordFilter(ids=frozenset({facts[9].id})))
    await store.close()

    store = await open_edge(tmp_path)
    try:
        assert await store.count("facts", T1) == 9
        hits = await store.retrieve("facts", T1, [f.id for f in facts])
        back = {h.id: fact_from_payload(h.payload) for h in hits}
        assert back[facts[0].id] == facts[0]
        assert back[facts[3].id].status == "done" and facts[9].id not in back
        [by_dense, by_sparse] = await store.search(
            "facts",
            T1,
            RecordFilter(),
            [
                VectorQuery(DENSE, dense=dense(facts[5].embed_text())),
                VectorQuery(SPARSE, sparse=sparse("number 4")),
            ],
            limit=3,
        )
        assert by_dense[0].id == facts[5].id and by_sparse[0].id == facts[4].id
    finally:
        await store.close()


async def test_reopen_without_close_recovers_from_wal(tmp_path: Path) -> None:
    """A crash (no flush, no close) loses nothing written: the WAL is replayed on open."""
    script = textwrap.dedent(
        f"""
        import asyncio, os
        from pathlib import Path
        from memory.models import Scope
        from memory.store.edge import EdgeStore
        from tests.store_fakes import fact, fact_point, DIM, EMBEDDER
        async def main():
            store = await EdgeStore.open(Path({str(tmp_path)!r}), embedder_name=EMBEDDER, dim=DIM)
            await store.upsert("facts", Scope(tenant="discord:1"), [fact_point(fact())])
            os._exit(0)
        asyncio.run(main())
        """
    )
    await run_python(script)
    store = await open_edge(tmp_path)
    try:
        assert await store.count("facts", T1) == 1
    finally:
        await store.close()


async def test_second_open_in_process_is_refused(tmp_path: Path) -> None:
    store = await open_edge(tmp_path)
    try:
        with pytest.raises(StoreLockedError) as err:
            await open_edge(tmp_path)
        message = str(err.value)
        assert str(tmp_path) in message and "single-process" in message
        assert "HEYAN_QDRANT_URL" in message and "HEYAN_REDIS_URL" in message
    finally:
        await store.close()
    again = await open_edge(tmp_path)  # close() released the lock
    await again.close()


async def test_second_process_is_refused(tmp_path: Path) -> None:
    store = await open_edge(tmp_path)
    script = textwrap.dedent(
        f"""
        import asyncio
        from pathlib import Path
        from memory.errors import StoreLockedError
        from memory.store.edge import EdgeStore
        try:
            asyncio.run(EdgeStore.open(Path({str(tmp_path)!r}), embedder_name="fake-embedder", dim=32))
        except StoreLockedError as exc:
            print("LOCKED:", exc)
        else:
            print("OPENED")
        """
    )
    try:
        out = await run_python(script)
    finally:
        await store.close()
    assert out.startswith("LOCKED:"), out
    assert str(tmp_path) in out and "HEYAN_QDRANT_URL" in out
    assert f"pid {os.getpid()}" in out


@pytest.mark.parametrize(("name", "dim"), [("other-embedder", DIM), (EMBEDDER, DIM * 2)])
async def test_other_embedder_is_refused(tmp_path: Path, name: str, dim: int) -> None:
    store = await open_edge(tmp_path)
    await store.close()
    assert json.loads((tmp_path / "meta.json").read_text()) == {"embedder": EMBEDDER, "dim": DIM}
    with pytest.raises(EmbedderMismatchError) as err:
        await open_edge(tmp_path, name, dim)
    message = str(err.value)
    assert EMBEDDER in message and name in message
    assert "heyan memory reindex" in message and "HEYAN_EMBEDDER" in message
    store = await open_edge(tmp_path)  # the refused open released the lock
    await store.close()


async def test_closed_store_and_double_close(tmp_path: Path) -> None:
    store = await open_edge(tmp_path)
    await store.close()
    await store.close()
    with pytest.raises(StoreError, match="closed"):
        await store.flush()
    with pytest.raises(StoreError, match="closed"):
        await store.retrieve("facts", T1, ["00000000-0000-0000-0000-000000000000"])


async def test_library_errors_are_wrapped(tmp_path: Path) -> None:
    store = await open_edge(tmp_path)
    store._shards["facts"].close()  # type: ignore[index]  # pull the shard out from under the store
    with pytest.raises(StoreError, match="Qdrant Edge failed to count points in facts") as err:
        await store.count("facts", T1)
    assert err.value.__cause__ is not None
    with pytest.raises(StoreError, match="failed to flush in facts"):
        await store.close()  # reports the failure...
    again = await open_edge(tmp_path)  # ...and still releases the lock
    await again.close()


async def test_shards_have_the_payload_indexes(tmp_path: Path) -> None:
    """Facts are indexed on every field recall and the moderation lists filter by; summaries (one a
    session) only on tenant, session and member. Vectors and indexes are memory-mapped, not loaded."""
    store = await open_edge(tmp_path)
    try:
        facts = store._shards["facts"].info().payload_schema  # type: ignore[index]
        summaries = store._shards["summaries"].info().payload_schema  # type: ignore[index]
        assert set(facts) == {"tenant", "session", "subject", "kind", "status", "users", "due_ts", "expires_ts",
                              "visibility", "messages", "mentions"}
        assert set(summaries) == {"tenant", "session", "users"}
        for schema in (facts, summaries):
            assert schema["tenant"].params.is_tenant  # type: ignore[union-attr]
        config = json.loads((tmp_path / "facts" / "edge_config.json").read_text())
        assert config["vectors"]["dense"]["on_disk"] and config["sparse_vectors"]["bm25"]["on_disk"]
        assert (tmp_path / "facts").is_dir() and (tmp_path / "summaries").is_dir()
    finally:
        await store.close()
