"""What the book needs beyond the library: its line-up of runs, chapter tables, widgets, plots, Sphinx hook.

========================  ==================================================================
module                    what it holds
========================  ==================================================================
:mod:`.runs`              the book's line-up (``lineups/book.toml``) and its cached runs
:mod:`.report`            ``searchgrade report``: chapter 5's analyses of a folder of runs as one HTML page
:mod:`.report_html`       the report's HTML pieces (tables, inline SVG histograms)
:mod:`.lineup`            chapter 5's tables and diagnostics over a line-up of runs
:mod:`.overlap`           question-paragraph token overlap, and BM25 vs dense per overlap bucket
:mod:`.paired`            paired tests of chosen pairs, and which rank flips the test supports
:mod:`.widgets`           the three kernel-free widgets (scoring lab, rank slider, viewer)
:mod:`.plotting`          the one plot style (NanumGothic, Okabe-Ito palette)
:mod:`.tables`            the one table style (:func:`show`: caption above, rounded, headers on one line)
:mod:`.sphinxext`         the Sphinx hook (notebook download, launch link, web font)
:mod:`.webfont`           the Korean web font (NanumGothic as woff2, @font-face), written at build time
:mod:`.pdf`               the PDF edition (a single-page build printed by Chromium)
========================  ==================================================================

This package itself holds small notebook helpers (:func:`glue`, :func:`plain`,
:func:`single_relevant_ranking`, and :func:`show` from :mod:`.tables`). Its modules need the ``book`` extra.
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
