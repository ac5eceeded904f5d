"""Widget plumbing: what every kernel-free widget of the report and the book is made of.

A widget is one ``<div>`` that works with no kernel, no server and no network: its CSS, markup,
data and script inlined, element ids unique to the instance. :func:`widget_html` assembles it;
:func:`widget_id` makes the ids; :func:`quantise` and :func:`format_value` say how a value is
embedded and shown (4 decimals; the page's JavaScript only looks values up); :func:`resolve_mode`
chooses HTML or ipywidgets; :func:`display_html` hands the HTML to Jupyter; :func:`check_int` checks
an argument and names it. :func:`asset` is the one loader of the files shipped beside the code
(``<package>/assets/``: the widgets' stylesheet and scripts, the PDF edition's print CSS and page
scripts, the web font's licence).

To make a widget: compute every value it shows with the package, quantise them into the data,
write its script in an ``assets/`` folder (a function ``f(root, data)`` that wires one instance),
and return ``display_html(widget_html(widget_id(kind, key), body, data, asset(script), "f", kind))``
(the report's query viewer, :mod:`.viewer`, and the book's lab and slider,
:mod:`searchgrade.book.widgets`, are built so). This module imports neither
:mod:`searchgrade.book` nor matplotlib.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sys
from functools import lru_cache
from importlib import resources

import numpy as np

from .html import esc
from .text import VIEWER_PAGE

__all__ = [
    "MODES",
    "SCALE",
    "MODE_ENV",
    "quantise",
    "format_value",
    "asset",
    "resolve_mode",
    "widget_id",
    "json_for_script",
    "widget_html",
    "display_html",
    "check_int",
]

MODES = ("auto", "html", "ipywidgets")
SCALE = 10_000  # embedded values are round(value * SCALE): 4 decimals
MODE_ENV = "SEARCHGRADE_WIDGET_MODE"
_counter = itertools.count(1)


def quantise(value: float) -> int:
    """Embedded form of a measure value: floor(value * 10000 + 0.5), i.e. 4 decimals, halves up."""
    if value is None or not math.isfinite(float(value)):
        raise ValueError(f"cannot embed the measure value {value!r}: not a finite number")
    return int(math.floor(float(value) * SCALE + 0.5))


def format_value(q: int | None) -> str:
    """Text shown for an embedded value (the JS does the same: (q / 10000).toFixed(4))."""
    return "\u2014" if q is None else f"{q / SCALE:.4f}"


@lru_cache(maxsize=None)
def asset(name: str, package: str = "searchgrade.report") -> str:
    """Text of the file ``name`` shipped in ``<package>/assets/`` (package data, see pyproject.toml)."""
    return resources.files(package).joinpath("assets", name).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- mode and output


def _live_frontend() -> bool:
    """True inside a kernel started by a Jupyter server session (JupyterLab, Notebook 7) or Colab."""
    return "JPY_SESSION_NAME" in os.environ or "google.colab" in sys.modules


def resolve_mode(mode: str = "auto") -> str:
    """'html' or 'ipywidgets'. auto: $SEARCHGRADE_WIDGET_MODE if set, else ipywidgets in a live Jupyter
    session (a kernel with JPY_SESSION_NAME, or Colab) when ipywidgets imports, else html (book builds)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if mode != "auto":
        return mode
    forced = os.environ.get(MODE_ENV, "").strip()
    if forced:
        if forced not in ("html", "ipywidgets"):
            raise ValueError(f"${MODE_ENV} must be 'html' or 'ipywidgets', not {forced!r}")
        return forced
    if _live_frontend():
        try:
            import ipywidgets  # noqa: F401
        except ImportError:
            return "html"
        return "ipywidgets"
    return "html"


def widget_id(kind: str, payload: str) -> str:
    """Element id prefix unique within a page: content hash plus a per-kernel counter (deterministic)."""
    digest = hashlib.sha1(payload.encode("utf-8")).hexdigest()[:8]
    return f"sg-{kind}-{digest}-{next(_counter)}"


def json_for_script(data) -> str:
    """JSON safe inside <script type="application/json">: no '<', '>' or '&' that could end the tag."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def widget_html(uid: str, body: str, data, script: str, js_function: str, kind: str, classes: str = "",
                lang: str = "ko") -> str:
    """One kernel-free widget: scoped CSS, the markup `body` (then the print-only note and a live region
    for screen readers), `data` embedded as JSON and `script` (its text), whose `js_function` wires this
    instance only. `uid` comes from :func:`widget_id`; `kind` names the widget (``data-sg-widget``)."""
    return (
        f'<div class="sg-widget {classes} tex2jax_ignore mathjax_ignore" id="{uid}" data-sg-widget="{kind}">'
        f"<style>{asset('widgets.css')}</style>"
        f"{body}{_print_note(lang)}"
        f'<p class="sg-live sg-sr-only" role="status" aria-live="polite" aria-atomic="true"></p>'
        f'<script type="application/json" id="{uid}-data">{json_for_script(data)}</script>'
        f"<script>(function () {{\n{script}\n"
        f'var root = document.getElementById("{uid}");\n'
        f'{js_function}(root, JSON.parse(document.getElementById("{uid}-data").textContent));\n'
        f"}})();</script>"
        "</div>"
    )


def _print_note(lang: str = "ko") -> str:
    """A line shown only in print (the PDF edition): the widget is static there; the HTML edition is live.

    The PDF build writes the page of the HTML edition into its ``.sg-edition`` span."""
    return (f'<p class="sg-print-note">{esc(VIEWER_PAGE[lang]["print"])}<span class="sg-edition"></span></p>')


def display_html(text: str):
    """IPython HTML object (myst-nb renders its text/html output into the page)."""
    from IPython.display import HTML

    return HTML(text)


def check_int(name: str, value, low: int, high: int) -> int:
    """An int in [low, high], or a ValueError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer in {low}..{high}, not {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")
    return int(value)
