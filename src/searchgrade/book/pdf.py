"""The PDF edition: the executed chapters built once more as one HTML page, printed by Chromium.

``make book`` executes every chapter; myst-nb leaves each executed notebook in ``_build/jupyter_execute/``
and Sphinx a copy of every page's source in ``_build/html/_sources/``. :func:`edition_source` makes of
them a book whose chapters are those notebooks (outputs included) and whose configuration turns execution
off, so nothing runs a second time and the PDF is the same build as the HTML edition; Jupyter Book's ``singlehtml`` builder makes one page of it; :func:`print_pdf` opens the
page in Debian's Chromium (Playwright, no download), opens every exercise solution, turns each widget
into its first state with a line naming its page in the HTML edition, adds a table of contents with
page numbers, and prints it with page numbers in the footer. Nothing is fetched from outside.

Run it with ``make pdf`` (after ``make book``), or ``python -m searchgrade.book.pdf``.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import posixpath
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path, PurePosixPath

import yaml

from ..report.widget import asset


BOOK = "searchgrade.book"  # the package whose assets/ hold the print stylesheet and the page scripts
CHROMIUM_ENV = "SEARCHGRADE_CHROMIUM"
HTML_EDITION = "HTML판"
TOC_TITLE = "차례"
PAGE_MARGIN = {"top": "18mm", "bottom": "18mm", "left": "16mm", "right": "16mm"}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update"]
FOOTER = ('<div style="width:100%;font-size:9px;text-align:center;color:#555;font-family:sans-serif">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


# --------------------------------------------------------------------------- the source to build


def toc_entries(book: Path) -> list[tuple[str | None, str]]:
    """(part caption or None, docname) of every page in `_toc.yml`, in reading order (root first)."""
    toc = yaml.safe_load((Path(book) / "_toc.yml").read_text(encoding="utf-8"))
    entries = [(None, toc["root"])]

    def walk(items, caption):
        for item in items or []:
            if "file" in item:
                entries.append((caption, item["file"]))
            walk(item.get("sections"), caption)

    for part in toc.get("parts", []):
        walk(part.get("chapters"), part.get("caption"))
    walk(toc.get("chapters"), None)
    return entries


def _with_glue(notebook: dict, glue: dict) -> dict:
    """The executed notebook with the glue values myst-nb moved out of it put back (hidden) in a code cell."""
    present = {o.get("metadata", {}).get("scrapbook", {}).get("name")
               for c in notebook["cells"] for o in c.get("outputs", [])}
    prefix = "application/papermill.record/"
    missing = [{"output_type": "display_data",
                "metadata": {"scrapbook": {"name": key, "mime_prefix": prefix}},
                "data": {prefix + mime: value for mime, value in output["data"].items()}}
               for key, output in glue.items() if key not in present]
    if missing:
        cell = next((c for c in notebook["cells"] if c["cell_type"] == "code"), None)
        if cell is None:
            raise ValueError("glue values but no code cell to hold them")
        cell["outputs"] = list(cell.get("outputs", [])) + missing
    return notebook


MD_LINK = re.compile(r"(\]\()([^)\s#]+)\.md(#[^)\s]*)?(\))")


def retarget_links(notebook: dict, doc: str, notebooks: set[str]) -> dict:
    """Links to `page.md` in markdown cells, where that page now is an executed `page.ipynb`, made `.ipynb`."""
    here = PurePosixPath(doc).parent

    def swap(m):
        target = posixpath.normpath((here / m.group(2)).as_posix())
        return f"{m.group(1)}{m.group(2)}.ipynb{m.group(3) or ''}{m.group(4)}" if target in notebooks else m.group(0)

    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = MD_LINK.sub(swap, text)
    return notebook


def _config(book: Path, cache: Path) -> dict:
    """The book's _config.yml with execution off and the web font cache shared with the HTML build."""
    config = yaml.safe_load((Path(book) / "_config.yml").read_text(encoding="utf-8"))
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    sphinx = config.setdefault("sphinx", {}).setdefault("config", {})
    sphinx["searchgrade_webfont_cache"] = str(Path(cache).resolve())
    sphinx["searchgrade_launch_url"] = ""
    return config


