"""Headless Chromium against the live server, with every CSP violation recorded."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, Page, sync_playwright

CHROMIUM = os.environ.get("MATHJURY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Runs in every page before its own scripts (through the DevTools protocol, so the page's CSP
# does not apply to it) and reports each violation to the test through an exposed function.
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportCspViolation(
    `${event.violatedDirective} blocked ${event.blockedURI || "inline"} on ${event.documentURI}`
  );
});
"""


@pytest.fixture(autouse=True)
def _static_files_from_finders(settings) -> None:
    """Static URLs without collectstatic's manifest; the live server serves the files."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@dataclass
class Browser:
    """One Chromium page and what it reported: CSP violations and console errors."""

    page: Page
    csp_violations: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    # Playwright's sync API runs an event loop in this thread; the ORM calls the test makes
    # between browser steps are ordinary blocking calls.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        yield _recording(context, context.pages[0] if context.pages else context.new_page())
        context.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def _recording(context: BrowserContext, page: Page) -> Browser:
    """``page`` of ``context``, recording its CSP violations and console errors."""
    page.set_default_timeout(30_000)
    recorder = Browser(page=page)
    context.expose_function("reportCspViolation", lambda text: recorder.csp_violations.append(text))
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    page.on("console", lambda message: _record_console_error(recorder, message))
    return recorder


def _record_console_error(recorder: Browser, message: ConsoleMessage) -> None:
    if message.type == "error":
        recorder.console_errors.append(message.text)


@pytest.fixture
def browsers() -> Iterator[Callable[[], Browser]]:
    """Opens separate browser sessions, as several people at once: each call gives a new
    context (its own cookies) of one headless Chromium, recording like ``browser``."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )

        def open_session() -> Browser:
            context = chromium.new_context(viewport={"width": 1280, "height": 900})
            return _recording(context, context.new_page())

        yield open_session
        chromium.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def save_screenshot(page: Page, name: str) -> None:
    """Save a full-page screenshot for the README when MATHJURY_SCREENSHOTS names a folder
    (MATHJURY_SCREENSHOTS=docs/screenshots); a plain test run leaves the docs alone."""
    folder = os.environ.get("MATHJURY_SCREENSHOTS", "")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / name), full_page=True)
