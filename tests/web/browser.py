"""Debian's Chromium driven by Playwright for Python — never a downloaded browser build
(``playwright install`` is not run). ``make test`` installs the ``chromium`` package when
/usr/bin/chromium is missing (``make chromium``)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright

CHROMIUM = os.environ.get("HEYAN_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def screenshots(tmp: Path) -> Path:
    """Where the run saves its screenshots: ``HEYAN_WEB_SCREENSHOTS`` (``make screenshots`` sets
    docs/img), else the test's temp dir."""
    target = Path(os.environ.get("HEYAN_WEB_SCREENSHOTS") or tmp)
    target.mkdir(parents=True, exist_ok=True)
    return target


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: run `make chromium` (installs Debian's chromium package)")
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            await browser.close()