def edition_source(book: Path, dest: Path, executed: Path | None = None, sources: Path | None = None) -> list[str]:
    """Write into `dest` the book as the last HTML build rendered it; return the docnames, in order.

    A notebook page is its executed notebook (`executed`, default ``_build/jupyter_execute``): the cells
    and outputs the HTML edition shows. A plain page is the build's copy of its source (`sources`,
    default ``_build/html/_sources``). So the PDF is the HTML edition's build even where a page was
    edited since (a warning names those pages); a page missing from the build is an error."""
    book, dest = Path(book), Path(dest)
    executed = Path(executed) if executed else book / "_build" / "jupyter_execute"
    sources = Path(sources) if sources else book / "_build" / "html" / "_sources"
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    docs = [doc for _, doc in toc_entries(book)]
    for folder in sorted({Path(doc).parent for doc in docs} - {Path(".")}):   # the chapters' other files
        shutil.copytree(book / folder, dest / folder, ignore=shutil.ignore_patterns("*.md", "*.ipynb", ".ipynb_checkpoints"))
    for name in ("_toc.yml", "references.bib"):
        if (book / name).exists():
            shutil.copy2(book / name, dest / name)
    if (book / "_static").is_dir():
        shutil.copytree(book / "_static", dest / "_static")
    notebooks = {doc for doc in docs if (executed / f"{doc}.ipynb").exists()}
    changed = [doc for doc in docs if not (_write_notebook(book, executed, dest, doc, notebooks) if doc in notebooks
                                           else _write_plain(book, sources, dest, doc))]
    if changed:
        print(f"warning: the PDF edition shows the last `make book`; edited since: {', '.join(changed)}",
              file=sys.stderr)
    config = _config(book, book / "_build" / ".webfont")
    (dest / "_config.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return docs


def _source(book: Path, doc: str) -> Path | None:
    """The book's own source of a page (.md or .ipynb), if it has one."""
    return next((book / f"{doc}{ext}" for ext in (".md", ".ipynb") if (book / f"{doc}{ext}").is_file()), None)


def _write_notebook(book: Path, executed: Path, dest: Path, doc: str, notebooks: set[str]) -> bool:
    """A notebook page as executed (glue restored, links retargeted); return whether its source is unchanged."""
    data = json.loads((executed / f"{doc}.ipynb").read_text(encoding="utf-8"))
    current = _source(book, doc)
    same = current is not None and (current.suffix != ".md" or same_cells(current, data))
    glue_file = executed / f"{doc}.glue.json"
    glue = json.loads(glue_file.read_text(encoding="utf-8")) if glue_file.exists() else {}
    target = dest / f"{doc}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(retarget_links(_with_glue(data, glue), doc, notebooks), ensure_ascii=False),
                      encoding="utf-8")
    return same


def _write_plain(book: Path, sources: Path, dest: Path, doc: str) -> bool:
    """A page that was not executed, as the build copied it; return whether the book's source is unchanged."""
    built = sources / f"{doc}.md"
    if not built.is_file():
        raise FileNotFoundError(f"{doc} is not in the last build ({built} is missing): run `make book` first")
    if _is_notebook(built):
        raise FileNotFoundError(f"{doc} is a notebook but the build has no executed {doc}.ipynb: run `make book`")
    target = dest / f"{doc}.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(built, target)
    current = _source(book, doc)
    return current is not None and current.read_bytes() == built.read_bytes()


def same_cells(source: Path, executed: dict) -> bool:
    """Whether the executed notebook has exactly the cells (type and text) of the MyST-Markdown chapter."""
    from myst_nb.core.read import read_myst_markdown_notebook

    now = read_myst_markdown_notebook(Path(source).read_text(encoding="utf-8"))
    then = [(c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list) else c["source"])
            for c in executed["cells"]]
    return [(c.cell_type, c.source) for c in now.cells] == then


def _is_notebook(source: Path) -> bool:
    """A MyST-Markdown notebook (jupytext header with a kernelspec) or an .ipynb."""
    if source.suffix == ".ipynb":
        return True
    head = source.read_text(encoding="utf-8")[:2000]
    return head.startswith("---") and "kernelspec:" in head.split("\n---", 1)[0]


