"""The PDF edition as `make pdf` wrote it: every chapter in order, numbered, with its figures, tables,
bibliography, opened exercise solutions and widgets, and a Korean font embedded.

The expectations come from the book as `make book` built it (`_toc.yml`, the executed chapters,
references.bib), never from the code that made the PDF. The file is $SEARCHGRADE_BOOK_PDF, default `_build/pdf/book.pdf`;
without it the tests are skipped with a message. `make pdf` builds it and runs them.
"""
from __future__ import annotations

import json
import logging
import os
import re
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

pypdf = pytest.importorskip("pypdf", reason="pypdf reads the PDF edition (`make pdf` installs it)")

ROOT = Path(__file__).resolve().parents[2]
PDF_ENV = "SEARCHGRADE_BOOK_PDF"
HANGUL = re.compile("[\uac00-\ud7a3]")
WIDGET_CALL = re.compile(
    r"^\s*(?:widgets\.)?(scoring_lab|rank_slider|query_viewer)\(", re.M
)


def pdf_path() -> Path:
    path = Path(os.environ.get(PDF_ENV, "_build/pdf/book.pdf"))
    return path if path.is_absolute() else ROOT / path


@pytest.fixture(scope="module")
def reader():
    path = pdf_path()
    if not path.is_file():
        pytest.skip(f"no PDF edition at {path} (run `make pdf`, or set ${PDF_ENV})")
    logging.getLogger("pypdf").setLevel(logging.ERROR)   # Chromium's trailer sizes are off by a few objects
    return pypdf.PdfReader(str(path))


@pytest.fixture(scope="module")
def page_texts(reader) -> list[str]:
    return [page.extract_text() or "" for page in reader.pages]


def squash(text: str) -> str:
    """Text without whitespace (PDF text extraction breaks lines and spaces where the layout does)."""
    return re.sub(r"\s+", "", text)


def hangul_only(text: str) -> str:
    return "".join(HANGUL.findall(text))


def toc_docs() -> list[str]:
    """Docnames of `_toc.yml`, root first, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    docs = [toc["root"]]

    def walk(items):
        for item in items or []:
            if "file" in item:
                docs.append(item["file"])
            walk(item.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return docs


@lru_cache(maxsize=None)
def source_text(doc: str) -> str:
    """A page's text as the last `make book` built it (the PDF edition's build): its executed notebook's
    cells, or the build's copy of a plain page, or (no build) the page's file."""
    candidates = (ROOT / "_build" / "jupyter_execute" / f"{doc}.ipynb", ROOT / "_build" / "html" / "_sources" / f"{doc}.md",
                  ROOT / f"{doc}.md", ROOT / f"{doc}.ipynb")
    path = next(p for p in candidates if p.exists())
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        text = "\n\n".join("".join(c["source"]) for c in json.loads(text)["cells"])
    return text


@lru_cache(maxsize=None)
def title(doc: str) -> str:
    """The first Markdown heading of a page's source (its title)."""
    match = re.search(r"^# (.+)$", source_text(doc), re.M)
    assert match, f"{doc} has no '# ' title"
    return match.group(1).strip()


def test_page_count_is_plausible(reader):
    chapters = len(toc_docs()) - 1
    assert 3 * chapters <= len(reader.pages) <= 60 * chapters, len(reader.pages)


def outline(reader) -> list[tuple[str, int]]:
    """(title, 1-based page) of every bookmark of the PDF, depth first."""
    found = []

    def walk(items):
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                found.append((str(item.title), reader.get_destination_page_number(item) + 1))

    walk(reader.outline)
    return found


def test_every_chapter_title_in_order(reader, page_texts):
    """Each chapter has a bookmark on a page that shows its title, in the order of _toc.yml, and the
    table of contents gives that page."""
    marks = outline(reader)
    starts = []
    for doc in toc_docs()[1:]:
        want = squash(title(doc))
        pages = [page for name, page in marks if squash(name) == want]
        assert pages, f"no bookmark for {doc} ({title(doc)!r}) in the PDF"
        assert want in squash(page_texts[pages[0] - 1]), f"page {pages[0]} does not show {title(doc)!r}"
        assert not starts or pages[0] > starts[-1], f"{doc} ({title(doc)!r}) does not come after the chapter before it"
        starts.append(pages[0])
    toc_page = next(i for i, text in enumerate(page_texts) if squash(text).startswith("차례"))
    assert toc_page + 1 < starts[0]
    lines = [squash(line) for text in page_texts[toc_page:starts[0] - 1] for line in text.splitlines()]
    for doc, start in zip(toc_docs()[1:], starts):
        entry = re.compile(re.escape(squash(title(doc))) + r"[.\u2026]*" + str(start))
        assert any(entry.fullmatch(line) for line in lines), \
            f"the table of contents does not give page {start} for {title(doc)!r}: {lines}"


