"""docs/ARCHITECTURE.md is a map of the code: every module is named under its folder's heading, and the
map stays short enough to read.

The convention (stated at the top of the doc): a heading names each folder in backticks
(``### `bot/conversation/` ``) and the text under it names each module of that folder by its file name
(`` `intake.py` ``). ``__init__.py`` files are not listed.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PACKAGES = ("bot", "memory", "jobs", "adapters", "prompts")
MAX_LINES = 330

_HEADING = re.compile(r"^#+\s")
_FOLDER_HEADING = re.compile(r"^#+\s+`([\w/]+/)`")


def _sections(text: str) -> dict[str, str]:
    """Folder (``bot/conversation/``) → the text under its heading, up to the next heading."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if _HEADING.match(line):
            match = _FOLDER_HEADING.match(line)
            current = sections.setdefault(match.group(1), []) if match else None
        elif current is not None:
            current.append(line)
    return {folder: "\n".join(lines) for folder, lines in sections.items()}


def _modules() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.name != "__init__.py"
    ]


def test_every_module_is_named_under_its_folder() -> None:
    sections = _sections(DOC.read_text(encoding="utf-8"))
    missing = []
    for path in _modules():
        folder = path.parent.relative_to(ROOT).as_posix() + "/"
        if f"`{path.name}`" not in sections.get(folder, ""):
            missing.append(path.relative_to(ROOT).as_posix())
    assert not missing, (
        f"docs/ARCHITECTURE.md does not name {len(missing)} module(s) under their folder's heading "
        "(a heading like ### `bot/conversation/`, then each module as `intake.py`):\n  " + "\n  ".join(missing)
    )


def test_every_folder_heading_is_a_real_folder() -> None:
    stale = [f for f in _sections(DOC.read_text(encoding="utf-8")) if not (ROOT / f).is_dir()]
    assert not stale, f"docs/ARCHITECTURE.md has headings for folders that do not exist: {stale}"


def test_the_map_stays_short() -> None:
    lines = len(DOC.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"docs/ARCHITECTURE.md is {lines} lines; the map is to stay within {MAX_LINES}"
