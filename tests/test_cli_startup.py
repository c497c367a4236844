"""The ``heyan`` CLI starts quickly: importing it loads no vendor SDK and no store.

Every command imports what it needs inside its own body, so ``heyan --help`` and ``heyan config`` do
not pay for qdrant-client, discord.py, slack-bolt, openai or arq (issue 24: ``heyan --help`` took a
median 4.6 s when the CLI imported them all at start-up). Timing is measured, not asserted here
(docs/RELIABILITY.md, "Test suite"); what is asserted is what gets imported, in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What the CLI must not import before a command needs it: the vendor SDKs, and the slowest of the
#: rest (redis, numpy, the runtime, the stores, the offline provider, cn2an: ~0.3 s each).
HEAVY = ("qdrant_client", "qdrant_edge", "discord", "slack_bolt", "slack_sdk", "openai", "arq",
         "redis", "numpy", "adapters.runtime.composition", "memory.store.edge", "memory.store.server", "bot.offline",
         "cn2an", "lemminflect")

_PROBE = """
import json, sys
{setup}
print(json.dumps(sorted(sys.modules)))
"""


def _heavy(setup: str) -> list[str]:
    """The HEAVY packages (or modules) loaded after ``setup`` runs in a fresh interpreter."""
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(setup=setup)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded: list[str] = json.loads(proc.stdout.splitlines()[-1])
    assert "typer" in loaded  # the probe sees what the CLI pulled in
    return sorted({h for h in HEAVY for m in loaded if m == h or m.startswith(h + ".")})


def test_importing_the_cli_loads_no_vendor_sdk() -> None:
    assert _heavy("import adapters.cli.app") == []


def test_help_and_config_load_no_vendor_sdk() -> None:
    """Building every command's help (typer reads each command's signature) and printing the settings
    stay light as well."""
    setup = """
import contextlib, io
from typer.testing import CliRunner
from adapters.cli.app import app
for args in (["--help"], ["config"], ["memory", "--help"], ["bench", "--help"], ["jobs", "--help"]):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, (args, result.output)
"""
    assert _heavy(setup) == []
