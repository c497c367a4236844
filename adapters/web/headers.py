"""Headers built from what members and platforms name: an id of any alphabet in a download's name.

A ``Content-Disposition`` header is Latin-1 by HTTP's rules, so a member id such as ``用户一`` cannot
go into it as is (Starlette raised ``UnicodeEncodeError`` after the export had been audited), and a
quote in an id would end the quoted ``filename`` early. ``attachment`` writes RFC 6266's two forms:
``filename`` with every character outside ``[A-Za-z0-9._-]`` replaced by ``_`` (for old clients), and
``filename*=UTF-8''…`` percent-encoded as RFC 5987 says, which browsers prefer.
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
