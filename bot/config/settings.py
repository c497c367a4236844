"""Settings: one typed object, read from ``HEYAN_*`` environment variables and a ``.env`` file.

Each section reads its own prefix (``HEYAN_LLM_*``, ``HEYAN_QDRANT_*``, ...), so every variable has
one obvious name. ``load_settings()`` turns validation errors into ``SettingsError`` naming the
variable and the accepted values, so a bad setting stops Heyan at start, not mid-conversation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, BaseModel, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.config.secret_files import secret_file_values
from bot.limits import check_rule
from memory.errors import HeyanError

__all__ = [
    "DiscordSettings",
    "EmbeddingSettings",
    "JobSettings",
    "LLMSettings",
    "LimitSettings",
    "PrivacySettings",
    "QdrantSettings",
    "RedisSettings",
    "Settings",
    "SettingsError",
    "SlackSettings",
    "WebSettings",
    "load_settings",
    "mask_url",
]


class SettingsError(HeyanError, ValueError):
    """A setting is invalid; the message names the variable and what it accepts."""


def _section(prefix: str) -> SettingsConfigDict:
    return SettingsConfigDict(env_prefix=prefix, env_file=".env", extra="ignore", validate_default=True, env_ignore_empty=True)


class LLMSettings(BaseSettings):
    """An OpenAI-compatible chat endpoint. Unset ``base_url`` and ``api_key``: the offline mediator."""

    model_config = _section("HEYAN_LLM_")

    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str = "gpt-4o-mini"
    fast_model: str | None = None
    timeout: float = Field(20.0, gt=0, le=600, allow_inf_nan=False, description="seconds per request; below the job timeout")
    max_attempts: int = Field(3, ge=1, le=10)
    structured: Literal["json_schema", "json_object"] = "json_schema"

    @property
    def enabled(self) -> bool:
        return bool(self.base_url or self.api_key)


class EmbeddingSettings(BaseSettings):
    """The dense embedder: ``local`` (offline USE multilingual), ``e5`` (offline multilingual-e5-small,
    the ``heyan[e5]`` extra) or ``openai`` (any /v1/embeddings). Switching needs ``heyan memory reindex``."""

    model_config = _section("HEYAN_EMBEDDING_")

    provider: Literal["local", "e5", "openai"] = Field(
        "local", validation_alias=AliasChoices("HEYAN_EMBEDDER", "HEYAN_EMBEDDING_PROVIDER")
    )
    model: str = "text-embedding-3-small"
    base_url: str | None = None
    api_key: SecretStr | None = None
    dim: int | None = Field(None, gt=0)
    threads: int = Field(1, ge=1, le=64, description="BLAS/OpenMP threads for the offline embedders")


class QdrantSettings(BaseSettings):
    """Unset ``url``: the embedded Qdrant Edge under the data dir. Set: a Qdrant server or cluster."""

    model_config = _section("HEYAN_QDRANT_")

    url: str | None = None
    api_key: SecretStr | None = None
    prefix: str = "heyan"


class RedisSettings(BaseSettings):
    """Unset ``url``: an embedded Valkey under the data dir, with the arq worker in-process."""

    model_config = _section("HEYAN_REDIS_")

    url: str | None = None


class DiscordSettings(BaseSettings):
    """Discord: set ``token`` to run the Discord adapter with ``heyan run``."""

    model_config = _section("HEYAN_DISCORD_")

    token: SecretStr | None = None
    #: REST base (``https://discord.com/api/v10``) and gateway, for proxies of large deployments or a
    #: test stand-in; Discord's own when unset.
    api_url: str | None = None
    gateway_url: str | None = None
    #: A role whose members are Heyan moderators (besides Manage Messages); a role id or name.
    moderator_role: str | None = None
    #: Read whole dispute threads (needs the privileged Message Content intent in the developer portal).
    message_content: bool = False
    #: Shards: -1 = ask Discord (AutoShardedBot when it recommends more than one); 0 = one connection;
    #: n = exactly n shards in this process.
    shards: int = Field(-1, ge=-1)
    #: To split shards over processes: the total count (the same in every process) and this
    #: process's shard ids ("0,1", "2-3"); validated at start (adapters.discord.connection.sharding).
    shard_count: int | None = None
    shard_ids: str | None = None
    #: Days after the bot leaves a guild before that guild's memories are purged (0 = at once).
    leave_purge_days: float = Field(7.0, ge=0, le=3650, allow_inf_nan=False)

    @property
    def enabled(self) -> bool:
        return self.token is not None


class SlackSettings(BaseSettings):
    """Slack: one workspace's bot token, or an app's OAuth client (many workspaces install it, HTTP
    mode); plus an app token (Socket Mode) or a signing secret (HTTP mode)."""

    model_config = _section("HEYAN_SLACK_")

    bot_token: SecretStr | None = None
    app_token: SecretStr | None = None
    signing_secret: SecretStr | None = None
    #: The app's OAuth client (Basic Information → App Credentials): workspaces install Heyan at
    #: ``/slack/install`` (HTTP mode), instead of one workspace's ``bot_token``.
    client_id: str | None = None
    client_secret: SecretStr | None = None
    #: The OAuth redirect URL registered with the app (``https://<host>/slack/oauth_redirect``), if
    #: Slack should be told it explicitly.
    redirect_uri: str | None = None
    #: The Web API base (``https://slack.com/api/``), for proxies and tests.
    api_url: str | None = None
    #: HTTP mode's port (HTTP mode when the signing secret is set and no app token is).
    http_port: int = Field(3000, ge=1, le=65535)
    #: A user group (id or handle) whose members are Heyan moderators, besides workspace admins/owners.
    moderator_group: str | None = None
    #: HTTP mode's listening address (all interfaces by default; 127.0.0.1 behind a local proxy).
    http_host: str = "0.0.0.0"
    #: Days after the app is uninstalled from a workspace before its memories are purged (0 = at once).
    leave_purge_days: float = Field(7.0, ge=0, le=3650, allow_inf_nan=False)

    @property
    def enabled(self) -> bool:
        return self.bot_token is not None or self.client_id is not None

    @property
    def socket_mode(self) -> bool:
        return self.app_token is not None

    @property
    def oauth(self) -> bool:
        """Many workspaces, installed through OAuth (rather than one workspace's bot token)."""
        return self.client_id is not None


class WebSettings(BaseSettings):
    """The web console and REST API (``heyan web``; ``heyan run`` serves it too when ``port`` is set).

    Sign-in: Discord OAuth2 when the Discord client id and secret are set, Sign in with Slack when the
    Slack ones are; both need ``base_url``, the public address the OAuth redirects come back to.
    """

    model_config = _section("HEYAN_WEB_")

    #: Where ``heyan run`` serves the console beside the platforms; unset: it does not.
    port: int | None = Field(None, ge=1, le=65535)
    #: The listening address (loopback by default: put a reverse proxy with TLS in front).
    host: str = "127.0.0.1"
    #: The public https address of the console (``https://heyan.example.org``): OAuth redirects
    #: return to ``<base_url>/auth/discord/callback`` and ``<base_url>/auth/slack/callback``.
    base_url: str | None = None
    discord_client_id: str | None = None
    discord_client_secret: SecretStr | None = None
    slack_client_id: str | None = None
    slack_client_secret: SecretStr | None = None
    #: Discord's authorize page and Slack's OpenID Connect authorize page (their own when unset; a
    #: proxy or a test stand-in otherwise). The API calls go to HEYAN_DISCORD_API_URL / HEYAN_SLACK_API_URL.
    discord_authorize_url: str = "https://discord.com/oauth2/authorize"
    slack_authorize_url: str = "https://slack.com/openid/connect/authorize"
    #: Hours a sign-in lasts.
    session_hours: float = Field(12.0, gt=0, le=24 * 30, allow_inf_nan=False)
    #: Seconds a platform's answer about who moderates what is reused before asking again.
    recheck_seconds: float = Field(60.0, ge=0, le=3600, allow_inf_nan=False)
    #: The console's own limits, per minute (``adapters.web.access.throttle``), apart from the chat commands':
    #: page views and API reads, and changes, per signed-in caller; sign-in starts and bad API tokens
    #: per client address (anyone can send those).
    views_per_minute: int = Field(600, ge=1, le=100_000)
    changes_per_minute: int = Field(120, ge=1, le=100_000)
    sign_ins_per_minute: int = Field(10, ge=1, le=10_000)
    bad_tokens_per_minute: int = Field(10, ge=1, le=10_000)

    @field_validator("base_url")
    @classmethod
    def _base(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise ValueError("give the console's public address, e.g. https://heyan.example.org (no query)")
        return value.rstrip("/")

    @property
    def discord_enabled(self) -> bool:
        return bool(self.discord_client_id and self.discord_client_secret)

    @property
    def slack_enabled(self) -> bool:
        return bool(self.slack_client_id and self.slack_client_secret)


class PrivacySettings(BaseSettings):
    """PII redaction, exports, and the encryption keys of everything stored at rest."""

    model_config = SettingsConfigDict(**_section("HEYAN_PRIVACY_"), populate_by_name=True)

    redact_pii: bool = True
    export_dir: Path | None = None
    #: ``HEYAN_ENCRYPTION_KEYS``: comma-separated keys (``heyan keys generate``), the first encrypts and
    #: all decrypt. Unset: the embedded shape keeps one in ``<data>/keys/heyan.key``; the distributed
    #: shape refuses to start. Checked by ``memory.store.crypto.parse_keys`` (errors never quote a key).
    encryption_keys: SecretStr | None = Field(
        None, validation_alias=AliasChoices("HEYAN_ENCRYPTION_KEYS", "HEYAN_PRIVACY_ENCRYPTION_KEYS")
    )


class LimitSettings(BaseSettings):
    """Rate limits per user and per tenant, in the ``limits`` notation ("6/minute", "100/hour")."""

    model_config = _section("HEYAN_LIMITS_")

    enabled: bool = True
    replies_per_user: str = "6/minute"
    replies_per_tenant: str = "60/minute"
    commands_per_user: str = "20/minute"
    commands_per_tenant: str = "200/minute"

    @field_validator("replies_per_user", "replies_per_tenant", "commands_per_user", "commands_per_tenant")
    @classmethod
    def _rate(cls, value: str) -> str:
        return check_rule(value)


class JobSettings(BaseSettings):
    """Background jobs: extraction batching, summaries and commitment follow-ups."""

    model_config = _section("HEYAN_JOBS_")

    batch_turns: int = Field(5, ge=1, description="extract non-fact-bearing turns every N turns")
    idle_seconds: int = Field(120, ge=1, description="extract and summarise after a quiet session")
    summary_turns: int = Field(20, ge=1, description="re-summarise every M turns")
    reminder_lead_seconds: int = Field(0, ge=0, description="remind this long before the due time")
    no_due_followup_seconds: int = Field(3 * 24 * 3600, ge=1, description="follow up undated promises")
    reconcile_minutes: int = Field(5, ge=1, le=60)
    job_timeout: int = Field(120, ge=5)
    max_tries: int = Field(5, ge=1)
    post_retry_hours: float = Field(24.0, gt=0, le=24 * 90, allow_inf_nan=False,
                                    description="retry a failing post this long, then dead-letter it")


class Settings(BaseSettings):
    """Everything Heyan reads at start. ``heyan config`` prints it with secrets masked."""

    model_config = SettingsConfigDict(
        env_prefix="HEYAN_", env_file=".env", extra="ignore", validate_default=True,
        env_ignore_empty=True,
    )

    data_dir: Path = Path("data")
    timezone: str = "UTC"
    store: Literal["auto", "edge", "server"] = "auto"
    context_tokens: int = Field(3000, ge=500)
    window_size: int = Field(20, ge=2, le=500)
    window_ttl_seconds: int = Field(14 * 24 * 3600, ge=60)
    recall_k: int = Field(5, ge=1, le=50)
    #: Seconds a mention being answered is held before a redelivery may answer it (a crash mid-answer).
    answer_claim_seconds: int = Field(120, ge=1)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "WARNING"
    #: Opt-in port for Prometheus metrics (/metrics) and the health check (/healthz); unset: no server.
    metrics_port: int | None = Field(None, ge=1, le=65535)
    #: "json": one JSON object per log line (for log shippers); "text": one readable line.
    log_format: Literal["text", "json"] = "text"

    llm: LLMSettings = Field(default_factory=lambda: LLMSettings())
    embeddings: EmbeddingSettings = Field(default_factory=lambda: EmbeddingSettings())
    qdrant: QdrantSettings = Field(default_factory=lambda: QdrantSettings())
    redis: RedisSettings = Field(default_factory=lambda: RedisSettings())
    discord: DiscordSettings = Field(default_factory=lambda: DiscordSettings())
    slack: SlackSettings = Field(default_factory=lambda: SlackSettings())
    privacy: PrivacySettings = Field(default_factory=lambda: PrivacySettings())
    jobs: JobSettings = Field(default_factory=lambda: JobSettings())
    limits: LimitSettings = Field(default_factory=lambda: LimitSettings())
    web: WebSettings = Field(default_factory=lambda: WebSettings())

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown IANA timezone {value!r} (e.g. 'Asia/Shanghai', 'UTC')") from exc
        return value

    @property
    def use_server_store(self) -> bool:
        return self.store == "server" or (self.store == "auto" and self.qdrant.url is not None)

    @property
    def distributed(self) -> bool:
        """True when processes share a Qdrant server or a Redis: they must then share the keys too."""
        return self.use_server_store or self.redis.url is not None

    def masked(self) -> dict[str, Any]:
        """The resolved settings as plain data, secrets shown as ``***``."""
        return _mask(json.loads(self.model_dump_json()), self)


def mask_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (``redis://:s3cret@host`` -> ``redis://:***@host``),
    for every place a URL is printed: ``heyan config``, start-up errors, logs."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))


def _mask(data: dict[str, Any], model: BaseModel) -> dict[str, Any]:
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, SecretStr):
            data[name] = "***"
        elif isinstance(value, BaseModel):
            data[name] = _mask(data[name], value)
        elif isinstance(value, str) and "://" in value:
            data[name] = mask_url(value)
    return data


_PREFIX = {
    "llm": "HEYAN_LLM_",
    "embeddings": "HEYAN_EMBEDDING_",
    "qdrant": "HEYAN_QDRANT_",
    "redis": "HEYAN_REDIS_",
    "discord": "HEYAN_DISCORD_",
    "slack": "HEYAN_SLACK_",
    "privacy": "HEYAN_PRIVACY_",
    "jobs": "HEYAN_JOBS_",
    "limits": "HEYAN_LIMITS_",
    "web": "HEYAN_WEB_",
}


def _variable(section: type[BaseSettings], loc: tuple[int | str, ...]) -> str:
    if section is EmbeddingSettings and loc and loc[0] in ("provider", "HEYAN_EMBEDDER"):
        return "HEYAN_EMBEDDER"
    prefix = section.model_config.get("env_prefix", "HEYAN_")
    return prefix + "_".join(str(p) for p in loc).upper().removeprefix(prefix)


def _describe(section: type[BaseSettings], exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        name = _variable(section, err["loc"])
        got = err.get("input")
        lines.append(f"{name}: {err['msg']} (got {got!r})")
    return "\n  ".join(lines)


def load_settings(**overrides: Any) -> Settings:
    """Read settings from the environment and ``.env``; raise SettingsError naming bad variables."""
    sections: dict[str, Any] = {}
    section_types: dict[str, type[BaseSettings]] = {
        "llm": LLMSettings,
        "embeddings": EmbeddingSettings,
        "qdrant": QdrantSettings,
        "redis": RedisSettings,
        "discord": DiscordSettings,
        "slack": SlackSettings,
        "privacy": PrivacySettings,
        "jobs": JobSettings,
        "limits": LimitSettings,
        "web": WebSettings,
    }
    # HEYAN_<NAME>_FILE: secrets handed over as files (compose secrets, Kubernetes secret volumes)
    from_files, problems = secret_file_values(section_types)
    for key, cls in section_types.items():
        if key in overrides:
            continue
        try:
            given: dict[str, Any] = dict(from_files.get(key, {}))
            sections[key] = cls(**given)
        except ValidationError as exc:
            problems.append(_describe(cls, exc))
    settings: Settings | None = None
    try:
        settings = Settings(**sections, **overrides) if not problems else None
    except ValidationError as exc:
        problems.append(_describe(Settings, exc))
    if settings is not None:
        problems += _conflicts(settings)
    if problems or settings is None:
        raise SettingsError("invalid settings:\n  " + "\n  ".join(problems))
    return settings


def _conflicts(settings: Settings) -> list[str]:
    """Settings that are each valid but do not go together."""
    problems = []
    if settings.store == "server" and settings.qdrant.url is None:
        problems.append("HEYAN_STORE: 'server' needs HEYAN_QDRANT_URL (the Qdrant server to use); "
                        "set it, or set HEYAN_STORE=edge or auto for the embedded store")
    if settings.store == "edge" and settings.qdrant.url is not None:
        problems.append("HEYAN_STORE: 'edge' is the embedded store, but HEYAN_QDRANT_URL is set; unset one of them")
    return problems + _web_conflicts(settings.web)


def _web_conflicts(web: WebSettings) -> list[str]:
    """A sign-in provider half configured, or configured with nowhere to come back to."""
    problems = []
    for name, cid, secret in (("DISCORD", web.discord_client_id, web.discord_client_secret),
                              ("SLACK", web.slack_client_id, web.slack_client_secret)):
        if bool(cid) != bool(secret):
            given, missing = ("CLIENT_ID", "CLIENT_SECRET") if cid else ("CLIENT_SECRET", "CLIENT_ID")
            problems.append(f"HEYAN_WEB_{name}_{given} is set but HEYAN_WEB_{name}_{missing} is not: "
                            "set both (from the platform's app settings) or neither")
    if (web.discord_enabled or web.slack_enabled) and web.base_url is None:
        problems.append("HEYAN_WEB_BASE_URL: sign-in with Discord or Slack needs the console's public address "
                        "(e.g. https://heyan.example.org), where the OAuth redirect comes back")
    return problems
