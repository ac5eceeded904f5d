"""``searchgrade report``: one self-contained HTML page comparing runs (a folder of them, or plain run files).

=================  ==========================================================================
module             what it holds
=================  ==========================================================================
:mod:`.page`       :func:`build_report`, :func:`write_report` (a folder of ``searchgrade runs``)
:mod:`.command`    the command ``searchgrade report``: a run folder, or plain TREC run files of any system
:mod:`.files`      plain run files: their names, skipped queries, the optional collection
:mod:`.text`       the page's words in Korean (default) and English
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

from .command import main
from .page import MEASURES, PRIMARY, build_report, write_report

__all__ = ["MEASURES", "PRIMARY", "build_report", "write_report", "main"]
