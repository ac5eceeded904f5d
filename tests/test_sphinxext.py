"""searchgrade.book.sphinxext: notebook download, launch link and the two console-error fixes, on fake Sphinx objects."""
import json
from types import SimpleNamespace

from sphinx.builders.html._assets import _JavaScript

from searchgrade.book import sphinxext


def fake_app(tmp_path, launch=""):
    outdir = tmp_path / "_build" / "html"
    outdir.mkdir(parents=True)
    config = SimpleNamespace(searchgrade_launch_url=launch, searchgrade_launch_text="JupyterLab (로컬)",
                             searchgrade_launch_tooltip="tip")
    env = SimpleNamespace(doc2path=lambda name, base=False: f"{name}.md")
    return SimpleNamespace(outdir=str(outdir), config=config, env=env)


def context_with_download_group():
    return {"pathto": lambda name, resource=0: f"../{name}",
            "header_buttons": [{"type": "group", "label": "download-buttons", "buttons": [{"label": "download-source-button"}]}]}


def test_notebook_copied_and_offered(tmp_path):
    app = fake_app(tmp_path, launch="http://localhost:8888/lab/tree/{path}")
    executed = sphinxext.executed_notebook(app.outdir, "chapters/ch02_ranking")
    executed.parent.mkdir(parents=True)
    executed.write_text(json.dumps({"nbformat": 4, "cells": []}))
    ctx = context_with_download_group()
    sphinxext.add_notebook_buttons(app, "chapters/ch02_ranking", "page.html", ctx, doctree=object())
    copied = tmp_path / "_build" / "html" / "_sources" / "chapters" / "ch02_ranking.ipynb"
    assert json.loads(copied.read_text()) == {"nbformat": 4, "cells": []}
    download = ctx["header_buttons"][0]["buttons"][0]
    assert download["label"] == sphinxext.NOTEBOOK_LABEL
    assert download["url"] == "../_sources/chapters/ch02_ranking.ipynb"
    launch = ctx["header_buttons"][1]["buttons"][0]
    assert launch["url"] == "http://localhost:8888/lab/tree/chapters/ch02_ranking.md"
    # a second call (same page) does not add a second download entry
    sphinxext.add_notebook_buttons(app, "chapters/ch02_ranking", "page.html", ctx, doctree=object())
    assert sum(b["label"] == sphinxext.NOTEBOOK_LABEL for b in ctx["header_buttons"][0]["buttons"]) == 1


def test_pages_without_a_notebook_are_left_alone(tmp_path):
    app = fake_app(tmp_path, launch="http://x/{name}")
    ctx = context_with_download_group()
    sphinxext.add_notebook_buttons(app, "chapters/bibliography", "page.html", ctx, doctree=object())
    assert len(ctx["header_buttons"]) == 1 and len(ctx["header_buttons"][0]["buttons"]) == 1


def test_duplicate_inline_scripts_are_dropped():
    body = 'const THEBE_JS_URL = "x"'
    scripts = [_JavaScript("_static/a.js"), _JavaScript(None, body=body), _JavaScript("", body=body),
               _JavaScript("_static/a.js"), _JavaScript(None, body="other")]
    ctx = {"script_files": scripts}
    sphinxext.drop_duplicate_scripts(None, "index", "page.html", ctx, None)
    assert [(s.filename, s.attributes) for s in ctx["script_files"]] == [
        ("_static/a.js", {}), (None, {"body": body}), (None, {"body": "other"})]


def test_default_theme_mode():
    config = SimpleNamespace(html_context={})
    sphinxext.default_theme_mode(None, config)
    assert config.html_context["default_mode"] == "auto"
    config = SimpleNamespace(html_context={"default_mode": "light"})
    sphinxext.default_theme_mode(None, config)
    assert config.html_context["default_mode"] == "light"
