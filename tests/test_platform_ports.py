"""The platform adapters get a narrow port, not the runtime (issue 18 item 9).

Discord, Slack and the web console each have one composition module that sees
``adapters.runtime.composition`` and builds what the platform keeps in Redis for its own wire; every other
module of the platform works through ``bot.platform_port.PlatformPort`` (the engine facade, the
moderation service, sessions, tenant settings, departures, deletions) and the typed objects handed
in. So no other module imports the runtime, names it, or reads Redis, the store or the queue off
anything but itself (a Redis-backed helper keeps its own ``self.redis``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Each platform's one composition module: the only one that sees the runtime.
COMPOSITION = {
    "web": "adapters/web/server.py",
    "discord": "adapters/discord/platform.py",
    "slack": "adapters/slack/platform.py",
}
#: What lives only in the runtime: a platform module reads none of these off another object.
RUNTIME_ONLY = frozenset({"redis", "store", "queue", "cipher", "services", "window", "conversation"})


def _problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{getattr(node, 'lineno', 0)}"
        imported = ([node.module] if isinstance(node, ast.ImportFrom)
                    else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        if "adapters.runtime.composition" in imported:
            found.append(f"{where} imports adapters.runtime.composition")
        elif isinstance(node, ast.Name) and node.id in ("Runtime", "rt"):
            found.append(f"{where} names {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr == "rt":
            found.append(f"{where} reads .rt")
        elif (isinstance(node, ast.Attribute) and node.attr in RUNTIME_ONLY
              and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            found.append(f"{where} reads .{node.attr} off {ast.unparse(node.value)}")
    return found


@pytest.mark.parametrize("platform", sorted(COMPOSITION))
def test_only_the_composition_module_sees_the_runtime(platform: str) -> None:
    package = ROOT / "adapters" / platform
    composition = ROOT / COMPOSITION[platform]
    assert composition.exists()
    problems = [p for path in sorted(package.rglob("*.py")) if path != composition for p in _problems(path)]
    assert problems == [], "\n".join(problems)


def test_the_checker_sees_what_it_forbids(tmp_path: Path) -> None:
    """The check itself: each forbidden shape is reported, a helper's own ``self.redis`` is not."""
    source = tmp_path / "probe.py"
    source.write_text(
        "from adapters.runtime.composition import Runtime\n"
        "def f(bridge, heyan, c):\n"
        "    bridge.rt.engine\n"
        "    heyan.port.redis\n"
        "    c.store\n"
        "class Marks:\n"
        "    def g(self):\n"
        "        return self.redis\n")
    assert sorted(p.split(" ", 1)[1] for p in _problems(source)) == [
        "imports adapters.runtime.composition", "reads .redis off heyan.port", "reads .rt", "reads .store off c"]


def test_the_engine_is_the_port_s_engine() -> None:
    """``Engine`` implements the facade the platforms get (mypy checks the signatures at the
    composition root; this checks nothing the facade names is missing)."""
    from bot.engine import Engine
    from bot.platform_port import PlatformEngine

    wanted = {n for n in vars(PlatformEngine) if not n.startswith("_")}
    assert wanted == {"hear", "answered", "answers_late", "in_dispute", "known", "revise", "retract"}
    assert all(callable(getattr(Engine, n, None)) for n in wanted)


def test_a_mention_read_back_after_a_downtime_is_answered_only_while_recent() -> None:
    """One policy for every platform's catch-up (Discord and Slack each kept ten minutes of their own)."""
    from datetime import UTC, datetime, timedelta

    from bot.engine import LATE_ANSWER_WITHIN, Engine

    said = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    assert timedelta(minutes=10) == LATE_ANSWER_WITHIN
    assert Engine.answers_late(said, said + LATE_ANSWER_WITHIN)
    assert not Engine.answers_late(said, said + LATE_ANSWER_WITHIN + timedelta(seconds=1))
