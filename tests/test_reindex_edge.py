"""``heyan memory reindex`` on the embedded store: to an embedder of another dimension, and killed at
each step (mid-copy, before the completion marker, between the two renames, before the old copy is
removed) — then started normally and re-run — it loses no record and never opens an empty store."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
from pathlib import Path

import pytest

import adapters.maintenance.rebuild
import memory.store.files
from adapters.maintenance.rebuild import Records
from adapters.maintenance.reindex import reindex
from adapters.runtime.composition import open_store
from memory.errors import EmbedderMismatchError, StoreError, StoreLockedError
from memory.store.edge import EdgeStore
from memory.store.files import old_path, staging_path, take_swap_guard
from tests.rebuild_helpers import (
    Interrupt,
    check_holds,
    edge_settings,
    fail_on,
    memories,
    new_embedder,
    old_embedder,
    quiet,
    seed,
)

ROOT = Path(__file__).resolve().parents[1]

# qdrant-client checks a server's version in a background thread; an earlier test's warning may land here.
pytestmark = pytest.mark.filterwarnings("ignore:Failed to obtain server version:UserWarning")


async def seeded(data: Path) -> Records:
    store = await open_store(edge_settings(data), old_embedder())
    try:
        return await seed(store, old_embedder(), *memories())
    finally:
        await store.close()


async def holds(data: Path, expected: Records, embedder: object) -> None:
    """A normal start (open_store, with its recovery) finds every record, embedded by ``embedder``."""
    store = await open_store(edge_settings(data), embedder)  # type: ignore[arg-type]
    try:
        await check_holds(store, expected, embedder)
    finally:
        await store.close()


async def test_reindex_to_another_dimension(tmp_path: Path) -> None:
    expected = await seeded(tmp_path)
    with pytest.raises(EmbedderMismatchError):
        await open_store(edge_settings(tmp_path), new_embedder())
    outcome = await reindex(edge_settings(tmp_path), console=quiet(), embedder=new_embedder())
    assert outcome.written == len(expected) == outcome.total == 156
    assert outcome.counts["summaries"] == {"discord:1": 2, "discord:2": 2, "slack:T3": 2}
    await holds(tmp_path, expected, new_embedder())
    store_dir = tmp_path / "qdrant"
    assert not staging_path(store_dir).exists() and not old_path(store_dir).exists()
    assert not (store_dir / "complete.json").exists()


async def test_nothing_to_reindex_on_a_new_data_dir(tmp_path: Path) -> None:
    outcome = await reindex(edge_settings(tmp_path), console=quiet(), embedder=new_embedder())
    assert outcome.written == 0 and "nothing to re-index" in outcome.note
    assert not (tmp_path / "qdrant").exists()


async def test_killed_mid_copy_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = await seeded(tmp_path)
    monkeypatch.setattr(adapters.maintenance.rebuild, "index_facts", fail_on(2, adapters.maintenance.rebuild.index_facts))
    with pytest.raises(Interrupt):
        await reindex(edge_settings(tmp_path), console=quiet(), embedder=new_embedder())
    monkeypatch.undo()
    assert staging_path(tmp_path / "qdrant").exists()
    # The bot starts in between on the old embedder: the old store is whole, and it writes a record.
    store = await open_store(edge_settings(tmp_path), old_embedder())
    try:
        await check_holds(store, expected, old_embedder())
        facts, _ = memories(1, tag="later-")
        expected = await seed(store, old_embedder(), facts[:1], [])
    finally:
        await store.close()
    embedder = new_embedder()
    outcome = await reindex(edge_settings(tmp_path), console=quiet(), embedder=embedder)
    assert outcome.total == len(expected) == 157
    assert embedder.texts == outcome.written == 157 - 64  # the first batch was not embedded again
    await holds(tmp_path, expected, new_embedder())


async def test_killed_before_the_marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = await seeded(tmp_path)
    monkeypatch.setattr(adapters.maintenance.rebuild, "mark_complete", fail_on(1, adapters.maintenance.rebuild.mark_complete))
    with pytest.raises(Interrupt):
        await reindex(edge_settings(tmp_path), console=quiet(), embedder=new_embedder())
    monkeypatch.undo()
    await holds(tmp_path, expected, old_embedder())  # not swapped: the old store, untouched
    embedder = new_embedder()
    outcome = await reindex(edge_settings(tmp_path), console=quiet(), embedder=embedder)
    assert outcome.written == embedder.texts == 0  # everything was already in the staged copy
    await holds(tmp_path, expected, new_embedder())


def _second_rename(src: Path, dst: Path) -> bool:
    return src.name.endswith(".reindex")


def _removing_old(path: Path) -> bool:
    return path.name.endswith(".old")


@pytest.mark.parametrize(
    ("name", "when"), [("_rename", _second_rename), ("_remove_tree", _removing_old)], ids=["between-renames", "before-removing-old"]
)
async def test_killed_during_the_swap_then_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, when: object
) -> None:
    expected = await seeded(tmp_path)
    real = getattr(memory.store.files, name)
    monkeypatch.setattr(memory.store.files, name, fail_on(1, real, when))  # type: ignore[arg-type]
    with pytest.raises(Interrupt):
        await reindex(edge_settings(tmp_path), console=quiet(), embedder=new_embedder())
    monkeypatch.undo()
    store_dir = tmp_path / "qdrant"
    assert old_path(store_dir).exists()
    if name == "_rename":
        assert not store_dir.exists()
        # Opening without the recovery step refuses rather than create an empty store there.
        with pytest.raises(StoreError, match="interrupted"):
            await EdgeStore.open(store_dir, embedder_name="test-new", dim=48)
        assert not store_dir.exists()
    await holds(tmp_path, expected, new_embedder())  # a normal start finishes the swap
    assert not old_path(store_dir).exists() and not staging_path(store_dir).exists()
    outcome = await reindex(edge_settings(tmp_path), console=quiet(), embedder=new_embedder())
    assert outcome.total == len(expected)
    await holds(tmp_path, expected, new_embedder())


async def test_rerun_after_a_killed_swap_just_finishes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = await seeded(tmp_path)
    monkeypatch.setattr(memory.store.files, "_rename", fail_on(1, memory.store.files._rename, _second_rename))
    with pytest.raises(Interrupt):
        await reindex(edge_settings(tmp_path), console=quiet(), embedder=new_embedder())
    monkeypatch.undo()
    embedder = new_embedder()
    outcome = await reindex(edge_settings(tmp_path), console=quiet(), embedder=embedder)
    assert outcome.written == embedder.texts == 0 and "complete" in outcome.note
    await holds(tmp_path, expected, new_embedder())


async def test_a_swap_left_without_a_complete_copy_rolls_back(tmp_path: Path) -> None:
    expected = await seeded(tmp_path)
    store_dir = tmp_path / "qdrant"
    os.rename(store_dir, old_path(store_dir))  # as if killed after the first rename of a broken run
    staging_path(store_dir).mkdir()
    await holds(tmp_path, expected, old_embedder())
    assert not old_path(store_dir).exists()


async def test_no_process_opens_the_store_while_a_rebuild_holds_it(tmp_path: Path) -> None:
    await seeded(tmp_path)
    guard = take_swap_guard(tmp_path / "qdrant")
    try:
        with pytest.raises(StoreLockedError, match="reindex"):
            await open_store(edge_settings(tmp_path), old_embedder())
        with pytest.raises(StoreLockedError, match=f"pid {os.getpid()}"):
            await EdgeStore.open(tmp_path / "qdrant", embedder_name="test-old", dim=32)
    finally:
        guard.release()
    store = await open_store(edge_settings(tmp_path), old_embedder())
    try:
        with pytest.raises(StoreLockedError, match="single-process"):
            await reindex(edge_settings(tmp_path), console=quiet(), embedder=new_embedder())
    finally:
        await store.close()


_KILLED_RUN = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from pathlib import Path
    import adapters.maintenance.rebuild, memory.store.files
    from adapters.maintenance.reindex import reindex
    from tests.rebuild_helpers import edge_settings, new_embedder, quiet

    def killer(real, when):
        def wrapper(*args, **kwargs):
            if when(*args):
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        return wrapper

    calls = []
    if sys.argv[2] == "mid-copy":
        adapters.maintenance.rebuild.index_facts = killer(adapters.maintenance.rebuild.index_facts, lambda *a: calls.append(1) or len(calls) == 2)
    else:
        memory.store.files._rename = killer(memory.store.files._rename, lambda src, dst: src.name.endswith(".reindex"))
    asyncio.run(reindex(edge_settings(Path(sys.argv[1])), console=quiet(), embedder=new_embedder()))
    """
)


@pytest.mark.parametrize("where", ["mid-copy", "between-renames"])
async def test_sigkill_then_start_then_rerun(tmp_path: Path, where: str) -> None:
    """The real thing: the process dies without running a single ``finally``."""
    expected = await seeded(tmp_path)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _KILLED_RUN, str(tmp_path), where, cwd=ROOT, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    embedder = old_embedder() if where == "mid-copy" else new_embedder()
    await holds(tmp_path, expected, embedder)  # a normal start: the old store, or the swap finished
    await reindex(edge_settings(tmp_path), console=quiet(), embedder=new_embedder())
    await holds(tmp_path, expected, new_embedder())
