"""Sphinx hook for the book: an .ipynb download of each executed chapter and an optional launch link.

sphinx-book-theme offers the executed notebook of a MyST-Markdown chapter only when a launch service
(Binder, JupyterHub, Colab) is configured, and those need a public repository, which the book does not
have yet. This hook copies myst-nb's executed notebook (``_build/jupyter_execute/<page>.ipynb``) next to
the page sources, adds ".ipynb" to the page's download menu, and, when ``searchgrade_launch_url`` is
set, a launch menu whose link is that template with ``{path}`` (the chapter's source path relative to
the book root, e.g. ``chapters/ch02_ranking.md``) and ``{name}`` (its file name) filled in.

It also removes two console errors that stock Jupyter Book 1.x pages raise in the browser: the inline
script that declares ``const THEBE_JS_URL`` is emitted twice (a SyntaxError on every page), and an
empty ``default_mode`` makes pydata-sphinx-theme log "Got invalid theme mode". Duplicate scripts are
dropped and ``html_context["default_mode"]`` defaults to ``"auto"``.

Pages draw Korean with the book's own web font (:mod:`.webfont`): when an HTML build finishes, the
hook writes NanumGothic as woff2 and its stylesheet into ``_static`` (the stylesheet is linked from
every page from the start). ``searchgrade_webfont_cache`` names the folder that keeps the converted
fonts between builds (default: ``.webfont`` next to the output folder).

Tables and figures are not numbered (``searchgrade_numfig``, default False): the chapters' tables are HTML
from :func:`searchgrade.book.show`, which Sphinx cannot number, so numbering only the few MyST tables gave
lone numbers ("표 7"). sphinx-jupyterbook-latex sets ``numfig = True`` for every builder at
``config-inited``; this hook runs after it and sets ``numfig`` to ``searchgrade_numfig``.

Use it with ``sphinx: extra_extensions: [searchgrade.book.sphinxext]`` in ``_config.yml``.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from . import webfont

NOTEBOOK_LABEL = "download-notebook-button"
LAUNCH_LABEL = "launch-local-button"


def executed_notebook(outdir: str | Path, pagename: str) -> Path:
    """Path where myst-nb writes the executed notebook of a page (it may not exist)."""
    return Path(outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"


def add_notebook_buttons(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """html-page-context hook: copy the executed notebook into _sources and add download/launch entries."""
    if doctree is None:
        return
    executed = executed_notebook(app.outdir, pagename)
    if not executed.is_file():
        return  # not a notebook page (e.g. the bibliography)
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(executed, target)
    buttons = context.setdefault("header_buttons", [])
    url = f"{context['pathto']('_sources', 1)}/{pagename}.ipynb"
    group = next((b for b in buttons if b.get("label") == "download-buttons"), None)
    entry = {"type": "link", "url": url, "text": ".ipynb", "icon": "fas fa-code",
             "tooltip": "실행된 노트북 내려받기", "label": NOTEBOOK_LABEL}
    if group is None:
        buttons.append({"type": "group", "tooltip": "이 페이지 내려받기", "icon": "fas fa-download",
                        "buttons": [entry], "label": "download-buttons"})
    elif not any(b.get("label") == NOTEBOOK_LABEL for b in group["buttons"]):
        group["buttons"].insert(0, entry)

    template = app.config.searchgrade_launch_url
    if template:
        source = Path(app.env.doc2path(pagename, base=False)).as_posix()
        launch = {"type": "link", "url": template.format(path=source, name=Path(source).name),
                  "text": app.config.searchgrade_launch_text, "icon": "fas fa-rocket",
                  "tooltip": app.config.searchgrade_launch_tooltip, "label": LAUNCH_LABEL}
        buttons.append({"type": "group", "tooltip": "노트북으로 실행하기", "icon": "fas fa-rocket",
                        "buttons": [launch], "label": "launch-buttons"})


def _script_key(js) -> tuple:
    """What makes two script entries the same script on the page (priority aside)."""
    attributes = getattr(js, "attributes", {}) or {}
    filename = getattr(js, "filename", js) or ""  # inline scripts come as filename None or ""
    return (str(filename), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def drop_duplicate_scripts(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """html-page-context hook: keep the first of identical <script> entries (inline ones included)."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for js in scripts:
        key = _script_key(js)
        if key not in seen:
            seen.add(key)
            kept.append(js)
    context["script_files"] = kept


def default_theme_mode(app, config) -> None:
    """config-inited hook: give pydata-sphinx-theme a valid default mode unless the book sets one."""
    context = dict(config.html_context or {})
    context.setdefault("default_mode", "auto")
    config.html_context = context


def webfont_cache(app) -> Path:
    """Folder that keeps the converted web fonts between builds."""
    configured = app.config.searchgrade_webfont_cache
    return Path(configured) if configured else Path(app.outdir).parent / ".webfont"


def write_webfont(app, exception) -> None:
    """build-finished hook: write the Korean web font and its stylesheet into an HTML build's _static."""
    if exception is not None or getattr(app.builder, "format", None) != "html":
        return
    webfont.write_static(Path(app.outdir) / "_static", webfont_cache(app))


def keep_numfig(app, config) -> None:
    """config-inited hook (after sphinx-jupyterbook-latex's, which forces numfig on): numfig as the book sets it."""
    config.numfig = bool(config.searchgrade_numfig)


def setup(app):
    """Register the config values and the hooks (buttons after sphinx-book-theme's, priority 501)."""
    app.add_config_value("searchgrade_launch_url", "", "html")
    app.add_config_value("searchgrade_launch_text", "JupyterLab (로컬)", "html")
    app.add_config_value("searchgrade_launch_tooltip",
                         "저장소에서 `make lab`을 실행한 뒤 이 장을 JupyterLab에서 연다", "html")
    app.connect("html-page-context", add_notebook_buttons, priority=502)
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    app.connect("config-inited", default_theme_mode)
    app.add_config_value("searchgrade_numfig", False, "env")
    app.connect("config-inited", keep_numfig, priority=900)
    app.add_config_value("searchgrade_webfont_cache", "", "html")
    app.add_css_file(webfont.CSS_FILE, priority=900)  # after the theme's, so its font variables win
    app.connect("build-finished", write_webfont)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
