"""A loopback stand-in for a Qdrant server, for tests only.

It serves, over HTTP on 127.0.0.1, the subset of Qdrant's REST API that ``memory.store.server``
triggers through ``qdrant_client.AsyncQdrantClient(url=...)``, and answers each call with
qdrant-client's own local mode (``path=DIR`` to persist, else in memory). Request bodies are parsed
with the pydantic models of ``qdrant_client.http.models`` and answers use Qdrant's envelope
``{"result": ..., "status": "ok", "time": ...}``, so the real client, unchanged, talks to it.

Served (``{c}`` is a collection name, or an alias of one wherever Qdrant resolves aliases: every
``{c}`` route below except PUT and DELETE of a collection)::

    GET    /                            version info (the client's compatibility check)
    GET    /collections                 the collections (not the aliases)
    GET    /collections/{c}/exists      PUT /collections/{c}    GET /collections/{c}
    PATCH  /collections/{c}             metadata and sparse vector params only
    DELETE /collections/{c}             PUT /collections/{c}/index
    PUT    /collections/{c}/points      upsert           POST /collections/{c}/points   retrieve
    POST   /collections/{c}/points/payload               set payload
    POST   /collections/{c}/points/scroll, /points/count, /points/delete, /points/query/batch
    POST   /collections/{c}/facet
    POST   /collections/aliases         create / delete / rename aliases, applied all or nothing
    GET    /aliases                     GET /collections/{c}/aliases

Errors have Qdrant's shape ``{"status": {"error": "..."}}``: 404 for a missing collection or alias
or an unknown path, 409 when creating a collection or alias whose name is taken, 400 for a body
that does not parse or a setting the stand-in does not support.

What it is not: a Qdrant server. Search is local mode's exact scan (no HNSW, no quantization);
payload indexes are recorded and reported (``payload_schema``) but index nothing; there is no
auth (an API key is ignored), no gRPC, no sharding, replication or snapshots. Deleting a
collection drops its aliases, as on the server. Settings it does not support in a create or update
request are refused, not silently ignored. One process owns the data; clients share it through HTTP.

In-process (tests)::

    async with QdrantStandIn(path=tmp_path / "qdrant") as url:   # path=None: in memory
        store = await ServerStore.open(url=url, embedder_name=..., dim=...)

As a separate process (serves until SIGTERM or SIGINT)::

    python -m tests.qdrant_standin --port 0 --path DIR
    # prints one line when ready: listening http://127.0.0.1:PORT
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib.metadata
import json
import signal
import time
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from aiohttp import web
from pydantic import BaseModel, TypeAdapter
from pydantic_core import to_jsonable_python
from qdrant_client import AsyncQdrantClient
from qdrant_client.http import models

__all__ = ["QdrantStandIn", "make_app"]

#: Reported as the server version: the installed client's, so its compatibility check passes.
VERSION = importlib.metadata.version("qdrant-client")

#: Where the recorded payload indexes persist, next to local mode's own files.
_INDEX_FILE = "standin_indexes.json"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class _Missing(Exception):
    """A collection that does not exist: 404."""


class _Conflict(Exception):
    """A collection that already exists: 409."""


def _reply(result: Any, started: float) -> web.Response:
    body = {
        "result": to_jsonable_python(result, exclude_none=True),
        "status": "ok",
        "time": time.perf_counter() - started,
    }
    return web.json_response(body)


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"status": {"error": message}, "time": 0.0}, status=status)


@functools.cache
def _adapter(type_: Any) -> TypeAdapter[Any]:
    return TypeAdapter(type_)


async def _body(request: web.Request, type_: Any) -> Any:
    """The request body parsed as ``type_`` (a model or a union of models); ValidationError if not."""
    return _adapter(type_).validate_json(await request.read())


def _refuse_unsupported(body: BaseModel, allowed: set[str]) -> None:
    extra = sorted(k for k in body.model_fields_set - allowed if getattr(body, k) is not None)
    if extra:
        raise ValueError(f"the Qdrant stand-in does not support {', '.join(extra)}")


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except _Missing as exc:
        return _error(404, f"Not found: Collection `{exc}` doesn't exist!")
    except _Conflict as exc:
        return _error(409, f"Wrong input: Collection `{exc}` already exists!")
    except web.HTTPException as exc:  # an unknown path or method
        return _error(exc.status, f"{exc.reason}: {request.method} {request.path}")
    except ValueError as exc:  # a body that does not parse (ValidationError), or local mode refusing it
        return _error(400, f"Wrong input: {exc}")
    except Exception as exc:  # a bug in the stand-in or in local mode: say so, as the server would
        return _error(500, f"Service internal error: {type(exc).__name__}: {exc}")


class _Backend:
    """The request handlers, over one local-mode client and the recorded payload indexes."""

    def __init__(self, client: AsyncQdrantClient, path: Path | None) -> None:
        self.client = client
        self.index_file = path / _INDEX_FILE if path is not None else None
        self.indexes: dict[str, dict[str, Any]] = {}  # collection -> field -> field_schema (JSON)
        if self.index_file is not None and self.index_file.exists():
            self.indexes = json.loads(self.index_file.read_text())

    def routes(self) -> list[web.RouteDef]:
        c = "/collections/{name}"
        return [
            web.get("/", self.root),
            web.get("/collections", self.collections),
            web.post("/collections/aliases", self.change_aliases),  # before {name}: "aliases" is no collection
            web.get("/aliases", self.aliases),
            web.get(f"{c}/aliases", self.collection_aliases),
            web.get(f"{c}/exists", self.exists),
            web.put(c, self.create),
            web.get(c, self.info),
            web.patch(c, self.update),
            web.delete(c, self.drop),
            web.put(f"{c}/index", self.create_index),
            web.put(f"{c}/points", self.upsert),
            web.post(f"{c}/points", self.retrieve),
            web.post(f"{c}/points/payload", self.set_payload),
            web.post(f"{c}/points/scroll", self.scroll),
            web.post(f"{c}/points/count", self.count),
            web.post(f"{c}/points/delete", self.delete),
            web.post(f"{c}/points/query/batch", self.query_batch),
            web.post(f"{c}/facet", self.facet),
        ]

    async def _alias_map(self) -> dict[str, str]:
        return {a.alias_name: a.collection_name for a in (await self.client.get_aliases()).aliases}

    async def _collection_names(self) -> set[str]:
        return {c.name for c in (await self.client.get_collections()).collections}

    async def _existing(self, request: web.Request) -> str:
        """The collection the path names: itself, or the collection an alias of that name points to."""
        name = request.match_info["name"]
        name = (await self._alias_map()).get(name, name)
        if name not in await self._collection_names():
            raise _Missing(name)
        return name

    def _save_indexes(self) -> None:
        if self.index_file is not None:
            self.index_file.write_text(json.dumps(self.indexes))

    async def _payload_schema(self, name: str) -> dict[str, models.PayloadIndexInfo]:
        schema: dict[str, models.PayloadIndexInfo] = {}
        for field, raw in self.indexes.get(name, {}).items():
            spec = _adapter(models.PayloadFieldSchema).validate_python(raw)
            params = None if isinstance(spec, models.PayloadSchemaType) else spec
            data_type = models.PayloadSchemaType(spec if params is None else params.type.value)
            has_value = models.Filter(must_not=[models.IsEmptyCondition(is_empty=models.PayloadField(key=field))])
            points = (await self.client.count(name, count_filter=has_value)).count
            schema[field] = models.PayloadIndexInfo(data_type=data_type, params=params, points=points)
        return schema

    # -- service and collections ------------------------------------------------------------------

    async def root(self, request: web.Request) -> web.Response:
        return web.json_response({"title": "qdrant - vector search engine (Heyan test stand-in)", "version": VERSION})

    async def collections(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        return _reply(await self.client.get_collections(), t)

    async def exists(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        exists = await self.client.collection_exists(request.match_info["name"])
        return _reply(models.CollectionExistence(exists=exists), t)

    async def create(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = request.match_info["name"]
        body: models.CreateCollection = await _body(request, models.CreateCollection)
        _refuse_unsupported(body, {"vectors", "sparse_vectors", "metadata"})
        if await self.client.collection_exists(name):  # a collection or an alias of that name
            raise _Conflict(name)
        await self.client.create_collection(
            name, vectors_config=body.vectors, sparse_vectors_config=body.sparse_vectors, metadata=body.metadata
        )
        self.indexes.pop(name, None)
        self._save_indexes()
        return _reply(True, t)

    async def info(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        info = await self.client.get_collection(name)
        info.payload_schema = await self._payload_schema(name)
        return _reply(info, t)

    async def update(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        body: models.UpdateCollection = await _body(request, models.UpdateCollection)
        _refuse_unsupported(body, {"sparse_vectors", "metadata"})
        await self.client.update_collection(
            name, sparse_vectors_config=body.sparse_vectors, metadata=body.metadata
        )
        return _reply(True, t)

    async def drop(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = request.match_info["name"]
        existed = await self.client.delete_collection(name)
        if self.indexes.pop(name, None) is not None:
            self._save_indexes()
        return _reply(existed, t)

    async def create_index(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        body: models.CreateFieldIndex = await _body(request, models.CreateFieldIndex)
        if body.field_schema is None:
            raise ValueError("the Qdrant stand-in needs a field_schema to create an index")
        with warnings.catch_warnings():  # "Payload indexes have no effect in the local Qdrant"
            warnings.simplefilter("ignore", UserWarning)
            result = await self.client.create_payload_index(name, body.field_name, field_schema=body.field_schema)
        self.indexes.setdefault(name, {})[body.field_name] = to_jsonable_python(body.field_schema, exclude_none=True)
        self._save_indexes()
        return _reply(result, t)

    # -- aliases ----------------------------------------------------------------------------------

    async def change_aliases(self, request: web.Request) -> web.Response:
        """Check every action against the state the earlier ones leave (as Qdrant does), then let local
        mode apply them all at once: a refused action changes nothing."""
        t = time.perf_counter()
        body: models.ChangeAliasesOperation = await _body(request, models.ChangeAliasesOperation)
        aliases, collections = await self._alias_map(), await self._collection_names()
        for action in body.actions:
            if isinstance(action, models.CreateAliasOperation):
                new = action.create_alias
                if new.collection_name not in collections:
                    raise _Missing(new.collection_name)
                if new.alias_name in collections:
                    raise _Conflict(new.alias_name)
                aliases[new.alias_name] = new.collection_name
            elif isinstance(action, models.DeleteAliasOperation):
                aliases.pop(action.delete_alias.alias_name, None)
            else:
                rename = action.rename_alias
                if rename.old_alias_name not in aliases:
                    raise _Missing(rename.old_alias_name)
                if rename.new_alias_name in collections:
                    raise _Conflict(rename.new_alias_name)
                aliases[rename.new_alias_name] = aliases.pop(rename.old_alias_name)
        return _reply(await self.client.update_collection_aliases(body.actions), t)

    async def aliases(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        return _reply(await self.client.get_aliases(), t)

    async def collection_aliases(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        return _reply(await self.client.get_collection_aliases(name), t)

    # -- points -----------------------------------------------------------------------------------

    async def upsert(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        ops = await _body(request, models.PointInsertOperations)
        _refuse_unsupported(ops, {"points", "batch", "update_filter", "update_mode"})
        points = ops.points if isinstance(ops, models.PointsList) else ops.batch
        result = await self.client.upsert(
            name, points, update_filter=ops.update_filter, update_mode=ops.update_mode
        )
        return _reply(result, t)

    async def retrieve(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        body: models.PointRequest = await _body(request, models.PointRequest)
        _refuse_unsupported(body, {"ids", "with_payload", "with_vector"})
        with_payload = True if body.with_payload is None else body.with_payload
        records = await self.client.retrieve(
            name, body.ids, with_payload=with_payload, with_vectors=body.with_vector or False
        )
        return _reply(records, t)

    async def set_payload(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        body: models.SetPayload = await _body(request, models.SetPayload)
        _refuse_unsupported(body, {"payload", "points", "filter", "key"})
        selector: models.PointsSelector
        if body.points is not None and body.filter is None:
            selector = models.PointIdsList(points=body.points)
        elif body.filter is not None and body.points is None:
            selector = models.FilterSelector(filter=body.filter)
        else:
            raise ValueError("the Qdrant stand-in needs exactly one of points or filter")
        result = await self.client.set_payload(name, body.payload, selector, key=body.key)
        return _reply(result, t)

    async def scroll(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        body: models.ScrollRequest = await _body(request, models.ScrollRequest)
        _refuse_unsupported(body, {"offset", "limit", "filter", "with_payload", "with_vector", "order_by"})
        records, next_offset = await self.client.scroll(
            name,
            scroll_filter=body.filter,
            limit=10 if body.limit is None else body.limit,
            order_by=body.order_by,
            offset=body.offset,
            with_payload=True if body.with_payload is None else body.with_payload,
            with_vectors=body.with_vector or False,
        )
        return _reply(models.ScrollResult(points=records, next_page_offset=next_offset), t)

    async def count(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        body: models.CountRequest = await _body(request, models.CountRequest)
        _refuse_unsupported(body, {"filter", "exact"})
        return _reply(await self.client.count(name, count_filter=body.filter), t)

    async def delete(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        selector = await _body(request, models.PointsSelector)
        _refuse_unsupported(selector, {"points", "filter"})
        return _reply(await self.client.delete(name, selector), t)

    async def query_batch(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        body: models.QueryRequestBatch = await _body(request, models.QueryRequestBatch)
        for search in body.searches:
            _refuse_unsupported(search, set(models.QueryRequest.model_fields) - {"shard_key"})
        return _reply(await self.client.query_batch_points(name, body.searches), t)

    async def facet(self, request: web.Request) -> web.Response:
        t = time.perf_counter()
        name = await self._existing(request)
        body: models.FacetRequest = await _body(request, models.FacetRequest)
        _refuse_unsupported(body, {"key", "limit", "filter", "exact"})
        limit = 10 if body.limit is None else body.limit
        return _reply(await self.client.facet(name, key=body.key, facet_filter=body.filter, limit=limit), t)


def make_app(client: AsyncQdrantClient, path: Path | None = None) -> web.Application:
    """The stand-in's aiohttp application over ``client`` (local mode; ``path`` is its folder, if any)."""
    app = web.Application(middlewares=[_errors])
    app.add_routes(_Backend(client, path).routes())
    return app


