"""A wrong encryption key stops a process with one line and exit status 2, not a traceback.

Issue 24: a worker in compose restarted forever, printing arq's 175-line traceback each time. Here the
real ``heyan worker`` starts against a Redis whose key marker was sealed with another key (and a Qdrant
served over HTTP by the stand-in), its key given as a file the way compose hands it over.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from redis.asyncio import Redis

from bot.privacy.sealing import check_marker
from memory.store.crypto import Cipher, generate_key, key_id, parse_keys
from tests.qdrant_standin import QdrantStandIn

pytestmark = pytest.mark.slow  # a real worker process: the embedder's model loads before the key check


async def _heyan(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli.app", *args, env=env, cwd=cwd,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(proc.communicate(), 180)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


async def test_a_worker_with_the_wrong_key_says_so_in_one_line(redis_url: str, tmp_path: Path) -> None:
    written_with, wrong = generate_key(), generate_key()
    redis = Redis.from_url(redis_url)
    try:
        await check_marker(redis, Cipher(parse_keys(written_with)))  # the first start, with the right key
    finally:
        await redis.aclose()
    key_file = tmp_path / "heyan_encryption_keys"
    key_file.write_text(wrong + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEYAN_")}
    async with QdrantStandIn() as qdrant_url:
        env.update(HEYAN_REDIS_URL=redis_url, HEYAN_QDRANT_URL=qdrant_url, HEYAN_DATA_DIR=str(tmp_path / "data"),
                   HEYAN_ENCRYPTION_KEYS_FILE=str(key_file))
        code, err = await _heyan(["worker"], env, tmp_path)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert "Traceback" not in err and len(lines) == 1, err
    assert lines[0].startswith("error: the data here was encrypted with key "), err
    assert key_id(parse_keys(written_with)[0]) in lines[0] and "HEYAN_ENCRYPTION_KEYS" in lines[0]
