"""``python -m adapters.runtime.healthcheck``: exit 0 when this container's Heyan process is healthy.

The Dockerfile's HEALTHCHECK and compose.yaml run it inside the container: it asks
``http://127.0.0.1:$HEYAN_METRICS_PORT/healthz`` (served by ``adapters.runtime.observability``) and exits 1
with the reason on stderr otherwise. Standard library only, so it starts fast and needs no curl in
the slim image.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

__all__ = ["check", "main"]


def check(port: str | None, timeout: float = 3.0) -> str | None:
    """None when /healthz answers 200, else why not."""
    if not port:
        return "HEYAN_METRICS_PORT is not set, so the process serves no health endpoint"
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            if response.status == 200:
                return None
            return f"{url} answered {response.status}"
    except urllib.error.HTTPError as exc:
        return f"{url} answered {exc.code}: {exc.read(300).decode(errors='replace')}"
    except OSError as exc:
        return f"{url} did not answer: {exc}"


def main() -> int:
    problem = check(os.environ.get("HEYAN_METRICS_PORT"))
    if problem:
        print(problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
