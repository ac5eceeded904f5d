"""What the book needs beyond the library: its line-up of runs, chapter analyses, widgets, plots, Sphinx hook.

========================  ==================================================================
module                    what it holds
========================  ==================================================================
:mod:`.korean_runs`       the book's line-up (``lineups/book.toml``) and its cached runs
:mod:`.diagnostics`       chapter 5's line-up tables (re-exported from :mod:`searchgrade.report.analyses`),
                          ties, context-dependent questions, the pytrec_eval cross-check
:mod:`.overlap`           question-paragraph token overlap, and BM25 vs dense per overlap bucket
:mod:`.rechunk`           chapter 8's rechunking of MIRACL-ko and its cached BM25 rankings over chunks
:mod:`.variants`          chapter 8's seeded query variants (typos, keyword queries) for repeated runs
:mod:`.widgets`           the scoring lab and the rank slider (kernel-free widgets; chapter 5's
                          per-query viewer is :mod:`searchgrade.report.viewer`)
:mod:`.plotting`          the one plot style (NanumGothic, Okabe-Ito palette)
:mod:`.pairmaps`          chapter 6's map of pairwise mean differences (coloured where the test separates)
:mod:`.tables`            the one table style (:func:`show`: caption above, rounded, headers on one line)
:mod:`.sphinxext`         the Sphinx hook (notebook download, launch link, web font)
:mod:`.webfont`           the Korean web font (NanumGothic as woff2, @font-face), written at build time
:mod:`.pdf`               the PDF edition (a single-page build printed by Chromium; its print CSS
                          and page scripts are files of ``assets/``)
========================  ==================================================================

This package itself holds small notebook helpers (:func:`glue`, :func:`plain`,
:func:`single_relevant_ranking`, and :func:`show` from :mod:`.tables`). Its modules need the ``book`` extra.
The paired tests of chosen pairs and of rank flips are :mod:`searchgrade.report.analyses`'s, and
``searchgrade report`` is :mod:`searchgrade.report`; the chapters import them from there.

To add a chapter helper, put it in the module of what it holds (or a new module named for it, listed
above) and call it from the chapter; the searchgrade package itself never imports the book. To add a
widget, write a function in :mod:`.widgets` that builds its markup and embeds precomputed values with
:func:`searchgrade.report.widget.widget_html` (its script goes in ``assets/``), with an ipywidgets
view for a live kernel.
"""
from __future__ import annotations

import numpy as np

from .tables import Table, show  # noqa: F401  (the book's table style)


def plain(value):
    """Convert numpy scalars (and 0-d arrays) to plain Python numbers; other values pass through."""
    if isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0:
        return value.item()
    return value


def glue(name: str, value, display: bool = False):
    """myst_nb.glue with numpy scalars made plain, so `{glue:text}` specs such as `:.3f` work."""
    from myst_nb import glue as _glue

    value = plain(value)
    _glue(name, value, display=display)
    return value


def single_relevant_ranking(rank: int, n: int = 20, grade: int = 1) -> tuple[list[str], dict[str, int]]:
    """n documents d01..dn whose only judged one (with `grade`) sits at `rank` (1-based)."""
    if not 1 <= rank <= n:
        raise ValueError(f"rank must be in 1..{n}, got {rank}")
    docs = [f"d{i:0{len(str(n))}d}" for i in range(1, n + 1)]
    return docs, {docs[rank - 1]: grade}
