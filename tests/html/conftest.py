"""A real browser for the HTML tests: the system's headless Chromium driven by Playwright.

The Chromium is Debian's ``chromium`` package (``make browser`` installs it), never a
browser that Playwright downloads. The flags keep it off the network: it must not try
to reach any service while the pages are tested, and the pages must not either.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One Chromium per test worker, with a fresh profile."""
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.fail("Chromium is missing: run `make browser` (Debian's chromium package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            args=ARGS,
            headless=True,
            viewport={"width": 1280, "height": 1000},
            device_scale_factor=1,
        )
        yield ctx
        ctx.close()


class Page:
    """A page that records every request it makes and every script error."""

    def __init__(self, ctx: Any) -> None:
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page = ctx.new_page()
        self.page.set_default_timeout(30_000)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        # Anything but the file itself is refused at once (and stays in self.requests).
        self.page.route("http*://**/*", lambda route: route.abort())

    def open(self, path: Path, fragment: str = "") -> None:
        self.page.goto(path.resolve().as_uri() + fragment)

    def text(self, selector: str) -> str:
        return str(self.page.locator(selector).inner_text())

    def tiles(self, selector: str) -> list[str]:
        """The tiles drawn in (or as) ``selector``, e.g. ``3-6``; ``hidden`` for face down."""
        return list(
            self.page.eval_on_selector_all(
                f"{selector} [data-tile], {selector}[data-tile]",
                "els => els.map(e => e.dataset.tile)",
            )
        )

    def go(self, index: int) -> None:
        """Step to ``index`` with the keyboard: Home, then → as often as needed."""
        self.page.keyboard.press("Home")
        for _ in range(index):
            self.page.keyboard.press("ArrowRight")
        assert self.position() == index

    def position(self) -> int:
        return int(self.page.evaluate("window.bidrefReplay.step()"))


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    pg = Page(browser)
    yield pg
    pg.page.close()
    assert pg.errors == []
