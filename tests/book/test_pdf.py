"""searchgrade.book.pdf without a browser: the source it builds the PDF edition from, and its repairs.

The printed PDF itself is checked by tests/pdf/test_printed_pdf.py (after `make pdf`)."""
import json

import pytest
import yaml

from searchgrade.book import pdf

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""

CHAPTER = HEADER + """
# 1장. 시험

본문이다. [다음 장](b.md)과 [다음 장의 절](b.md#x), [부록](../extra/c.md)을 본다.

```{code-cell} ipython3
1 + 1
```
"""


def executed_of(text: str, outputs=None) -> dict:
    """The notebook myst-nb would have written after executing a MyST-Markdown chapter."""
    from myst_nb.core.read import read_myst_markdown_notebook

    nb = read_myst_markdown_notebook(text)
    data = json.loads(json.dumps(nb))
    for cell in data["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = outputs or [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                                           "data": {"text/plain": "2"}}]
    return data


@pytest.fixture
def book(tmp_path):
    """A small book: a plain index, two notebook chapters (one executed), a plain page, a bibliography."""
    root = tmp_path / "book"
    (root / "chapters").mkdir(parents=True)
    (root / "extra").mkdir()
    (root / "index.md").write_text("# 책\n\n머리말이다.\n", encoding="utf-8")
    (root / "chapters" / "a.md").write_text(CHAPTER, encoding="utf-8")
    (root / "chapters" / "b.md").write_text(HEADER + "\n# 2장\n\n(x)=\n## 절\n", encoding="utf-8")
    (root / "extra" / "c.md").write_text("# 부록\n\n보통 문서다.\n", encoding="utf-8")
    (root / "references.bib").write_text("", encoding="utf-8")
    (root / "_static").mkdir()
    (root / "_config.yml").write_text(yaml.safe_dump({"title": "책", "execute": {"execute_notebooks": "force"},
                                                      "sphinx": {"config": {"language": "ko"}}}), encoding="utf-8")
    (root / "_toc.yml").write_text(yaml.safe_dump({
        "format": "jb-book", "root": "index",
        "parts": [{"caption": "본문", "chapters": [{"file": "chapters/a", "sections": [{"file": "chapters/b"}]}]},
                  {"caption": "부록", "chapters": [{"file": "extra/c"}]}]}, allow_unicode=True), encoding="utf-8")
    executed = root / "_build" / "jupyter_execute" / "chapters"
    executed.mkdir(parents=True)
    (executed / "a.ipynb").write_text(json.dumps(executed_of(CHAPTER)), encoding="utf-8")
    glue = {"k": {"output_type": "display_data", "data": {"text/plain": "0.5"},
                  "metadata": {"scrapbook": {"name": "k", "mime_prefix": "application/papermill.record/"}}}}
    (executed / "a.glue.json").write_text(json.dumps(glue), encoding="utf-8")
    (executed / "b.ipynb").write_text(json.dumps(executed_of((root / "chapters" / "b.md").read_text("utf-8"))),
                                      encoding="utf-8")
    built = root / "_build" / "html" / "_sources"                     # Sphinx's copies of the sources
    for page in ("index.md", "chapters/a.md", "chapters/b.md", "extra/c.md"):
        (built / page).parent.mkdir(parents=True, exist_ok=True)
        (built / page).write_bytes((root / page).read_bytes())
    return root


def test_toc_entries_in_reading_order(book):
    assert pdf.toc_entries(book) == [(None, "index"), ("본문", "chapters/a"), ("본문", "chapters/b"),
                                     ("부록", "extra/c")]


def test_edition_source_uses_the_executed_notebooks(book, tmp_path, capsys):
    dest = tmp_path / "edition"
    docs = pdf.edition_source(book, dest)
    assert docs == ["index", "chapters/a", "chapters/b", "extra/c"]
    assert not (dest / "chapters" / "a.md").exists() and (dest / "chapters" / "a.ipynb").is_file()
    assert (dest / "index.md").read_text(encoding="utf-8") == "# 책\n\n머리말이다.\n"
    assert (dest / "extra" / "c.md").is_file() and (dest / "_static").is_dir() and (dest / "references.bib").is_file()
    config = yaml.safe_load((dest / "_config.yml").read_text(encoding="utf-8"))
    assert config["execute"]["execute_notebooks"] == "off"            # nothing runs a second time
    assert config["sphinx"]["config"]["searchgrade_webfont_cache"] == str((book / "_build" / ".webfont").resolve())
    assert config["sphinx"]["config"]["language"] == "ko" and config["title"] == "책"
    nb = json.loads((dest / "chapters" / "a.ipynb").read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code[0]["outputs"][0]["data"] == {"text/plain": "2"}       # the executed output
    glue = code[0]["outputs"][-1]                                      # the glue value, back where myst-nb reads it
    assert glue["metadata"]["scrapbook"]["name"] == "k"
    assert glue["data"] == {"application/papermill.record/text/plain": "0.5"}
    text = "".join(c["source"] for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "[다음 장](b.ipynb)" in text and "[다음 장의 절](b.ipynb#x)" in text
    assert "[부록](../extra/c.md)" in text                              # a plain page keeps its .md
    assert "warning" not in capsys.readouterr().err


def test_edition_source_is_the_last_build(book, tmp_path, capsys):
    """Pages edited since `make book` appear as they were built, with a warning naming them."""
    (book / "chapters" / "a.md").write_text(CHAPTER.replace("본문이다.", "고친 본문이다."), encoding="utf-8")
    (book / "extra" / "c.md").write_text("# 부록\n\n고쳤다.\n", encoding="utf-8")
    dest = tmp_path / "edition"
    pdf.edition_source(book, dest)
    assert "edited since: chapters/a, extra/c" in capsys.readouterr().err
    nb = json.loads((dest / "chapters" / "a.ipynb").read_text(encoding="utf-8"))
    assert "고친" not in json.dumps(nb, ensure_ascii=False) and "본문이다." in json.dumps(nb, ensure_ascii=False)
    assert (dest / "extra" / "c.md").read_text(encoding="utf-8") == "# 부록\n\n보통 문서다.\n"


def test_edition_source_refuses_an_incomplete_build(book, tmp_path):
    (book / "_build" / "html" / "_sources" / "extra" / "c.md").unlink()
    with pytest.raises(FileNotFoundError, match="extra/c is not in the last build"):
        pdf.edition_source(book, tmp_path / "e1")
    (book / "_build" / "jupyter_execute" / "chapters" / "b.ipynb").unlink()
    with pytest.raises(FileNotFoundError, match="chapters/b is a notebook but the build has no executed"):
        pdf.edition_source(book, tmp_path / "e2")


def test_glue_is_not_put_back_twice():
    shown = {"output_type": "display_data", "data": {"text/plain": "1"},
             "metadata": {"scrapbook": {"name": "k", "mime_prefix": ""}}}
    nb = {"cells": [{"cell_type": "code", "source": "", "outputs": [shown]}]}
    glue = {"k": shown, "j": {"output_type": "display_data", "data": {"text/plain": "2"}, "metadata": {}}}
    out = pdf._with_glue(nb, glue)["cells"][0]["outputs"]
    assert [o["metadata"]["scrapbook"]["name"] for o in out] == ["k", "j"]
    with pytest.raises(ValueError, match="no code cell"):
        pdf._with_glue({"cells": [{"cell_type": "markdown", "source": "x"}]}, glue)


def test_undouble_bookmarks(tmp_path):
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter()
    for _ in range(3):
        writer.add_blank_page(200, 200)
    writer.add_outline_item(title="1장. 시험1장. 시험", page_number=0)
    parent = writer.add_outline_item(title="6장. 긴 제목이 충분한6장. 긴 제목이 충분한가", page_number=1)
    writer.add_outline_item(title="절 제목", page_number=2, parent=parent)
    writer.add_outline_item(title="다른 제목다른", page_number=2)
    path = tmp_path / "b.pdf"
    with open(path, "wb") as f:
        writer.write(f)
    headings = {"1장. 시험", "6장. 긴 제목이 충분한가", "절 제목", "다른 제목"}
    assert pdf.undouble_bookmarks(path, headings) == 2
    titles = []

    def walk(items):
        for item in items:
            walk(item) if isinstance(item, list) else titles.append(str(item.title))

    walk(pypdf.PdfReader(str(path)).outline)
    assert titles == ["1장. 시험", "6장. 긴 제목이 충분한가", "절 제목", "다른 제목다른"]   # only true doubles mended
