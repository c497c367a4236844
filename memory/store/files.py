"""The embedded store's files around its Qdrant Edge shards: locks, the embedder record, and the
staged copy that ``heyan memory reindex`` and ``heyan memory migrate --to edge`` build and swap in.

Beside the store directory ``P``: ``P.swap.lock`` (held by a rebuild for its whole run), ``P/.lock``
(one process has it open), ``P/meta.json`` (embedder and dimension), ``P.reindex/`` (the copy being
built; ``complete.json`` once flushed) and ``P.old/`` (during a swap only). ``recover_interrupted_swap``
runs before every open; docs/DEPLOY.md, "How a reindex or a migration stays safe to kill".
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memory.errors import StoreError, StoreLockedError
from memory.store.common import LAYERS, META_FILE, check_embedder

__all__ = [
    "COMPLETE_FILE",
    "DirLock",
    "Recovery",
    "check_complete",
    "clear_complete",
    "is_complete",
    "mark_complete",
    "old_path",
    "read_meta",
    "recover_interrupted_swap",
    "refuse_fresh_store_beside_swap",
    "remove_store",
    "staging_path",
    "swap_in",
    "take_swap_guard",
    "use_meta",
]

#: The completion marker of a staged copy: present only once every record is written and flushed.
COMPLETE_FILE = "complete.json"


def staging_path(path: Path) -> Path:
    """Where a rebuild of the store at ``path`` is built before it is swapped in."""
    return path.with_name(path.name + ".reindex")


def old_path(path: Path) -> Path:
    """Where the previous store waits during a swap, until the new one is in place."""
    return path.with_name(path.name + ".old")


def _guard_path(path: Path) -> Path:
    return path.with_name(path.name + ".swap.lock")


class DirLock:
    """An exclusive, non-blocking ``flock`` on one file, held until ``release()``.

    The holder's pid is written into the file only so that the next process's error can name it.
    """

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def __repr__(self) -> str:
        return f"DirLock(path={str(self.path)!r}, held={self._fd is not None})"

    @classmethod
    def take(cls, path: Path, busy: Callable[[str], str]) -> DirLock:
        """Lock ``path`` (created if missing); ``StoreLockedError(busy(holder_pid))`` if it is held."""
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"cannot open the lock file {path}: {exc.strerror}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = ""
            with contextlib.suppress(OSError):
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            raise StoreLockedError(busy(holder)) from None
        except OSError as exc:
            os.close(fd)
            raise StoreError(f"cannot lock {path}: {exc}") from exc
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        """Unlock and close; safe to call twice."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        # Best effort on the pid note; the unlock itself happens on close even if these fail.
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def take_swap_guard(path: Path) -> DirLock:
    """The guard of the store at ``path``: a rebuild holds it for its whole run, an open or a recovery
    for a moment, so no process opens the store while a rebuild reads it or swaps it."""
    def busy(holder: str) -> str:
        who = f" (pid {holder})" if holder else ""
        return (
            f"a `heyan memory reindex` or `heyan memory migrate`{who} is rebuilding the memory store at "
            f"{path}; wait for it to finish, then start again"
        )

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the data directory {path.parent}: {exc.strerror}") from exc
    return DirLock.take(_guard_path(path), busy)


# -- the embedder record ------------------------------------------------------------------------


