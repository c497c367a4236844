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

#: What the CLI must not import before a command needs it.
HEAVY = ("qdrant_client", "qdrant_edge", "discord", "slack_bolt", "slack_sdk", "openai", "arq")

_PROBE = """
import json, sys
{setup}
print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))
"""


def _loaded(setup: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(setup=setup)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_importing_the_cli_loads_no_vendor_sdk() -> None:
    loaded = _loaded("import adapters.cli")
    assert "typer" in loaded  # the probe sees what the import pulled in
    assert sorted(loaded & set(HEAVY)) == []


def test_help_and_config_load_no_vendor_sdk() -> None:
    """Building every command's help (typer reads each command's signature) and printing the settings
    stay light as well."""
    setup = """
import contextlib, io
from typer.testing import CliRunner
from adapters.cli import app
for args in (["--help"], ["config"], ["memory", "--help"], ["bench", "--help"], ["jobs", "--help"]):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, (args, result.output)
"""
    assert sorted(_loaded(setup) & set(HEAVY)) == []
