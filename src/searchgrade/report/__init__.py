"""``searchgrade report``: one self-contained HTML page comparing runs (a folder of them, or plain run files).

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
:mod:`.webfont`    the Korean web font embedded in the page
=================  ==========================================================================

This package imports neither :mod:`searchgrade.book`, :mod:`searchgrade.retrieval` nor matplotlib (it
reads runs and their records as files, :mod:`searchgrade.io.runfolder`); the book imports it
(``searchgrade.book.diagnostics`` re-exports the analyses, ``book.widgets`` is built on the viewer's
public widget plumbing), never the reverse.
"""
from __future__ import annotations

from .page import MEASURES, PRIMARY, build_report, write_report

__all__ = ["MEASURES", "PRIMARY", "build_report", "write_report"]
