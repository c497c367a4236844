"""``heyan tenant``: per-tenant settings (timezone, language, retention) — show them, set them, reset them.

The settings live in Redis (see ``bot/config/tenants.py`` for why): with ``HEYAN_REDIS_URL`` these commands
connect to it directly; in the embedded shape they start the runtime without its worker to reach the
embedded Valkey (so, like every other command there, not while the bot runs on the same data dir).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.table import Table

from adapters.cli.cli_common import console, fail, one_of, redis_only, run
from adapters.cli.cli_style import Typer

if TYPE_CHECKING:  # the commands import what they use: `heyan --help` stays light (bot.config.tenants needs redis)
    from bot.config.settings import Settings
    from bot.config.tenants import TenantConfig, TenantSettings

__all__ = ["app"]

app = Typer(no_args_is_help=True, help="Per-tenant settings (timezone, language, retention, forgetting).")

T = TypeVar("T")


def _with_config(body: Callable[[TenantConfig], Awaitable[T]]) -> T:
    from bot.config.tenants import TenantConfig, TenantSettingError, TenantSettings

    async def main(settings: Settings) -> T:
        async with redis_only(settings) as redis:
            return await body(TenantConfig(redis, TenantSettings(timezone=settings.timezone)))

    try:
        return run(main)
    except TenantSettingError as exc:
        raise fail(str(exc)) from None


async def _view(config: TenantConfig, tenant: str) -> dict[str, Any]:
    effective = (await config.get(tenant)).model_dump()
    overrides = await config.overrides(tenant)
    return {
        "tenant": tenant,
        **effective,
        "overrides": sorted(k for k in overrides if overrides[k] == effective.get(k)),
    }


@app.command("show")
def tenant_show(
    tenant: Annotated[str | None, typer.Option(help="only this tenant (default: every tenant with overrides)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
) -> None:
    """The defaults and each tenant's effective settings (and which it set itself)."""

    async def body(config: TenantConfig) -> dict[str, Any]:
        tenants = [tenant] if tenant else await config.tenants()
        return {"defaults": config.defaults.model_dump(), "tenants": [await _view(config, t) for t in tenants]}

    shown = _with_config(body)
    if as_json:
        print(json.dumps(shown, ensure_ascii=False, indent=1))
        return
    from bot.config.tenants import TenantSettings

    fields = list(TenantSettings.model_fields)
    table = Table(title=f"tenant settings (defaults: {', '.join(f'{k}={v}' for k, v in shown['defaults'].items())})")
    table.add_column("tenant", overflow="fold")
    for name in fields:
        table.add_column(name, overflow="fold")
    for view in shown["tenants"]:
        table.add_row(view["tenant"], *(
            f"{view[name]}" + ("" if name in view["overrides"] else " (default)") for name in fields
        ))
    console.print(table)


@app.command("set-timezone")
def tenant_set_timezone(
    tenant: Annotated[str, typer.Argument(help="the tenant id, e.g. discord:<guild id> or console:local")],
    zone: Annotated[str, typer.Argument(help="an IANA timezone, e.g. Asia/Shanghai or America/New_York")],
) -> None:
    """Set a tenant's timezone: due times it hears and the times it shows use this zone from now on."""
    from bot.config.tenants import TenantSettingError, check_timezone

    try:
        check_timezone(zone)  # before starting anything
    except TenantSettingError as exc:
        raise fail(str(exc)) from None
    updated = _with_config(lambda config: config.set(tenant, timezone=zone))
    console.print(f"{tenant}: timezone {updated.timezone}")


@app.command("set-language")
def tenant_set_language(
    tenant: Annotated[str, typer.Argument(help="the tenant id, e.g. discord:<guild id> or slack:<team id>")],
    language: Annotated[str, typer.Argument(help="auto (each asker's language), zh or en")],
) -> None:
    """Set the language Heyan answers in for a tenant (auto follows each asker's language or locale)."""
    if language not in ("auto", "zh", "en"):
        raise fail(f"unknown language {language!r}; use auto, zh or en")
    updated = _with_config(lambda config: config.set(tenant, language=language))
    console.print(f"{tenant}: language {updated.language}")


