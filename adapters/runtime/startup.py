"""What every entry point shares before anything runs: ``StartupError`` (Heyan could not start; one
line says what to fix) and the process's encryption keys. Light on purpose — a platform adapter's
modules and the CLI import it without the composition root (``adapters.runtime.composition``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.config.settings import Settings
from memory.errors import HeyanError

if TYPE_CHECKING:
    from memory.store.crypto import Cipher

__all__ = ["StartupError", "build_cipher"]


class StartupError(HeyanError, RuntimeError):
    """Heyan could not start; the message says what to do."""


def build_cipher(settings: Settings) -> Cipher:
    """The encryption keys of this process: ``HEYAN_ENCRYPTION_KEYS``, else (embedded shape only) the
    key file under the data dir, created on first start. StartupError names the variable."""
    from memory.errors import EncryptionError
    from memory.store.crypto import load_cipher  # here: cryptography is not for every command's start

    keys = settings.privacy.encryption_keys
    try:
        return load_cipher(keys.get_secret_value() if keys else None, settings.data_dir,
                           distributed=settings.distributed)
    except EncryptionError as exc:
        raise StartupError(str(exc)) from exc
