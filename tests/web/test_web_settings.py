"""HEYAN_WEB_*: a sign-in provider half configured, or with nowhere to come back to, stops Heyan at
start with one line per problem naming the variables."""

from __future__ import annotations

import pytest

from bot.config.settings import SettingsError, load_settings


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HEYAN_WEB_DISCORD_CLIENT_ID", "HEYAN_WEB_DISCORD_CLIENT_SECRET", "HEYAN_WEB_SLACK_CLIENT_ID",
                 "HEYAN_WEB_SLACK_CLIENT_SECRET", "HEYAN_WEB_BASE_URL", "HEYAN_WEB_PORT"):
        monkeypatch.delenv(name, raising=False)


def test_half_a_provider_and_no_base_url_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEYAN_WEB_DISCORD_CLIENT_ID", "123")
    with pytest.raises(SettingsError) as problem:
        load_settings()
    assert "HEYAN_WEB_DISCORD_CLIENT_ID is set but HEYAN_WEB_DISCORD_CLIENT_SECRET is not" in str(problem.value)
    monkeypatch.setenv("HEYAN_WEB_DISCORD_CLIENT_SECRET", "s")
    with pytest.raises(SettingsError, match="HEYAN_WEB_BASE_URL: sign-in with Discord or Slack needs"):
        load_settings()
    monkeypatch.setenv("HEYAN_WEB_BASE_URL", "https://heyan.example.org/")
    settings = load_settings()
    assert settings.web.discord_enabled and settings.web.base_url == "https://heyan.example.org"
    assert settings.masked()["web"]["discord_client_secret"] == "***"


def test_bad_base_url_and_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEYAN_WEB_BASE_URL", "heyan.example.org")
    monkeypatch.setenv("HEYAN_WEB_PORT", "70000")
    with pytest.raises(SettingsError) as problem:
        load_settings()
    assert "HEYAN_WEB_BASE_URL" in str(problem.value) and "HEYAN_WEB_PORT" in str(problem.value)
