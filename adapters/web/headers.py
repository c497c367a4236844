"""Headers built from what members and platforms name: an id of any alphabet in a download's name.

``Content-Disposition`` is Latin-1 and a quote would end ``filename``, so ``attachment`` writes both RFC
6266 forms: an ASCII ``filename`` (others replaced by ``_``) and ``filename*=UTF-8''…`` (RFC 5987).
"""

from __future__ import annotations

import re
from urllib.parse import quote

__all__ = ["attachment"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def attachment(filename: str) -> str:
    """The ``Content-Disposition`` value of a download named ``filename`` (any Unicode)."""
    plain = _UNSAFE.sub("_", filename)[:150] or "download"
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename[:150], safe='')}"
