"""Helpers shared by the browser tests (tests/browser: paths of the built book, a recorded page visit)."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOOK_ENV = "SEARCHGRADE_BOOK_HTML"
CHROMIUM_ENV = "SEARCHGRADE_CHROMIUM"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1280, "height": 900}


def book_dir() -> Path:
    """Where the built book is: $SEARCHGRADE_BOOK_HTML or _build/html (relative to the repository)."""
    path = Path(os.environ.get(BOOK_ENV, "_build/html"))
    return path if path.is_absolute() else ROOT / path


def book_pages() -> list[Path]:
    """Every HTML page of the built book (theme assets and page sources left out)."""
    root = book_dir()
    if not (root / "index.html").is_file():
        return []
    skip = {"_static", "_sources", "_images", "_downloads"}
    return sorted(p for p in root.rglob("*.html") if not skip & set(p.relative_to(root).parts))

class Visit:
    """A page opened in a fresh context, with everything the browser complained about recorded."""

    def __init__(self, browser, url: str, viewport=DESKTOP):
        self.context = browser.new_context(viewport=viewport, service_workers="block")
        self.external: list[str] = []
        self.errors: list[str] = []
        # nothing may leave the machine: every http(s) request is recorded and refused
        self.context.route("http://**/*", self._refuse)
        self.context.route("https://**/*", self._refuse)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda err: self.errors.append(f"page error: {err}"))
        self.page.on("requestfailed", self._failed)
        self.page.goto(url, wait_until="load")

    def _refuse(self, route):
        self.external.append(route.request.url)
        route.abort()

    def _console(self, message):
        if message.type == "error":
            self.errors.append(f"console.error: {message.text} ({message.location.get('url', '')})")

    def _failed(self, request):
        if request.url.startswith("file:"):
            self.errors.append(f"failed to load {request.url}: {request.failure}")

    def local_errors(self) -> list[str]:
        """Errors other than the refused external requests (reported separately)."""
        return [e for e in self.errors if "net::ERR_FAILED" not in e or "file:" in e]

    def close(self):
        self.context.close()