def build_singlehtml(source: Path) -> Path:
    """Build `source` with Jupyter Book's singlehtml builder (warnings are errors); return index.html."""
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(source), "--builder", "singlehtml", "--all", "-W", "--keep-going"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-40:])
        raise RuntimeError(f"the singlehtml build failed ({' '.join(cmd)}):\n{tail}")
    index = Path(source) / "_build" / "singlehtml" / "index.html"
    if not index.is_file():
        raise RuntimeError(f"the singlehtml build wrote no {index}")
    return index


# --------------------------------------------------------------------------- printing


def chromium_path() -> str:
    """Debian's Chromium (or $SEARCHGRADE_CHROMIUM); Playwright's own browser download is never used."""
    path = os.environ.get(CHROMIUM_ENV) or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise RuntimeError(f"Chromium not found at {path}: apt-get install -y chromium (or set ${CHROMIUM_ENV})")
    return path


@contextlib.contextmanager
def quiet_pypdf():
    """pypdf without its warnings about Chromium's trailer size (off by a few objects; harmless)."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def destination_pages(pdf: Path, targets: dict[str, str]) -> dict[str, int]:
    """{docname: 1-based page} of each page's heading, from the PDF's named destinations {docname: element id}."""
    from pypdf import PdfReader

    with quiet_pypdf():
        reader = PdfReader(str(pdf))
        names = reader.named_destinations
        pages = {}
        for doc, target in targets.items():
            dest = names.get(f"/{target}", names.get(target))
            if dest is None:
                raise RuntimeError(f"the PDF has no destination #{target} for {doc} (its table-of-contents link)")
            pages[doc] = reader.get_destination_page_number(dest) + 1
    return pages


def undouble_bookmarks(pdf: Path, headings: set[str]) -> int:
    """Mend the bookmarks whose title Chromium wrote as a start of a heading followed by the whole heading
    ("제목제목", or "제목 일부제목 전부"): each becomes the heading; return how many were mended."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    with quiet_pypdf():
        writer = PdfWriter(clone_from=PdfReader(str(pdf)))
    fixed = 0
    outlines = writer.root_object.get("/Outlines")
    stack = [outlines.get_object()["/First"]] if outlines is not None and "/First" in outlines.get_object() else []
    while stack:
        item = stack.pop().get_object()
        title = str(item.get("/Title", ""))
        whole = next((h for h in headings if h and title != h and title.endswith(h)
                      and h.startswith(title[:-len(h)])), None)
        if whole is not None:
            item[NameObject("/Title")] = TextStringObject(whole)
            fixed += 1
        stack += [item[key] for key in ("/Next", "/First") if key in item]
    if fixed:
        with open(pdf, "wb") as f:
            writer.write(f)
    return fixed


def _prepare(page, entries) -> dict:
    """Open the single page for print: solutions open, widgets named, table of contents in; wait for fonts.

    The print stylesheet and the scripts run in the page are files of this package's ``assets/``:
    ``pdf-open.js`` opens what the HTML hides until clicked (exercise solutions, hide-cell code, hidden
    outputs), leaves hide-input code hidden, and names each widget's page in the HTML edition;
    ``pdf-toc.js`` inserts the table of contents before the first chapter (one line per page of
    _toc.yml, under its part's caption, linked to the page's heading; page numbers are filled in after
    a first print); ``pdf-headings.js`` reads every heading as a bookmark should (without the "#")."""
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.evaluate("() => (window.MathJax && MathJax.startup) ? MathJax.startup.promise.then(() => true) : true")
    page.emulate_media(media="print")
    page.add_style_tag(content=asset("pdf-print.css", BOOK))
    opened = page.evaluate(asset("pdf-open.js", BOOK), HTML_EDITION)
    if opened["named"] != opened["widgets"]:
        raise RuntimeError(f"{opened['widgets'] - opened['named']} of {opened['widgets']} widgets have no line "
                           "naming the HTML edition")
    toc = page.evaluate(asset("pdf-toc.js", BOOK), [TOC_TITLE, [list(e) for e in entries]])
    page.evaluate("() => document.fonts.ready.then(() => true)")
    return {"chapters": toc, "widgets": opened["widgets"], "headings": page.evaluate(asset("pdf-headings.js", BOOK))}


