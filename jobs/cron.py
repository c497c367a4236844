"""Periodic jobs: reconciliation of reminders from the store, and the purge of expired memories."""

from __future__ import annotations

from arq.cron import CronJob

from bot.settings import Settings

__all__ = ["cron_jobs"]


def cron_jobs(settings: Settings) -> list[CronJob]:
    return []
