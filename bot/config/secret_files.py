"""Secrets read from files: ``HEYAN_<NAME>_FILE=/run/secrets/<name>`` instead of ``HEYAN_<NAME>``.

Any secret setting (each ``SecretStr``, and ``HEYAN_REDIS_URL``) may come from a file, so it never shows
in ``docker inspect`` or ``/proc/<pid>/environ``. The value is the file's content stripped; empty is
unset. Refused in one line each: a missing, unreadable, directory or huge file; both ``HEYAN_X`` and
``HEYAN_X_FILE``; a ``_FILE`` variable naming no secret (a typo is never silently ignored).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from pydantic import SecretStr
from pydantic_settings import BaseSettings

__all__ = ["SECRET_FILE_SUFFIX", "SecretFile", "secret_file_values", "secret_files"]

SECRET_FILE_SUFFIX = "_FILE"
#: A secret is a token or a key list: anything larger is the wrong file (a log, a key store, a dump).
_MAX_BYTES = 64 * 1024
#: Names that are not ``<section prefix><field>`` (``PrivacySettings.encryption_keys`` reads this one).
_ALIASES = {"HEYAN_ENCRYPTION_KEYS": ("privacy", "encryption_keys")}
#: Settings that are not SecretStr but may hold a password.
_ALSO = (("redis", "url"),)


@dataclass(frozen=True, slots=True)
class SecretFile:
    """A setting that may come from a file: its section, field and environment variable."""

    section: str
    field: str
    variable: str

    @property
    def file_variable(self) -> str:
        return self.variable + SECRET_FILE_SUFFIX


def secret_files(sections: Mapping[str, type[BaseSettings]]) -> dict[str, SecretFile]:
    """Every setting of ``sections`` that may be read from a file, by its ``*_FILE`` variable."""
    found: list[SecretFile] = []
    for section, cls in sections.items():
        prefix = str(cls.model_config.get("env_prefix", "HEYAN_"))
        for name, info in cls.model_fields.items():
            secret = info.annotation is SecretStr or SecretStr in get_args(info.annotation)
            if secret or (section, name) in _ALSO:
                variable = next((v for v, at in _ALIASES.items() if at == (section, name)), prefix + name.upper())
                found.append(SecretFile(section, name, variable))
    return {s.file_variable: s for s in found}


def secret_file_values(
    sections: Mapping[str, type[BaseSettings]], environ: Mapping[str, str] | None = None,
) -> tuple[dict[str, dict[str, str]], list[str]]:
    """The values of the secrets given as files, per section and field, and the problems found
    (each a line naming the variable and what to do). Empty files are left out (unset)."""
    env = os.environ if environ is None else environ
    known = secret_files(sections)
    values: dict[str, dict[str, str]] = {}
    problems: list[str] = []
    for name in sorted(env):
        if not (name.startswith("HEYAN_") and name.endswith(SECRET_FILE_SUFFIX)) or not env[name]:
            continue
        spec = known.get(name)
        if spec is None:
            problems.append(f"{name}: Heyan reads no setting from a file under that name; the secrets it reads "
                            f"from files are {', '.join(sorted(known))}")
            continue
        if env.get(spec.variable):
            problems.append(f"{spec.variable} and {name} are both set: give the secret one way, unset one of them")
            continue
        value, problem = _read(name, Path(env[name]))
        if problem:
            problems.append(problem)
        elif value:
            values.setdefault(spec.section, {})[spec.field] = value
    return values, problems


def _read(variable: str, path: Path) -> tuple[str, str | None]:
    """The file's stripped text, or the one-line problem."""
    where = f"{variable}={path}"
    try:
        if path.is_dir():
            return "", f"{where}: that is a folder; name the file that holds the secret"
        with path.open("rb") as f:
            data = f.read(_MAX_BYTES + 1)
    except FileNotFoundError:
        return "", (f"{where}: no such file; create it (compose: the file under secrets/ that compose.yaml names, "
                    "see docs/DEPLOY.md) or unset the variable")
    except PermissionError:
        return "", (f"{where}: permission denied for uid {os.getuid()}; make the file readable by the user Heyan "
                    "runs as (the image's uid is 10001: `chmod 644` the file inside a folder only you can enter, "
                    "or `chown 10001` it)")
    except OSError as exc:
        return "", f"{where}: cannot read it ({exc.strerror})"
    if len(data) > _MAX_BYTES:
        return "", f"{where}: the file is over {_MAX_BYTES // 1024} KiB, too large for a secret; is it the right file?"
    try:
        return data.decode("utf-8").strip(), None
    except UnicodeDecodeError:
        return "", f"{where}: the file is not UTF-8 text; a secret file holds the value as text"
