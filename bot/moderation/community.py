"""A community's own settings, changed by its moderators from any surface (Discord or Slack
``/heyan settings``, the web console, the CLI): timezone, language, retention, who moderates, and who
may open disputes where. The values and their validation live in ``bot.config.tenants``; this is the
permission check and the audit trail around them (``Disputes.dispute_open`` applies the opening policy)."""

from __future__ import annotations

from typing import Any

from bot.actors import Actor, InvalidRequest
from bot.config.tenants import TenantSettingError, TenantSettings
from bot.moderation.base import ModerationBase

__all__ = ["CommunitySettings"]


class CommunitySettings(ModerationBase):
    """Read and change a community's settings."""

    async def community_settings(self, actor: Actor) -> TenantSettings:
        """The community's settings as they apply now (defaults with its overrides). Moderators only:
        they name the moderator roles and where disputes may be opened."""
        await self._enter(actor)
        self._require(actor, "see this community's settings", "查看本社区的设置")
        return await self.tenants.get(actor.tenant)

    async def update_community_settings(self, actor: Actor, reason: str = "", **values: Any) -> TenantSettings:
        """Change some settings (validated together before any is written); audited with the old and
        the new values. An unknown name or a bad value is refused with what is accepted."""
        await self._enter(actor)
        self._require(actor, "change this community's settings", "修改本社区的设置")
        if not values:
            raise InvalidRequest("name at least one setting to change", "请至少指定一项要修改的设置")
        before = (await self.tenants.get(actor.tenant)).model_dump()
        try:
            after = await self.tenants.set(actor.tenant, **values)
        except TenantSettingError as exc:
            raise InvalidRequest(str(exc), f"设置无效：{exc}") from None
        changed = {k: v for k, v in after.model_dump().items() if before.get(k) != v}
        if changed:  # an entry only for a change that happened
            await self._log(actor, "settings.update", actor.tenant, reason=reason,
                            before={k: before.get(k) for k in changed}, after=changed)
        return after

    async def reset_community_settings(self, actor: Actor, *names: str, reason: str = "") -> TenantSettings:
        """Back to the deployment's defaults (only ``names`` when given); audited."""
        await self._enter(actor)
        self._require(actor, "change this community's settings", "修改本社区的设置")
        unknown = sorted(set(names) - set(TenantSettings.model_fields))
        if unknown:
            raise InvalidRequest(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(TenantSettings.model_fields)}",
                                 f"未知的设置：{', '.join(unknown)}")
        before = (await self.tenants.get(actor.tenant)).model_dump()
        after = await self.tenants.reset(actor.tenant, *names)
        changed = {k: v for k, v in after.model_dump().items() if before.get(k) != v}
        if changed:
            await self._log(actor, "settings.reset", actor.tenant, reason=reason,
                            before={k: before.get(k) for k in changed}, after=changed)
        return after
