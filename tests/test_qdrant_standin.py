"""The Qdrant stand-in (``tests.qdrant_standin``): one store shared by separate clients and processes,
persistent with a path, collection metadata that round-trips, and Qdrant's error shapes."""

from __future__ import annotations

import asyncio
import signal
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from qdrant_client import AsyncQdrantClient, models
from qdrant_client.http.exceptions import UnexpectedResponse

from memory.errors import EmbedderMismatchError
from memory.models import Scope
from memory.ports import DENSE, SPARSE, RecordFilter, VectorQuery
from memory.store.server import ServerStore
from tests.qdrant_standin import VERSION, QdrantStandIn
from tests.store_fakes import DIM, EMBEDDER, dense, point

# qdrant-client checks the server version in a background thread, which may outlive a short test.
pytestmark = pytest.mark.filterwarnings("ignore:Failed to obtain server version:UserWarning")

ROOT = Path(__file__).resolve().parent.parent
T1 = Scope(tenant="discord:1")
T2 = Scope(tenant="discord:2")
ANY = RecordFilter()
#: Only a hung subprocess ever waits this long.
DEADLINE = 60.0


def pid() -> str:
    return str(uuid.uuid4())


def payload(tenant: str) -> dict[str, Any]:
    return {"tenant": tenant, "session": "thread-1", "kind": "demand", "status": "active", "users": ["u1"]}


async def open_store(url: str, embedder: str = EMBEDDER) -> ServerStore:
    return await ServerStore.open(url=url, embedder_name=embedder, dim=DIM)