class QdrantStandIn:
    """Run the stand-in in this process on 127.0.0.1: ``async with QdrantStandIn(path) as url: ...``.

    ``path`` persists the data (local mode's folder; one stand-in at a time may hold it);
    ``None`` keeps it in memory. ``port=0`` picks a free port; ``url`` is set once started.
    """

    def __init__(self, path: Path | None = None, port: int = 0) -> None:
        self.path = path
        self.port = port
        self.url = ""
        self._client: AsyncQdrantClient | None = None
        self._runner: web.AppRunner | None = None

    async def start(self) -> str:
        if self.path is not None:
            self.path.mkdir(parents=True, exist_ok=True)
            self._client = AsyncQdrantClient(path=str(self.path))
        else:
            self._client = AsyncQdrantClient(location=":memory:")
        self._runner = web.AppRunner(make_app(self._client, self.path), access_log=None)
        try:
            await self._runner.setup()
            await web.TCPSite(self._runner, "127.0.0.1", self.port).start()
        except BaseException:
            await self.stop()
            raise
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self.url

    async def stop(self) -> None:
        runner, client = self._runner, self._client
        self._runner = self._client = None
        if runner is not None:
            await runner.cleanup()
        if client is not None:
            await client.close()

    async def __aenter__(self) -> str:
        return await self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()


async def _serve(port: int, path: Path | None) -> None:
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    async with QdrantStandIn(path, port) as url:
        print(f"listening {url}", flush=True)
        await stopping.wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.qdrant_standin", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--path", type=Path, default=None, help="folder that persists the data (default: memory)")
    args = parser.parse_args(argv)
    asyncio.run(_serve(args.port, args.path))


if __name__ == "__main__":
    main()
