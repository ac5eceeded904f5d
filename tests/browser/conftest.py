"""Browser tests of the built book: headless Chromium (Debian's) driven by Playwright.

They build nothing: they open the HTML that `make book` wrote, from disk (file:// URLs, as a reader
who downloaded the book would, with no server and no network). The folder is $SEARCHGRADE_BOOK_HTML,
default `_build/html`; without it the page tests are skipped with a message. Run with
`make test-browser` (the default `make test` ignores this folder).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.browser import BOOK_ENV, CHROMIUM_ARGS, CHROMIUM_ENV, DESKTOP, Visit, book_dir, book_pages


def pytest_generate_tests(metafunc):
    """Parametrise `page` over the built pages (one placeholder, skipped, when there is no build)."""
    if "page" in metafunc.fixturenames:
        pages = book_pages()
        root = book_dir()
        metafunc.parametrize("page", pages or [None],
                             ids=[p.relative_to(root).as_posix() for p in pages] or ["no-build"])


@pytest.fixture(scope="session")
def book() -> Path:
    """The built book's folder; the test is skipped when `make book` has not been run."""
    root = book_dir()
    if not (root / "index.html").is_file():
        pytest.skip(f"no built book at {root} (run `make book`, or set ${BOOK_ENV} to the html folder)")
    return root


@pytest.fixture
def page_path(page, book) -> Path:
    """One built page (see pytest_generate_tests)."""
    return page


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium from the system (never Playwright's own download)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright for Python is not installed: run `make test-browser` "
                    "(or `.venv/bin/pip install playwright`; do not run `playwright install`)")
    executable = os.environ.get(CHROMIUM_ENV) or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(executable).exists():
        pytest.fail(f"Chromium not found at {executable}: `apt-get install -y chromium` "
                    f"(or set ${CHROMIUM_ENV})")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def visit(browser):
    """visit(path_or_url, viewport=...) -> Visit; contexts are closed after the test."""
    opened = []

    def _open(target, viewport=DESKTOP) -> Visit:
        url = target.as_uri() if isinstance(target, Path) else target
        v = Visit(browser, url, viewport)
        opened.append(v)
        return v

    yield _open
    for v in opened:
        v.close()
