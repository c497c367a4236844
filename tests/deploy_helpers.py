"""What the deployment tests share: the environment variables Heyan's settings read."""

from __future__ import annotations

from pydantic_settings import BaseSettings

from bot.secret_files import secret_files
from bot.settings import Settings

__all__ = ["sections", "setting_variables"]


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
