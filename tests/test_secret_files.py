"""Secrets as files (``HEYAN_<NAME>_FILE``): compose secrets and Kubernetes secret volumes.

Each refusal is one ``SettingsError`` line that names the variable and says what to do; ``heyan config``
turns it into one line on stderr and exit status 2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.config.secret_files import secret_file_values
from bot.config.settings import SettingsError, load_settings
from tests.keys import TEST_KEY

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _no_secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite sets HEYAN_ENCRYPTION_KEYS for every test; these tests give it as a file."""
    for name in list(os.environ):
        if name.startswith("HEYAN_") and (name.endswith("_FILE") or name in ("HEYAN_ENCRYPTION_KEYS",)):
            monkeypatch.delenv(name)
    monkeypatch.chdir(ROOT / "tests")  # no .env of the developer's is read


def _secret(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_secrets_are_read_from_files_without_the_trailing_newline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEYAN_ENCRYPTION_KEYS_FILE", str(_secret(tmp_path, "keys", TEST_KEY + "\n")))
    monkeypatch.setenv("HEYAN_DISCORD_TOKEN_FILE", str(_secret(tmp_path, "discord", "  disc.token.value\n")))
    monkeypatch.setenv("HEYAN_QDRANT_API_KEY_FILE", str(_secret(tmp_path, "qdrant", "q-key\r\n")))
    monkeypatch.setenv("HEYAN_REDIS_URL_FILE", str(_secret(tmp_path, "redis", "redis://:pw@valkey:6379/0\n")))
    monkeypatch.setenv("HEYAN_WEB_SLACK_CLIENT_SECRET_FILE", str(_secret(tmp_path, "web", "web-secret")))
    monkeypatch.setenv("HEYAN_WEB_SLACK_CLIENT_ID", "123.456")
    monkeypatch.setenv("HEYAN_WEB_BASE_URL", "https://heyan.example.org")
    s = load_settings()
    assert s.privacy.encryption_keys is not None and s.privacy.encryption_keys.get_secret_value() == TEST_KEY
    assert s.discord.token is not None and s.discord.token.get_secret_value() == "disc.token.value"
    assert s.qdrant.api_key is not None and s.qdrant.api_key.get_secret_value() == "q-key"
    assert s.redis.url == "redis://:pw@valkey:6379/0"
    assert s.web.slack_client_secret is not None and s.web.slack_enabled
    shown = json.dumps(s.masked())
    assert "disc.token.value" not in shown and "pw@" not in shown  # still masked in `heyan config`


def test_an_empty_file_is_an_unset_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compose mounts a secret file for every platform; the unused ones stay empty."""
    monkeypatch.setenv("HEYAN_SLACK_BOT_TOKEN_FILE", str(_secret(tmp_path, "slack", "\n")))
    monkeypatch.setenv("HEYAN_DISCORD_TOKEN_FILE", str(_secret(tmp_path, "discord", "")))
    s = load_settings()
    assert s.slack.bot_token is None and not s.slack.enabled and not s.discord.enabled


def _problem(monkeypatch: pytest.MonkeyPatch, **env: str) -> str:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    return str(caught.value)


def test_a_missing_file_names_the_variable_and_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "secrets" / "discord_token"
    text = _problem(monkeypatch, HEYAN_DISCORD_TOKEN_FILE=str(missing))
    assert f"HEYAN_DISCORD_TOKEN_FILE={missing}: no such file" in text and "unset the variable" in text


def test_a_folder_both_ways_and_an_unknown_name_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "that is a folder" in _problem(monkeypatch, HEYAN_LLM_API_KEY_FILE=str(tmp_path))
    monkeypatch.delenv("HEYAN_LLM_API_KEY_FILE")
    both = _problem(monkeypatch, HEYAN_SLACK_APP_TOKEN="xapp-1", HEYAN_SLACK_APP_TOKEN_FILE=str(_secret(tmp_path, "a", "x")))
    assert "HEYAN_SLACK_APP_TOKEN and HEYAN_SLACK_APP_TOKEN_FILE are both set" in both
    monkeypatch.delenv("HEYAN_SLACK_APP_TOKEN")
    monkeypatch.delenv("HEYAN_SLACK_APP_TOKEN_FILE")
    typo = _problem(monkeypatch, HEYAN_DISCORD_TOKN_FILE=str(_secret(tmp_path, "d", "x")))
    assert "HEYAN_DISCORD_TOKN_FILE: Heyan reads no setting from a file" in typo and "HEYAN_DISCORD_TOKEN_FILE" in typo


def test_a_large_or_binary_file_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.write_bytes(b"x" * (65 * 1024))
    binary = tmp_path / "bin"
    binary.write_bytes(b"\xff\xfe\x00")
    from bot.config.settings import LLMSettings

    _, problems = secret_file_values({"llm": LLMSettings}, {"HEYAN_LLM_API_KEY_FILE": str(big)})
    assert "too large for a secret" in problems[0]
    _, problems = secret_file_values({"llm": LLMSettings}, {"HEYAN_LLM_API_KEY_FILE": str(binary)})
    assert "not UTF-8 text" in problems[0]


def _as_another_user(body: Callable[[], list[str]]) -> list[str]:
    """``body()`` run by a user other than the file's owner: in a forked child that drops root to
    ``nobody`` (root reads every file), else here (a mode-000 file is unreadable to its owner)."""
    if os.getuid() != 0:
        return body()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgid(65534)
            os.setuid(65534)
            os.write(write, json.dumps(body()).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        out = f.read()
    os.waitpid(pid, 0)
    result: list[str] = json.loads(out)
    return result


def test_an_unreadable_file_says_who_must_read_it(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    path = _secret(tmp_path, "keys", TEST_KEY)
    path.chmod(0o000)
    from bot.config.settings import PrivacySettings

    problems = _as_another_user(lambda: secret_file_values(
        {"privacy": PrivacySettings}, {"HEYAN_ENCRYPTION_KEYS_FILE": str(path)})[1])
    assert len(problems) == 1 and f"HEYAN_ENCRYPTION_KEYS_FILE={path}: permission denied for uid" in problems[0]
    assert "10001" in problems[0] and "chmod 644" in problems[0]


def test_heyan_config_reports_a_missing_secret_file_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEYAN_")}
    env["HEYAN_ENCRYPTION_KEYS_FILE"] = str(tmp_path / "nope")
    proc = subprocess.run([sys.executable, "-m", "adapters.cli.app", "config"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines[0] == "error: invalid settings:" and "HEYAN_ENCRYPTION_KEYS_FILE=" in lines[1], proc.stderr
