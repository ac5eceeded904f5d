"""Paired tests of chosen retriever pairs, and which rank flips between two measures survive them (chapter 5).

Both functions live in :mod:`searchgrade.report.analyses` (``searchgrade report`` runs them too) and
are re-exported here for the chapters.

A difference between two means, or a flip in the order of two retrievers
between two measures (:func:`searchgrade.book.diagnostics.rank_flips`), is only
worth reporting when the paired test says it is not chance. Both functions
here use the paired permutation test of :mod:`searchgrade.stats` on per-query
scores (``{retriever: evaluate() DataFrame}``) and Holm's correction over
every test they run, so the family is exactly the set of comparisons asked for:

- :func:`compare_pairs`: chosen pairs x chosen measures, one row per test;
- :func:`check_flips`: both differences of every flip; a flip is ``real``
  when both are significant after the correction.
"""
from __future__ import annotations

from ..report.analyses import check_flips, compare_pairs  # noqa: F401  (re-exported for the chapters)

__all__ = ["compare_pairs", "check_flips"]
