"""searchgrade.book.sphinxext and .webfont: notebook download, launch link, the two console-error fixes and the
Korean web font, on fake Sphinx objects and a small cut of NanumGothic; the book's tables and figures stay
unnumbered whatever another extension sets."""
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from sphinx.builders.html._assets import _JavaScript

from searchgrade.book import sphinxext, webfont


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


# --------------------------------------------------------------------------- the Korean web font


def small_nanum(tmp_path) -> Path:
    """A few glyphs of NanumGothic with the shipped TTF's VTT tables (TSI3 empty), fast to convert."""
    from fontTools import subset
    from fontTools.ttLib import TTFont
    from fontTools.ttLib.tables.DefaultTable import DefaultTable

    font = TTFont(str(webfont.source_dir() / webfont.FACES[0].source))
    raw = {tag: font.reader[tag] for tag in webfont.EDITOR_TABLES if tag in font.reader}
    assert raw.get("TSI3") == b""                 # why Chromium refuses the font as shipped
    sub = subset.Subsetter(subset.Options())
    sub.populate(text="한글 글꼴 Ab")
    sub.subset(font)                              # the subsetter drops the VTT tables: put them back raw
    for tag, data in raw.items():
        font[tag] = DefaultTable(tag)
        font[tag].data = data
    path = tmp_path / "NanumGothic.ttf"
    font.save(str(path))
    return path


def test_the_web_font_source_is_the_figures_font():
    from searchgrade.book.plotting import korean_font_path

    for face in webfont.FACES:
        assert (webfont.source_dir() / face.source).is_file(), face
    assert webfont.source_dir() / webfont.FACES[0].source == korean_font_path()


def test_convert_keeps_the_font_and_drops_only_the_editor_tables(tmp_path):
    from fontTools.ttLib import TTFont

    source = small_nanum(tmp_path)
    target = tmp_path / "out" / "NanumGothic.woff2"
    webfont.convert(source, target)
    original, converted = TTFont(str(source)), TTFont(str(target))
    assert converted.flavor == "woff2" and target.read_bytes()[:4] == b"wOF2"
    assert set(original.keys()) - set(converted.keys()) <= set(webfont.EDITOR_TABLES) | {"GlyphOrder"}
    assert "TSI3" in original and not set(webfont.EDITOR_TABLES) & set(converted.keys())
    assert converted["cmap"].getBestCmap() == original["cmap"].getBestCmap()
    assert ord("한") in converted["cmap"].getBestCmap()
    assert converted["name"].getDebugName(1) == "NanumGothic"          # the names (and licence notice) stay
    for glyph in converted.getGlyphOrder():
        assert converted["glyf"][glyph].getCoordinates(converted["glyf"])[0] == \
            original["glyf"][glyph].getCoordinates(original["glyf"])[0], glyph
    assert oct(target.stat().st_mode & 0o777) == "0o644"


def test_cached_woff2_converts_once_per_source(tmp_path, monkeypatch):
    source = small_nanum(tmp_path)
    monkeypatch.setattr(webfont, "source_dir", lambda: source.parent)
    calls = []
    real = webfont.convert
    monkeypatch.setattr(webfont, "convert", lambda s, t: (calls.append(s), real(s, t)))
    face = webfont.Face(source.name, 400)
    first = webfont.cached_woff2(face, tmp_path / "cache")
    again = webfont.cached_woff2(face, tmp_path / "cache")
    assert first == again and first.parent.name == webfont.cache_key(source) and len(calls) == 1
    with pytest.raises(RuntimeError, match="missing"):
        webfont.cached_woff2(webfont.Face("NoSuchFont.ttf", 400), tmp_path / "cache")


def test_font_css_declares_every_face_locally():
    css = webfont.font_css()
    assert css.count("@font-face") == len(webfont.FACES)
    for face in webfont.FACES:
        assert f'url("{webfont.FONT_DIR}/{face.woff2}") format("woff2")' in css
        assert f"font-weight: {face.weight};" in css
    assert "http" not in css and "//" not in css.replace("/*", "").replace("*/", "")
    for variable in ("--pst-font-family-base", "--pst-font-family-heading", "--sg-font-family"):
        assert f'{variable}: "{webfont.FAMILY}", ' in css           # the web font first ...
    mono = re.search(r"--pst-font-family-monospace: ([^;]+);", css).group(1)
    assert mono.endswith(f'monospace, "{webfont.FAMILY}"')       # ... and after the monospace fonts in code


def test_write_static_needs_the_licence(tmp_path, monkeypatch):
    cache = tmp_path / "cache"

    def cached(face, cache):                                      # a filled cache: no conversion here
        path = cache / "digest" / face.woff2
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"wOF2" + face.woff2.encode())
        return path

    monkeypatch.setattr(webfont, "cached_woff2", cached)

    static = tmp_path / "_static"
    with pytest.raises(RuntimeError, match="licence"):
        webfont.write_static(static, cache)
    (static / webfont.FONT_DIR / webfont.LICENSE_FILE).write_text("OFL")
    written = webfont.write_static(static, cache)
    assert [p.name for p in written] == [f.woff2 for f in webfont.FACES] + [webfont.CSS_FILE]
    assert (static / webfont.CSS_FILE).read_text(encoding="utf-8") == webfont.font_css()
    assert (static / "fonts" / webfont.FACES[1].woff2).read_bytes() == b"wOF2" + webfont.FACES[1].woff2.encode()


def test_the_book_ships_the_font_licence():
    licence = Path(__file__).resolve().parents[2] / "_static" / webfont.FONT_DIR / webfont.LICENSE_FILE
    text = licence.read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in text and "Reserved Font Name Nanum" in text


def test_write_webfont_hook_only_for_finished_html_builds(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(webfont, "write_static", lambda static, cache: seen.append((static, cache)))
    app = fake_app(tmp_path)
    app.config.searchgrade_webfont_cache = ""
    app.builder = SimpleNamespace(format="latex")
    sphinxext.write_webfont(app, None)
    app.builder = SimpleNamespace(format="html")
    sphinxext.write_webfont(app, RuntimeError("build failed"))
    assert seen == []
    sphinxext.write_webfont(app, None)
    assert seen == [(Path(app.outdir) / "_static", Path(app.outdir).parent / ".webfont")]
    app.config.searchgrade_webfont_cache = str(tmp_path / "elsewhere")
    sphinxext.write_webfont(app, None)
    assert seen[-1][1] == tmp_path / "elsewhere"


class FakeApp:
    """Records what setup registers."""

    def __init__(self):
        self.values, self.hooks = {}, []

    def add_config_value(self, name, default, rebuild):
        self.values[name] = default

    def connect(self, event, fn, priority=500):
        self.hooks.append((event, fn, priority))

    def add_css_file(self, *args, **kwargs):
        pass


def test_numfig_follows_the_book_setting_after_another_extension_forces_it():
    config = SimpleNamespace(numfig=True, searchgrade_numfig=False)   # as sphinx-jupyterbook-latex leaves it
    sphinxext.keep_numfig(None, config)
    assert config.numfig is False
    config = SimpleNamespace(numfig=False, searchgrade_numfig=True)
    sphinxext.keep_numfig(None, config)
    assert config.numfig is True


def test_the_hook_runs_late_and_defaults_to_no_numbers():
    app = FakeApp()
    sphinxext.setup(app)
    assert app.values["searchgrade_numfig"] is False
    (priority,) = [p for event, fn, p in app.hooks if fn is sphinxext.keep_numfig]
    assert priority > 500          # after sphinx-jupyterbook-latex's config-inited hook (default 500)
