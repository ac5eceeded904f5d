"""``searchgrade report``: one self-contained HTML page comparing a folder of runs.

=================  ==========================================================================
module             what it holds
=================  ==========================================================================
:mod:`.page`       :func:`build_report`, :func:`write_report` and the command ``searchgrade report``
:mod:`.data`       the options checked and every run scored once: what the sections read
:mod:`.sections`   the page's sections (collection, line-up, main table, ceiling, flips, ...)
:mod:`.html`       the HTML building blocks: page shell and CSS, tables, notes, inline SVG bars
:mod:`.analyses`   the line-up tables it reports (main table, ceilings, flips, paired tests)
:mod:`.viewer`     the per-query viewer it embeds (chapter 5 shows the same one)
:mod:`.webfont`    the Korean web font embedded in the page
=================  ==========================================================================

This package imports neither :mod:`searchgrade.book` nor matplotlib: the book imports it
(``searchgrade.book.diagnostics``, ``book.paired``, ``book.widgets`` and ``book.report`` re-export
from here), never the reverse.
"""
from __future__ import annotations

from .page import MEASURES, PRIMARY, build_report, main, write_report

__all__ = ["MEASURES", "PRIMARY", "build_report", "write_report", "main"]