def _print_numbered(page, path: Path, toc: list[dict], passes: int) -> dict[str, int]:
    """Print until the table of contents gives the pages the print puts the chapters on; return them."""
    numbers: dict[str, int] = {}
    for _ in range(passes):
        page.evaluate("""pages => document.querySelectorAll("nav.sg-print-toc .sg-page")
                           .forEach(e => { e.textContent = pages[e.dataset.doc] || "000"; })""", numbers)
        page.pdf(path=str(path), format="A4", print_background=True, display_header_footer=True,
                 header_template="<span></span>", footer_template=FOOTER, margin=PAGE_MARGIN,
                 outline=True, tagged=True)
        found = destination_pages(path, {e["doc"]: e["target"] for e in toc})
        if found == numbers:
            return numbers
        numbers = found
    raise RuntimeError(f"the table of contents' page numbers did not settle in {passes} prints")


def print_pdf(index_html: Path, out: Path, entries: list[tuple[str | None, str]], passes: int = 4) -> dict:
    """Print the single page to `out` in Chromium, nothing fetched from outside; return what was printed."""
    from playwright.sync_api import sync_playwright

    external: list[str] = []

    def refuse(route):
        external.append(route.request.url)
        route.abort()

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.pdf")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(service_workers="block")
            context.route("http://**/*", refuse)
            context.route("https://**/*", refuse)
            page = context.new_page()
            page.goto(Path(index_html).resolve().as_uri(), wait_until="load")
            done = _prepare(page, entries)
            numbers = _print_numbered(page, tmp, done["chapters"], passes)
        finally:
            browser.close()
    if external:
        raise RuntimeError(f"the page asked for things outside the book: {sorted(set(external))[:10]}")
    undouble_bookmarks(tmp, set(done["headings"]))
    os.replace(tmp, out)
    return {"chapters": done["chapters"], "widgets": done["widgets"], "pages": numbers}


# --------------------------------------------------------------------------- make pdf


def build(book: Path, out: Path) -> dict:
    """The whole PDF edition from the last `make book`: source copy, single-page build, print; with timings."""
    book = Path(book).resolve()
    if not (book / "_build" / "jupyter_execute").is_dir():
        raise FileNotFoundError(f"no executed chapters in {book / '_build' / 'jupyter_execute'}: run `make book` first")
    times, t0 = {}, time.perf_counter()
    entries = toc_entries(book)
    source = book / "_build" / "pdf" / "source"
    edition_source(book, source)
    times["source"] = time.perf_counter() - t0
    index = build_singlehtml(source)
    times["singlehtml"] = time.perf_counter() - t0 - times["source"]
    result = print_pdf(index, Path(out), entries[1:])
    times["print"] = time.perf_counter() - t0 - times["source"] - times["singlehtml"]
    from pypdf import PdfReader

    with quiet_pypdf():
        result["page_count"] = len(PdfReader(str(out)).pages)
    result["seconds"] = {k: round(v, 1) for k, v in times.items()}
    return result


def main(argv: list[str] | None = None) -> int:
    """Command line: python -m searchgrade.book.pdf [--book .] [--out _build/pdf/book.pdf]."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--book", default=".", help="the book's folder (with _config.yml and _toc.yml)")
    parser.add_argument("--out", default="_build/pdf/book.pdf", help="the PDF to write")
    args = parser.parse_args(argv)
    result = build(Path(args.book), Path(args.out))
    secs = result["seconds"]
    print(f"wrote {args.out}: {result['page_count']} pages, {len(result['chapters'])} table-of-contents entries, "
          f"{result['widgets']} widgets; {secs['source']} s source, {secs['singlehtml']} s singlehtml build, "
          f"{secs['print']} s print")
    return 0


if __name__ == "__main__":
    sys.exit(main())
