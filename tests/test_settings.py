"""Settings: env names, bad values named with what is accepted, secrets masked."""

from __future__ import annotations

import pytest

from bot.config.settings import SettingsError, load_settings


def test_defaults_are_embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HEYAN_QDRANT_URL", "HEYAN_REDIS_URL", "HEYAN_LLM_BASE_URL", "HEYAN_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    s = load_settings()
    assert not s.use_server_store
    assert s.redis.url is None
    assert not s.llm.enabled
    assert s.embeddings.provider == "local"


def test_unknown_embedder_names_setting_and_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEYAN_EMBEDDER", "word2vec")
    with pytest.raises(SettingsError) as exc:
        load_settings()
    assert "HEYAN_EMBEDDER" in str(exc.value)
    assert "'local', 'e5' or 'openai'" in str(exc.value)


def test_unknown_store_and_bad_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEYAN_STORE", "sqlite")
    with pytest.raises(SettingsError, match="HEYAN_STORE"):
        load_settings()
    monkeypatch.delenv("HEYAN_STORE")
    monkeypatch.setenv("HEYAN_JOBS_BATCH_TURNS", "0")
    with pytest.raises(SettingsError, match="HEYAN_JOBS_BATCH_TURNS"):
        load_settings()


def test_unknown_timezone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEYAN_TIMEZONE", "Mars/Olympus")
    with pytest.raises(SettingsError, match="HEYAN_TIMEZONE"):
        load_settings()


def test_server_urls_switch_shape_and_secrets_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEYAN_QDRANT_URL", "http://qdrant:6333")
    monkeypatch.setenv("HEYAN_LLM_API_KEY", "sk-secret")
    s = load_settings()
    assert s.use_server_store
    assert s.llm.enabled
    masked = s.masked()
    assert masked["llm"]["api_key"] == "***"
    assert "sk-secret" not in str(masked)
