"""``searchgrade report``: one self-contained HTML page comparing runs (a folder of them, or plain run files).

To add a section, write ``f(d: Data) -> str`` (HTML; "" leaves it out) in :mod:`.sections`, its words in both
tables of :mod:`.text`, and put it in ``sections.SECTIONS`` where it goes in the page.

=================  ==========================================================================
module             what it holds
=================  ==========================================================================
:mod:`.page`       :func:`build_report`, :func:`write_report` (a folder of ``searchgrade runs``); the
                   command line ``searchgrade report`` is :mod:`searchgrade.cli.report`
:mod:`.files`      plain run files: their names, skipped queries, the optional collection
:mod:`.text`       the page's words in Korean (default) and English
:mod:`.data`       the options checked and every run scored once: what the sections read
:mod:`.sections`   the page's sections (collection, line-up, main table, ceiling, flips, ...)
:mod:`.html`       the HTML building blocks: page shell and CSS, tables, notes, inline SVG bars
:mod:`.analyses`   the line-up tables it reports (main table, ceilings, flips, paired tests)
:mod:`.viewer`     the per-query viewer it embeds (chapter 5 shows the same one)
:mod:`.widget`     the plumbing of every kernel-free widget (the viewer, the book's) and the one
                   loader of the files in ``assets/``
:mod:`.webfont`    the Korean web font embedded in the page
=================  ==========================================================================

This package imports neither :mod:`searchgrade.book`, :mod:`searchgrade.retrieval` nor matplotlib (it
reads runs and their records as files, :mod:`searchgrade.io.runfolder`); the book imports it
(``searchgrade.book.diagnostics`` re-exports the analyses, ``book.widgets`` is built on :mod:`.widget`),
never the reverse.
"""
from __future__ import annotations

from .data import MEASURES, PRIMARY
from .page import build_report, write_report

__all__ = ["MEASURES", "PRIMARY", "build_report", "write_report"]
