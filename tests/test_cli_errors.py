"""Startup problems end in one line that says what to do, and exit status 2."""

from __future__ import annotations

import asyncio
from pathlib import Path

from typer.testing import CliRunner

from adapters.cli.app import app
from memory.store.edge import EdgeStore


def test_data_dir_that_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = CliRunner().invoke(app, ["memory", "list"], env={"HEYAN_DATA_DIR": str(blocker / "data")})
    assert result.exit_code == 2
    assert "HEYAN_DATA_DIR" in result.output
    assert "Traceback" not in result.output


def test_store_locked_by_another_holder(tmp_path: Path) -> None:
    from memory.index.embedders import LocalEmbedder

    loop = asyncio.new_event_loop()  # the holder lives in its own loop; the CLI runs its own
    holder = loop.run_until_complete(
        EdgeStore.open(tmp_path / "qdrant", embedder_name=LocalEmbedder().name, dim=512)
    )
    try:
        result = CliRunner().invoke(app, ["memory", "list"], env={"HEYAN_DATA_DIR": str(tmp_path)})
    finally:
        loop.run_until_complete(holder.close())
        loop.close()
    assert result.exit_code == 2
    assert "HEYAN_QDRANT_URL" in result.output and "Traceback" not in result.output


def test_bad_setting_names_the_variable() -> None:
    result = CliRunner().invoke(app, ["config"], env={"HEYAN_STORE": "mongodb"})
    assert result.exit_code == 2
    assert "HEYAN_STORE" in result.output


def test_unreachable_redis(tmp_path: Path) -> None:
    env = {"HEYAN_DATA_DIR": str(tmp_path), "HEYAN_REDIS_URL": "redis://127.0.0.1:1/0"}
    result = CliRunner().invoke(app, ["memory", "list"], env=env)
    assert result.exit_code == 2
    assert "HEYAN_REDIS_URL" in result.output
