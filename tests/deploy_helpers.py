"""What the deployment tests share: the variables Heyan's settings read, and reading the locks."""

from __future__ import annotations

import re
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import Version
from pydantic_settings import BaseSettings

from bot.config.secret_files import secret_files
from bot.config.settings import Settings

__all__ = ["COMPOSE_ONLY", "DEV_LOCK", "LOCK", "pins", "sections", "setting_variables"]

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
DEV_LOCK = ROOT / "requirements-dev.lock"
#: Variables compose.yaml interpolates that are not Heyan settings (they shape the compose project).
COMPOSE_ONLY = {"HEYAN_IMAGE", "HEYAN_BASE_IMAGE", "SLACK_HTTP_PUBLISH", "QDRANT_MEMORY_LIMIT", "VALKEY_MEMORY_LIMIT"}
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def pins(path: Path) -> dict[str, list[tuple[Version, str]]]:
    """Name → [(version, marker)] of a lock; asserts every pin is followed by at least one hash."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: dict[str, list[tuple[Version, str]]] = {}
    for i, line in enumerate(lines):
        m = _PIN.match(line)
        if m is None:
            continue
        assert i + 1 < len(lines) and "--hash=sha256:" in lines[i + 1], f"{path.name}: {m.group(1)} has no hash"
        out.setdefault(canonicalize_name(m.group(1)), []).append((Version(m.group(2)), m.group(3) or ""))
    return out


def sections() -> dict[str, type[BaseSettings]]:
    """The settings sections (``llm``, ``qdrant``, ...) by their field name in ``Settings``."""
    out: dict[str, type[BaseSettings]] = {}
    for name, info in Settings.model_fields.items():
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, BaseSettings):
            out[name] = kind
    return out


def setting_variables() -> set[str]:
    """Every environment variable Heyan reads: ``HEYAN_<FIELD>``, ``HEYAN_<SECTION>_<FIELD>``, the two
    aliases and the ``HEYAN_<SECRET>_FILE`` variables."""
    names = {"HEYAN_EMBEDDER", "HEYAN_ENCRYPTION_KEYS"}
    parts = sections()
    for name in Settings.model_fields:
        if name not in parts:
            names.add(f"HEYAN_{name.upper()}")
    for cls in parts.values():
        prefix = str(cls.model_config.get("env_prefix", "HEYAN_"))
        names.update(prefix + field.upper() for field in cls.model_fields)
    names.update(secret_files(parts))
    return names
