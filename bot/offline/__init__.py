"""The deterministic offline mediator: rules for extraction, lexicons for classification, templates for replies.

Used when no LLM is configured and as the fallback when the LLM fails; it never touches the network.
"""

from __future__ import annotations

from bot.offline.provider import OfflineProvider
from bot.offline.rules import extract_rules, split_clauses

__all__ = ["OfflineProvider", "extract_rules", "split_clauses"]