def read_meta(path: Path) -> tuple[str, int] | None:
    """The embedder name and dimension recorded for the store at ``path``; None if it has none yet."""
    meta_path = path / META_FILE
    if not meta_path.exists():
        return None
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        return str(meta["embedder"]), int(meta["dim"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StoreError(
            f"cannot read {meta_path}: {exc}. Restore it from a backup; it holds the embedder name and "
            f'dimension, e.g. {{"embedder": "local:use-multilingual-v3", "dim": 512}}'
        ) from exc


def use_meta(path: Path, embedder_name: str, dim: int) -> None:
    """Check ``meta.json`` against the configured embedder, or record it when the store is new."""
    recorded = read_meta(path)
    if recorded is not None:
        check_embedder(f"the memory store at {path}", recorded[0], recorded[1], embedder_name, dim)
        return
    _write_json(path / META_FILE, {"embedder": embedder_name, "dim": dim})


def check_complete(path: Path) -> None:
    """A store that was created (its meta file exists) must still have both shards: a missing one
    would silently start empty, as if every memory had been forgotten."""
    if not (path / META_FILE).exists():
        return
    for layer in LAYERS:
        shard = path / layer
        if not (shard / "edge_config.json").exists():
            what = "is missing" if not shard.exists() else "has lost its edge_config.json"
            raise StoreError(
                f"the memory store at {path} is incomplete: its {layer} shard ({shard}) {what}. Restore the "
                f"data dir from a backup; to start over with no memories, move {path} aside"
            )


def _write_json(target: Path, data: Mapping[str, Any]) -> None:
    """Write ``target`` atomically and durably: a temp file, fsync, rename, fsync of the folder."""
    tmp = target.with_name(target.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            json.dump(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    except OSError as exc:
        raise StoreError(f"cannot write {target}: {exc.strerror}") from exc


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- the staged copy and the swap ----------------------------------------------------------------


def mark_complete(path: Path, info: Mapping[str, Any]) -> None:
    """Record that the staged copy at ``path`` holds every record, flushed (call after closing it)."""
    _write_json(path / COMPLETE_FILE, info)


def is_complete(path: Path) -> bool:
    return (path / COMPLETE_FILE).is_file()


def clear_complete(path: Path) -> None:
    """Drop the marker: a copy that is written to again is not complete until marked again."""
    marker = path / COMPLETE_FILE
    if marker.exists():
        try:
            marker.unlink()
            _fsync_dir(path)
        except OSError as exc:
            raise StoreError(f"cannot remove {marker}: {exc.strerror}") from exc


def _blank(path: Path) -> bool:
    """A directory holding nothing but a lock file: an open that stopped before creating anything."""
    try:
        return path.is_dir() and set(os.listdir(path)) <= {".lock"}
    except OSError:
        return False


def _present(path: Path) -> bool:
    return path.exists() and not _blank(path)


def _rename(src: Path, dst: Path) -> None:
    try:
        os.rename(src, dst)
        _fsync_dir(dst.parent)
    except OSError as exc:
        raise StoreError(f"cannot rename {src} to {dst}: {exc.strerror}. Rename it by hand, then start again") from exc


def _remove_tree(path: Path) -> None:
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"cannot remove {path}: {exc.strerror}. Remove it by hand") from exc


def remove_store(path: Path) -> None:
    """Remove a store directory (an abandoned staged copy), if it exists."""
    _remove_tree(path)


def swap_in(path: Path) -> None:
    """Put the complete staged copy in place of the store at ``path``; the caller holds the guard.

    The old store is removed only once the new one is in place; ``recover_interrupted_swap``
    says what an interruption at each step leaves and how it is recovered.
    """
    new, old = staging_path(path), old_path(path)
    if not is_complete(new):
        raise StoreError(f"{new} is not a complete copy (no {COMPLETE_FILE}); run the rebuild again")
    if old.exists():
        raise StoreError(f"{old} exists: an earlier swap was interrupted; start Heyan once to recover it")
    if _blank(path):
        _remove_tree(path)
    if path.exists():
        _rename(path, old)
    _rename(new, path)
    _remove_tree(old)
    clear_complete(path)


@dataclass(frozen=True, slots=True)
class Recovery:
    """What ``recover_interrupted_swap`` did: finished the swap (the rebuilt copy is in place) or rolled
    it back (the previous store is in place), and a one-line ``message`` for the log."""

    action: Literal["finished", "rolled back"]
    message: str


def recover_interrupted_swap(path: Path, *, guard: DirLock | None = None) -> Recovery | None:
    """End a swap that a killed rebuild left half done; None if there was none.

    ``swap_in`` renames ``P`` → ``P.old``, ``P.reindex`` → ``P``, then removes ``P.old`` and
    ``P/complete.json``, so a kill leaves one of these states:

    * ``P.old`` and a complete ``P``: remove ``P.old`` (the renames had finished);
    * ``P.old``, no ``P``, a complete ``P.reindex``: rename it to ``P``, remove ``P.old``;
    * ``P.old``, no ``P``, no complete copy: rename ``P.old`` back to ``P`` (roll back);
    * no ``P``, a complete ``P.reindex``: rename it to ``P`` (a first copy, e.g. migrate);
    * ``P.old`` and an incomplete ``P``: refuse (someone else made ``P``; say which to keep).

    An incomplete ``P.reindex`` is left for the next rebuild to resume.

    Takes the guard unless the caller holds it (``guard``); a rebuild that is still running makes
    this raise StoreLockedError, and a state it cannot decide raises StoreError naming both copies.
    """
    held = guard or take_swap_guard(path)
    try:
        return _recover(path)
    finally:
        if guard is None:
            held.release()


def _recover(path: Path) -> Recovery | None:
    new, old = staging_path(path), old_path(path)
    if old.exists():
        if _present(path):
            if not is_complete(path):
                raise StoreError(
                    f"both {path} and {old} exist and {path} is not a finished rebuild: keep the copy you "
                    f"trust at {path}, move the other one out of the data dir, then start again"
                )
            _remove_tree(old)
            clear_complete(path)
            return Recovery("finished", f"finished an interrupted swap: removed the old copy {old}")
        if is_complete(new):
            _remove_tree(path)
            _rename(new, path)
            _remove_tree(old)
            clear_complete(path)
            return Recovery("finished", f"finished an interrupted swap: {path} is the rebuilt store, {old} removed")
        _remove_tree(path)
        _rename(old, path)
        return Recovery("rolled back", f"rolled back an interrupted swap: {path} is the previous store again")
    if not _present(path) and is_complete(new):
        _remove_tree(path)
        _rename(new, path)
        clear_complete(path)
        return Recovery("finished", f"finished an interrupted swap: {path} is the rebuilt store")
    if is_complete(path):  # killed between removing the old copy and dropping the marker
        clear_complete(path)
    return None


def refuse_fresh_store_beside_swap(path: Path) -> None:
    """StoreError if creating a new, empty store at ``path`` would hide an interrupted swap's data."""
    if (path / META_FILE).exists():
        return
    old, new = old_path(path), staging_path(path)
    other = old if old.exists() else new if is_complete(new) else None
    if other is not None:
        raise StoreError(
            f"the memory store at {path} is missing but {other} holds a copy from an interrupted "
            f"`heyan memory reindex` or `migrate`: start Heyan normally (it finishes or rolls back the "
            f"swap) or run the command again; Heyan will not start on an empty store beside it"
        )