@app.command("set-retention")
def tenant_set_retention(
    tenant: Annotated[str, typer.Argument(help="the tenant id, e.g. discord:<guild id> or slack:<team id>")],
    kind: Annotated[str, typer.Argument(help="person, event, demand, emotion, commitment, consensus, or closed "
                                             "(days after a dispute closes before its session is purged)")],
    days: Annotated[str, typer.Argument(help="days to keep (a positive number), or keep (until erased)")],
) -> None:
    """How long a tenant keeps each kind of memory; expired ones leave recall at once and are purged."""
    from bot.config.tenants import TenantSettingError, parse_days
    from memory.models import Kind

    one_of("kind", kind, [*(k.value for k in Kind), "closed"])
    if days == "keep" and kind == "closed":
        raise fail("a closed dispute's session needs a number of days (0 purges at the next run)")
    try:  # finite and within range, as every surface reads a number of days ("nan", "inf", "1e999" refused)
        value = parse_days(days, "days before a closed dispute is purged" if kind == "closed" else f"retention for {kind}",
                           keep=() if kind == "closed" else ("keep",), zero=kind == "closed")
    except TenantSettingError as exc:
        raise fail(str(exc)) from None

    async def body(config: TenantConfig) -> TenantSettings:
        if kind == "closed":
            return await config.set(tenant, closed_purge_days=value)
        current = (await config.get(tenant)).retention_days
        return await config.set(tenant, retention_days={**current, kind: value})

    updated = _with_config(body)
    shown = updated.closed_purge_days if kind == "closed" else updated.retention_days.get(kind, "keep")
    console.print(f"{tenant}: {kind} kept {shown} days" if shown != "keep" else f"{tenant}: {kind} kept until erased")


@app.command("set-forgetting")
def tenant_set_forgetting(
    tenant: Annotated[str, typer.Argument(help="the tenant id, e.g. discord:<guild id> or slack:<team id>")],
    days: Annotated[str, typer.Argument(help="days after a dispute closes before its low-weight records are "
                                             "forgotten (a number, 0 or more), or off")],
    below: Annotated[str | None, typer.Option(help="the weight (0-1) under which a record is forgotten")] = None,
) -> None:
    """Forgetting: a closed dispute's records nobody used or confirmed expire a week after this many
    days (open commitments and disputed records never do)."""
    from bot.config.tenants import TenantSettingError, parse_days

    try:
        value = parse_days(days, "days before forgetting", keep=("off",))
    except TenantSettingError as exc:
        raise fail(str(exc)) from None
    changes: dict[str, Any] = {"forget_after_days": value}
    if below is not None:
        try:
            changes["forget_below"] = parse_days(below, "--below (a weight)", top=1.0, unit="")
        except TenantSettingError as exc:
            raise fail(str(exc)) from None
    updated = _with_config(lambda config: config.set(tenant, **changes))
    if updated.forget_after_days is None:
        console.print(f"{tenant}: forgetting off")
    else:
        console.print(f"{tenant}: records of a dispute closed {updated.forget_after_days:g} days ago with a weight "
                      f"below {updated.forget_below:g} are forgotten (they expire a week later)", markup=False)


@app.command("reset")
def tenant_reset(
    tenant: Annotated[str, typer.Argument(help="the tenant id")],
    setting: Annotated[str | None, typer.Option(help="only this setting (default: all)")] = None,
) -> None:
    """Drop a tenant's own settings: it follows the defaults (HEYAN_TIMEZONE) again."""
    from bot.config.tenants import TenantSettings

    if setting is not None and setting not in TenantSettings.model_fields:
        raise fail(f"unknown tenant setting {setting}; known: {', '.join(TenantSettings.model_fields)}")
    updated = _with_config(lambda config: config.reset(tenant, *([setting] if setting else [])))
    console.print(f"{tenant}: {', '.join(f'{k}={v}' for k, v in updated.model_dump().items())}")