def test_pages_are_numbered(page_texts):
    total = len(page_texts)
    for i in (0, total // 2, total - 1):
        assert re.search(rf"(?<!\d){i + 1}\s*/\s*{total}(?!\d)", page_texts[i]), f"page {i + 1} has no number"


def test_a_korean_font_is_embedded(reader):
    fonts = {}
    for page in reader.pages:
        for font in (page.get("/Resources", {}).get("/Font", {}) or {}).values():
            font = font.get_object()
            descendants = font.get("/DescendantFonts") or [font]
            descriptor = descendants[0].get_object().get("/FontDescriptor", {})
            fonts[str(font.get("/BaseFont", font.get("/Subtype")))] = bool(descriptor.get("/FontFile2") or descriptor.get("/FontFile3")) \
                and "/ToUnicode" in font
    korean = {name: ok for name, ok in fonts.items() if "NanumGothic" in name}
    assert korean and all(korean.values()), fonts        # embedded, with a text layer (ToUnicode)


def test_korean_text_layer(page_texts):
    assert sum(len(HANGUL.findall(t)) for t in page_texts) > 10_000


def test_exercise_solutions_are_printed_open(page_texts):
    """The first Korean words of every '풀이' dropdown in the chapters are in the PDF's text."""
    text = hangul_only("".join(page_texts))
    checked = 0
    for doc in toc_docs():
        body = source_text(doc)
        for block in re.findall(r"^:::\{admonition\} 풀이\n(?::[a-z]+:.*\n)*(.+?)\n:::", body, re.M | re.S):
            words = hangul_only(re.sub(r"\{glue:[a-z]+\}`[^`]*`|\$[^$]*\$", "", block))[:16]
            assert words in text, f"{doc}: the solution starting {block[:60]!r} is not printed"
            checked += 1
    assert checked >= 3


def test_widgets_printed_with_a_line_to_the_html_edition(page_texts):
    text = squash("".join(page_texts))
    for doc in toc_docs():
        calls = len(WIDGET_CALL.findall(source_text(doc)))
        found = text.count(squash(f"(HTML판: {doc}.html)"))
        assert found == calls, f"{doc}: {calls} widget calls, {found} printed lines naming the HTML edition"
    assert sum(len(WIDGET_CALL.findall(source_text(d))) for d in toc_docs()) >= 3
    assert text.count(squash("인쇄판에는 이 보기의 처음 상태만 실린다.")) >= 3


def test_bibliography_is_printed(page_texts):
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    titles = re.findall(r"^\s*title\s*=\s*[{\"](.+?)[}\"],?\s*$", bib, re.M | re.I)
    assert len(titles) >= 10
    norm = lambda s: re.sub(r"[^0-9a-z\uac00-\ud7a3]", "", s.lower())  # noqa: E731
    text = norm("".join(page_texts))
    missing = [t for t in titles if norm(t.replace("{", "").replace("}", ""))[:40] not in text]
    assert len(missing) <= len(titles) // 20, missing[:5]


def shown_outputs(mime: str) -> list[dict]:
    """Outputs of `mime` in the executed notebooks that the book shows (not in remove-cell/-output cells)."""
    found = []
    for nb in sorted((ROOT / "_build" / "jupyter_execute").rglob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            tags = set(cell.get("metadata", {}).get("tags", []))
            if cell["cell_type"] == "code" and not {"remove-cell", "remove-output"} & tags:
                found += [o for o in cell.get("outputs", []) if mime in o.get("data", {})]
    return found


def struct_count(node, kind: str, seen=None) -> int:
    """How many structure elements of type `kind` (e.g. /Table) the tagged PDF's structure tree holds."""
    seen = set() if seen is None else seen
    node = node.get_object() if hasattr(node, "get_object") else node
    if isinstance(node, pypdf.generic.ArrayObject):
        return sum(struct_count(k, kind, seen) for k in node)
    if not isinstance(node, pypdf.generic.DictionaryObject) or id(node) in seen:
        return 0
    seen.add(id(node))
    return (node.get("/S") == kind) + struct_count(node.get("/K", pypdf.generic.ArrayObject()), kind, seen)


def test_figures_and_tables_are_printed(reader):
    images = 0
    for page in reader.pages:
        xobjects = page.get("/Resources", {}).get("/XObject", {}) or {}
        images += sum(1 for x in xobjects.values() if x.get_object().get("/Subtype") == "/Image")
    figures = len(shown_outputs("image/png"))
    assert figures >= 1 and images >= figures, (images, figures)
    tables = sum("<table" in "".join(o["data"]["text/html"]) for o in shown_outputs("text/html")
                 if "data-sg-widget" not in "".join(o["data"]["text/html"]))
    structure = reader.trailer["/Root"].get("/StructTreeRoot")
    assert structure is not None, "the PDF is not tagged"
    assert tables >= 1 and struct_count(structure, "/Table") >= tables, (struct_count(structure, "/Table"), tables)