@asynccontextmanager
async def standin_process(path: Path) -> AsyncIterator[str]:
    """``python -m tests.qdrant_standin`` on ``path``: yields its URL, stops it with SIGTERM."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.qdrant_standin", "--port", "0", "--path", str(path),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), DEADLINE)).decode()
        assert line.startswith("listening http://127.0.0.1:"), line
        yield line.split()[1]
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), DEADLINE)
        except TimeoutError:
            proc.kill()
            raise
    assert proc.returncode == 0


async def test_two_clients_see_each_others_writes() -> None:
    async with QdrantStandIn() as url:
        # Opened together, both may find the collections missing: one create gets 409, and uses theirs.
        a, b = await asyncio.gather(open_store(url), open_store(url))
        try:
            mine, theirs = pid(), pid()
            await a.upsert("facts", T1, [point(mine, payload("discord:1"), "alice wants quiet")])
            await b.upsert("facts", T2, [point(theirs, payload("discord:2"), "bob wants noise")])
            assert [h.id for h in await b.retrieve("facts", T1, [mine])] == [mine]
            assert [h.id for h in await a.retrieve("facts", T2, [theirs])] == [theirs]
            assert await a.tenants("facts") == await b.tenants("facts") == ["discord:1", "discord:2"]
            [hits] = await b.search("facts", T1, ANY, [VectorQuery(DENSE, dense=dense("alice wants quiet"))], 3)
            assert [h.id for h in hits] == [mine]
            await b.set_payload("facts", T1, mine, {"status": "done"})
            [hit] = await a.retrieve("facts", T1, [mine])
            assert hit.payload["status"] == "done"
            assert await a.delete("facts", T1) == 1
            assert await b.count("facts", T1) == 0 and await b.count("facts", T2) == 1
        finally:
            await a.close()
            await b.close()


async def test_data_indexes_and_embedder_persist_across_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    kept = pid()
    async with QdrantStandIn(path) as url:
        store = await open_store(url)
        await store.upsert("summaries", T1, [point(kept, payload("discord:1"), "they agreed on Friday")])
        await store.close()
    async with QdrantStandIn(path) as url:
        store = await open_store(url)
        try:
            [hit] = await store.retrieve("summaries", T1, [kept])
            assert hit.payload["tenant"] == "discord:1"
        finally:
            await store.close()
        client = AsyncQdrantClient(url=url)
        try:
            info = await client.get_collection("heyan_summaries")  # by its alias
            aliases = (await client.get_aliases()).aliases
        finally:
            await client.close()
        assert {(a.alias_name, a.collection_name) for a in aliases} == {
            ("heyan_facts", "heyan_facts_v1"), ("heyan_summaries", "heyan_summaries_v1")
        }
        assert info.config.metadata == {"heyan_embedder": EMBEDDER, "heyan_dim": DIM, "heyan_complete": True}
        tenant = info.payload_schema["tenant"]
        assert isinstance(tenant.params, models.KeywordIndexParams) and tenant.params.is_tenant
        assert tenant.points == 1 and info.payload_schema["due_ts"].data_type == models.PayloadSchemaType.FLOAT
        with pytest.raises(EmbedderMismatchError, match="fake-embedder"):
            await open_store(url, embedder="another-embedder")


async def test_embedder_is_recorded_on_a_collection_made_by_hand() -> None:
    async with QdrantStandIn() as url:
        client = AsyncQdrantClient(url=url)
        try:
            for layer in ("facts", "summaries"):
                await client.create_collection(
                    f"heyan_{layer}",
                    vectors_config={DENSE: models.VectorParams(size=DIM, distance=models.Distance.COSINE)},
                    sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                )
            assert (await client.get_collection("heyan_facts")).config.metadata is None
            await (await open_store(url)).close()  # no metadata yet: records it (PATCH)
            info = await client.get_collection("heyan_facts")
            assert info.config.metadata == {"heyan_embedder": EMBEDDER, "heyan_dim": DIM}
            with pytest.raises(EmbedderMismatchError):
                await open_store(url, embedder="another-embedder")
        finally:
            await client.close()


async def test_errors_have_qdrant_shape() -> None:
    async with QdrantStandIn() as url:
        client = AsyncQdrantClient(url=url)
        raw = httpx.AsyncClient(base_url=url)
        try:
            assert (await raw.get("/")).json()["version"] == VERSION
            with pytest.raises(UnexpectedResponse) as missing:
                await client.get_collection("nope")
            assert missing.value.status_code == 404 and "nope" in missing.value.structured()["status"]["error"]
            with pytest.raises(UnexpectedResponse) as missing:
                await client.count("nope")
            assert missing.value.status_code == 404

            params = models.VectorParams(size=4, distance=models.Distance.DOT)
            assert await client.create_collection("c", vectors_config=params)
            with pytest.raises(UnexpectedResponse) as twice:
                await client.create_collection("c", vectors_config=params)
            assert twice.value.status_code == 409 and "already exists" in twice.value.structured()["status"]["error"]
            with pytest.raises(UnexpectedResponse) as unsupported:
                await client.update_collection("c", hnsw_config=models.HnswConfigDiff(m=8))
            assert unsupported.value.status_code == 400
            assert "hnsw_config" in unsupported.value.structured()["status"]["error"]

            bad = await raw.post("/collections/c/points/scroll", content=b'{"limit": "many"}')
            assert bad.status_code == 400 and "limit" in bad.json()["status"]["error"]
            bad = await raw.post("/collections/c/points/count", content=b"not json")
            assert bad.status_code == 400 and bad.json()["status"]["error"]
            unknown = await raw.post("/collections/c/points/discover")
            assert unknown.status_code == 404 and unknown.json()["status"]["error"]
            assert await client.delete_collection("c")
            assert not await client.collection_exists("c")
        finally:
            await raw.aclose()
            await client.close()


async def test_subprocess_is_shared_and_persists(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    first, second = pid(), pid()
    async with standin_process(path) as url:
        a, b = await open_store(url), await open_store(url)
        try:
            await a.upsert("facts", T1, [point(first, payload("discord:1"), "first")])
            await b.upsert("facts", T1, [point(second, payload("discord:1"), "second")])
            hits, _ = await a.scroll("facts", T1, ANY)
            assert {h.id for h in hits} == {first, second}
        finally:
            await a.close()
            await b.close()
    async with standin_process(path) as url:  # a new process on the same folder
        store = await open_store(url)
        try:
            assert await store.count("facts", T1) == 2
        finally:
            await store.close()


def _create(alias: str, collection: str) -> models.CreateAliasOperation:
    return models.CreateAliasOperation(create_alias=models.CreateAlias(collection_name=collection, alias_name=alias))


def _delete(alias: str) -> models.DeleteAliasOperation:
    return models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=alias))


async def _alias_pairs(client: AsyncQdrantClient) -> set[tuple[str, str]]:
    return {(a.alias_name, a.collection_name) for a in (await client.get_aliases()).aliases}


async def test_aliases_as_the_client_uses_them(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    params = {DENSE: models.VectorParams(size=4, distance=models.Distance.COSINE)}
    async with QdrantStandIn(path) as url:
        client = AsyncQdrantClient(url=url)
        try:
            for name in ("c_v1", "c_v2"):
                await client.create_collection(name, vectors_config=params)
            assert await client.update_collection_aliases([_create("c", "c_v1")])
            # Collection and point calls by the alias name reach the collection it points to.
            point = models.PointStruct(id=1, vector={DENSE: [1.0, 0.0, 0.0, 0.0]}, payload={"tenant": "t"})
            await client.upsert("c", [point])
            await client.create_payload_index("c", "tenant", field_schema=models.PayloadSchemaType.KEYWORD)
            info = await client.get_collection("c")
            assert info.points_count == 1 and set(info.payload_schema) == {"tenant"}
            assert (await client.count("c_v1")).count == 1 and await client.collection_exists("c")
            assert [a.alias_name for a in (await client.get_collection_aliases("c_v1")).aliases] == ["c"]
            # A switch is one call; a call with an action that fails changes nothing.
            assert await client.update_collection_aliases([_delete("c"), _create("c", "c_v2")])
            assert (await client.count("c")).count == 0
            with pytest.raises(UnexpectedResponse) as missing:
                await client.update_collection_aliases([_delete("c"), _create("c", "nope")])
            assert missing.value.status_code == 404
            with pytest.raises(UnexpectedResponse) as taken:
                await client.update_collection_aliases([_create("c_v1", "c_v2")])
            assert taken.value.status_code == 409
            with pytest.raises(UnexpectedResponse) as taken:
                await client.create_collection("c", vectors_config=params)
            assert taken.value.status_code == 409
            rename = models.RenameAlias(old_alias_name="c", new_alias_name="d")
            assert await client.update_collection_aliases([models.RenameAliasOperation(rename_alias=rename)])
            assert await _alias_pairs(client) == {("d", "c_v2")}
            assert {c.name for c in (await client.get_collections()).collections} == {"c_v1", "c_v2"}
            # Deleting a collection drops its aliases, as the server does.
            assert await client.delete_collection("c_v2")
            assert await _alias_pairs(client) == set()
            assert await client.update_collection_aliases([_create("c", "c_v1")])
        finally:
            await client.close()
    async with QdrantStandIn(path) as url:  # aliases persist with the data
        client = AsyncQdrantClient(url=url)
        try:
            assert await _alias_pairs(client) == {("c", "c_v1")}
            assert (await client.count("c")).count == 1
        finally:
            await client.close()
