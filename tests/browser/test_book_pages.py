"""Every page of the built book, as a reader opens it from disk: no errors, nothing from outside,
no broken links or images, figures drawn, notebooks downloadable, exercise solutions hidden."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.support.browser import ROOT, book_pages

CHAPTER = re.compile(r"chapters/ch\d\d_[a-z0-9_]+\.html$")


class Links(HTMLParser):
    """Local references of a page (a href, img src, script src, link href) and its element ids."""

    def __init__(self):
        super().__init__()
        self.refs: list[tuple[str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        attr = {"a": "href", "img": "src", "script": "src", "link": "href", "source": "src"}.get(tag)
        if attr and a.get(attr):
            self.refs.append((tag, a[attr]))


def parse(path: Path) -> Links:
    links = Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


def is_local(url: str) -> bool:
    """A reference into the book itself (not http(s), mailto, javascript, data)."""
    scheme = urlsplit(url).scheme
    return scheme in ("", "file") and not url.startswith("//")


def test_book_has_the_chapters(book):
    pages = [p.relative_to(book).as_posix() for p in book_pages()]
    assert "index.html" in pages
    assert sum(1 for p in pages if CHAPTER.search(p)) >= 5, pages


def test_page_loads_without_errors(page_path, visit):
    """No console.error, no uncaught exception, no local file that fails to load."""
    v = visit(page_path)
    v.page.wait_for_timeout(300)
    assert not v.local_errors(), "\n".join(v.local_errors())


def test_page_requests_nothing_from_outside(page_path, visit):
    """The book works offline: no CDN (MathJax, fonts, widget code) is fetched."""
    v = visit(page_path)
    v.page.wait_for_timeout(300)
    assert not v.external, f"{page_path.name} requests external resources: {sorted(set(v.external))}"


def test_internal_links_and_images_resolve(page_path):
    """Every local href/src points at an existing file, and every #fragment at an existing id."""
    broken = []
    ids_cache: dict[Path, set[str]] = {}
    for tag, ref in parse(page_path).refs:
        if not is_local(ref) or ref.startswith("#") and len(ref) == 1:
            continue
        parts = urlsplit(ref)
        target = page_path if not parts.path else (page_path.parent / unquote(parts.path)).resolve()
        if not target.exists():
            broken.append(f"<{tag}> {ref}: {target} does not exist")
            continue
        if parts.fragment and tag == "a" and target.suffix == ".html":
            if target not in ids_cache:
                ids_cache[target] = parse(target).ids
            if unquote(parts.fragment) not in ids_cache[target]:
                broken.append(f"<a> {ref}: no id {parts.fragment!r} in {target.name}")
    assert not broken, "\n".join(broken)


def test_images_load_and_figures_have_size(page_path, visit):
    """Each <img> decodes; figures in cell outputs are real plots (at least 200 x 100 pixels)."""
    v = visit(page_path)
    v.page.wait_for_load_state("load")
    images = v.page.eval_on_selector_all(
        "img", """els => els.map(e => ({src: e.getAttribute('src'), w: e.naturalWidth, h: e.naturalHeight,
                                         figure: !!e.closest('.cell_output, .output')}))""")
    bad = [i for i in images if i["w"] == 0 or i["h"] == 0]
    assert not bad, f"images that did not load: {bad}"
    small = [i for i in images if i["figure"] and (i["w"] < 200 or i["h"] < 100)]
    assert not small, f"suspiciously small figures: {small}"


@pytest.fixture(scope="module")
def chapter_pages(book):
    pages = [p for p in book_pages() if CHAPTER.search(p.relative_to(book).as_posix())]
    assert pages, "no chapter pages"
    return pages


def test_chapters_offer_the_executed_notebook(chapter_pages, visit):
    """Each chapter's download menu has an .ipynb that exists and was executed."""
    for path in chapter_pages:
        v = visit(path)
        link = v.page.locator("a.btn-download-notebook-button")
        assert link.count() == 1, f"{path.name}: no .ipynb download"
        href = link.get_attribute("href")
        target = (path.parent / unquote(urlsplit(href).path)).resolve()
        assert target.is_file(), f"{path.name}: {href} -> {target} missing"
        nb = json.loads(target.read_text(encoding="utf-8"))
        assert nb["nbformat"] == 4 and nb["metadata"]["kernelspec"]["name"] == "python3"
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert code and all(c.get("execution_count") for c in code), f"{target.name} is not executed"
        assert any(c.get("outputs") for c in code)


def test_chapters_offer_a_launch_link(chapter_pages, visit):
    """Each chapter has a launch link naming its own source file, which exists in the repository."""
    for path in chapter_pages:
        v = visit(path)
        link = v.page.locator("a.btn-launch-local-button")
        assert link.count() == 1, f"{path.name}: no launch link (set searchgrade_launch_url)"
        href = link.get_attribute("href")
        source = f"chapters/{path.stem}.md"
        assert href.endswith(source) or href.endswith(f"{path.stem}.md"), href
        assert (ROOT / source).is_file()


def test_exercise_solutions_start_hidden(chapter_pages, visit):
    """Solutions ('풀이' dropdowns and hide-cell code) are closed until the reader opens them."""
    checked = 0
    for path in chapter_pages:
        v = visit(path)
        v.page.wait_for_timeout(200)
        solutions = v.page.locator("div.admonition.dropdown", has=v.page.locator(".admonition-title", has_text="풀이"))
        for i in range(solutions.count()):
            box = solutions.nth(i)
            body = box.locator(":scope > :not(.admonition-title)").first
            assert not body.is_visible(), f"{path.name}: solution {i + 1} is shown before it is opened"
            button = box.locator("button.toggle-button")
            button.focus()
            v.page.keyboard.press("Enter")
            body.wait_for(state="visible", timeout=3000)
            checked += 1
        hidden_code = v.page.locator("div.cell.tag_hide-cell details")
        for i in range(hidden_code.count()):
            assert hidden_code.nth(i).get_attribute("open") is None, f"{path.name}: hide-cell {i + 1} is open"
    assert checked >= 3, f"only {checked} solutions found"
