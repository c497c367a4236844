"""The workspaces one deployment serves, and the bot token of each.

One workspace (``HEYAN_SLACK_BOT_TOKEN``), or many through Slack's OAuth v2 install flow
(``HEYAN_SLACK_CLIENT_ID``/``_SECRET``, HTTP mode). Installations are kept per tenant in Redis
(``heyan:slack-install:<tenant>``) with their tokens sealed (``bot.privacy.sealing``); uninstalling deletes one
at once, the data follows after the grace period (``bot.privacy.departures``). ``WorkspaceAuthorize`` is bolt's
authorize step for both modes: an unknown team is acked and ignored.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from redis.asyncio import Redis
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.async_authorize import AsyncAuthorize
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore

from adapters.slack.events.mapping import tenant_of
from bot.privacy.sealing import Advance, open_fields, reseal_keys, reseal_value, seal_fields
from memory.errors import HeyanError
from memory.store.crypto import Cipher

__all__ = [
    "NotInstalled",
    "RedisInstallationStore",
    "RedisOAuthStateStore",
    "Workspace",
    "WorkspaceAuthorize",
    "Workspaces",
]

log = logging.getLogger(__name__)

_INSTALL = "heyan:slack-install:"
_STATE = "heyan:slack-oauth-state:"


class NotInstalled(HeyanError, LookupError):
    """Heyan is not (or no longer) installed in the workspace: nothing can be done there."""


@dataclass(frozen=True, slots=True)
class Workspace:
    """One workspace Heyan is installed in, with its bot token (never shown in a repr)."""

    tenant: str
    team_id: str
    bot_token: str = field(repr=False)
    bot_user_id: str
    bot_id: str
    enterprise_id: str | None = None
    scopes: frozenset[str] = frozenset()
    #: Who installed the app (OAuth mode): told once when a scope is missing.
    installer: str | None = None
    app_id: str | None = None

    def to_authorize_result(self) -> AuthorizeResult:
        return AuthorizeResult(enterprise_id=self.enterprise_id, team_id=self.team_id, bot_user_id=self.bot_user_id,
                               bot_id=self.bot_id, bot_token=self.bot_token, bot_scopes=sorted(self.scopes))


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


class RedisInstallationStore(AsyncInstallationStore):
    """slack_sdk's installation store on Heyan's Redis, one bot installation per workspace.

    Heyan asks for bot scopes only, so only the bot's part of an installation is kept (no user
    token). ``find`` is the typed lookup the adapter uses; the ``async_*`` methods are what bolt's
    OAuth flow calls."""

    #: The keys holding sealed tokens (``heyan keys rotate`` rewrites them).
    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_INSTALL}*",)

    def __init__(self, redis: Redis, cipher: Cipher | None) -> None:
        self.redis = redis
        self.cipher = cipher

    def __repr__(self) -> str:
        return f"RedisInstallationStore(sealed={self.cipher is not None})"

    @property
    def logger(self) -> logging.Logger:
        return log

    @staticmethod
    def key(tenant: str) -> str:
        return _INSTALL + tenant

    def _encode(self, ws: Workspace) -> str:
        data: dict[str, Any] = {
            "tenant": ws.tenant, "team_id": ws.team_id, "enterprise_id": ws.enterprise_id,
            "bot_user_id": ws.bot_user_id, "bot_id": ws.bot_id, "scopes": sorted(ws.scopes),
            "installer": ws.installer, "app_id": ws.app_id, "installed_at": time.time(),
        }
        return json.dumps(seal_fields(data, {"bot_token": ws.bot_token}, self.cipher, f"slack-install/{ws.tenant}"))

    def _decode(self, raw: str) -> Workspace:
        data: dict[str, Any] = json.loads(raw)
        data = open_fields(data, self.cipher, f"slack-install/{data['tenant']}")
        return Workspace(tenant=data["tenant"], team_id=data["team_id"], bot_token=data["bot_token"],
                         bot_user_id=data["bot_user_id"], bot_id=data["bot_id"], enterprise_id=data.get("enterprise_id"),
                         scopes=frozenset(data.get("scopes") or ()), installer=data.get("installer"),
                         app_id=data.get("app_id"))

    async def put(self, ws: Workspace) -> None:
        await self.redis.set(self.key(ws.tenant), self._encode(ws))

    async def find(self, tenant: str) -> Workspace | None:
        raw = _text(await self.redis.get(self.key(tenant)))
        return self._decode(raw) if raw else None

    async def delete(self, tenant: str) -> bool:
        return bool(await self.redis.delete(self.key(tenant)))

    async def tenants(self) -> list[str]:
        return sorted([_text(k) or "" async for k in self.redis.scan_iter(match=f"{_INSTALL}*", count=500)])

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: every installation sealed with the first key (compare-and-set)."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher
        return await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance, lambda key: reseal_value(
            self.redis, key, cipher, lambda raw: self._encode(self._decode(raw))))

    # --- what bolt's OAuth flow calls --------------------------------------------------------------

    async def async_save(self, installation: Installation) -> None:
        if not installation.team_id or not installation.bot_token or not installation.bot_user_id:
            raise ValueError("an installation without a team, a bot token or a bot user: Heyan needs all three")
        tenant = tenant_of(installation.team_id, installation.enterprise_id)
        await self.put(Workspace(
            tenant=tenant, team_id=installation.team_id, bot_token=installation.bot_token,
            bot_user_id=installation.bot_user_id, bot_id=installation.bot_id or "",
            enterprise_id=installation.enterprise_id, scopes=frozenset(installation.bot_scopes or ()),
            installer=installation.user_id or None, app_id=installation.app_id))
        log.info("Heyan was installed in %s by %s", tenant, installation.user_id)

    async def async_save_bot(self, bot: Bot) -> None:
        raise NotImplementedError("Heyan saves whole installations (async_save)")

    async def async_find_bot(self, *, enterprise_id: str | None, team_id: str | None,
                             is_enterprise_install: bool | None = False) -> Bot | None:
        ws = await self.find(tenant_of(team_id or "", enterprise_id))
        if ws is None:
            return None
        return Bot(app_id=ws.app_id, enterprise_id=ws.enterprise_id, team_id=ws.team_id, bot_token=ws.bot_token,
                   bot_id=ws.bot_id, bot_user_id=ws.bot_user_id, bot_scopes=sorted(ws.scopes), installed_at=time.time())

    async def async_find_installation(self, *, enterprise_id: str | None, team_id: str | None,
                                      user_id: str | None = None,
                                      is_enterprise_install: bool | None = False) -> Installation | None:
        ws = await self.find(tenant_of(team_id or "", enterprise_id))
        if ws is None:
            return None
        return Installation(app_id=ws.app_id, enterprise_id=ws.enterprise_id, team_id=ws.team_id,
                            bot_token=ws.bot_token, bot_id=ws.bot_id, bot_user_id=ws.bot_user_id,
                            bot_scopes=sorted(ws.scopes), user_id=ws.installer or "")

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await self.delete(tenant_of(team_id or "", enterprise_id))

    async def async_delete_installation(self, *, enterprise_id: str | None, team_id: str | None,
                                        user_id: str | None = None) -> None:
        await self.delete(tenant_of(team_id or "", enterprise_id))

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await self.delete(tenant_of(team_id or "", enterprise_id))


class RedisOAuthStateStore(AsyncOAuthStateStore):
    """The OAuth ``state`` values, in Redis: issued at ``/slack/install``, consumed once at
    ``/slack/oauth_redirect`` (a replayed or forged redirect is refused), expiring unused."""

    def __init__(self, redis: Redis, *, expiration_seconds: int = 600) -> None:
        self.redis = redis
        self.expiration_seconds = expiration_seconds

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        state = secrets.token_urlsafe(24)
        await self.redis.set(_STATE + state, b"1", ex=self.expiration_seconds)
        return state

    async def async_consume(self, state: str) -> bool:
        if not state:
            return False
        return bool(await self.redis.getdel(_STATE + state))


class Workspaces:
    """The workspaces this deployment serves: one (a bot token's) or every installed one."""

    def __init__(self, *, single: Workspace | None = None, installations: RedisInstallationStore | None = None) -> None:
        if (single is None) == (installations is None):
            raise ValueError("Workspaces needs either one workspace or an installation store")
        self.single = single
        self.installations = installations

    def __repr__(self) -> str:
        return f"Workspaces(single={self.single.tenant!r})" if self.single else "Workspaces(installed)"

    @property
    def many(self) -> bool:
        return self.installations is not None

    async def get(self, tenant: str) -> Workspace | None:
        """The workspace of ``tenant`` if Heyan is installed there."""
        if self.single is not None:
            return self.single if self.single.tenant == tenant else None
        assert self.installations is not None
        return await self.installations.find(tenant)

    async def tenants(self) -> Sequence[str]:
        if self.single is not None:
            return [self.single.tenant]
        assert self.installations is not None
        return [k.removeprefix(_INSTALL) for k in await self.installations.tenants()]

    async def forget(self, tenant: str) -> bool:
        """The app was uninstalled from ``tenant`` or its bot token revoked: drop its installation
        (its token no longer works). In one-workspace mode there is nothing stored to drop."""
        if self.installations is None:
            return False
        return await self.installations.delete(tenant)


class WorkspaceAuthorize(AsyncAuthorize):
    """bolt's authorize step over ``Workspaces``: the request's team → its bot token."""

    def __init__(self, workspaces: Workspaces) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.workspaces = workspaces

    async def __call__(self, *, context: AsyncBoltContext, enterprise_id: str | None, team_id: str | None,
                       user_id: str | None, actor_enterprise_id: str | None = None,
                       actor_team_id: str | None = None, actor_user_id: str | None = None) -> AuthorizeResult | None:
        if not team_id:
            return None
        ws = await self.workspaces.get(tenant_of(team_id, enterprise_id))
        if ws is None and enterprise_id and self.workspaces.single is not None:
            ws = self.workspaces.single if self.workspaces.single.team_id == team_id else None
        if ws is None:
            log.warning("a request from %s, where Heyan is not installed; ignored", tenant_of(team_id, enterprise_id))
            return None
        return ws.to_authorize_result()
