"""searchgrade.report.sections: the page's work grows with the number of runs, not its square (issue 41 D8).

Counted in operations, not seconds: the pairs the rank flips look at, the paired tests, and every call
into searchgrade while a page is built.
"""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

from searchgrade import stats
from searchgrade.collections import Collection
from searchgrade.report import analyses, build_report
from searchgrade.report.data import ALL_PAIRS

MEASURES = ["P@5", "nDCG@10", "RR@10"]
FLIPS, TEST = analyses.rank_flips, stats.permutation_test   # the originals, wrapped afresh for each page


def _page(n_runs: int, monkeypatch) -> dict:
    """Build a page of n_runs small random runs; what it did, counted."""
    rng = np.random.default_rng(n_runs)
    qids = [f"q{i}" for i in range(12)]
    qrels = {q: {f"d{j}": int(rng.integers(0, 3)) for j in range(8)} for q in qids}
    runs = {f"r{k:02d}": {q: {f"d{j}": float(rng.random()) for j in range(10)} for q in qids} for k in range(n_runs)}
    coll = Collection("toy", {f"d{j}": {"title": f"t{j}", "text": "x"} for j in range(10)},
                      {q: q for q in qids}, qrels, {})
    counts = {"pairs": [], "tests": 0, "calls": 0}

    def counting_flips(*args, pairs=None, **kwargs):
        counts["pairs"].append(len(pairs))
        return FLIPS(*args, pairs=pairs, **kwargs)

    def counting_test(*args, **kwargs):
        counts["tests"] += 1
        return TEST(*args, **kwargs)

    def profile(frame, event, arg):
        if event == "call" and str(frame.f_globals.get("__name__", "")).startswith("searchgrade"):
            counts["calls"] += 1

    monkeypatch.setattr(analyses, "rank_flips", counting_flips)
    monkeypatch.setattr(stats, "permutation_test", counting_test)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.setprofile(profile)
        try:
            text = build_report(coll, runs, measures=MEASURES, n_perm=20, font=False, lang="en")
        finally:
            sys.setprofile(None)
    counts["text"] = text
    return counts


def test_the_rank_flips_look_at_every_pair_of_a_few_runs():
    assert ALL_PAIRS >= 10        # the book's line-up of ten runs keeps every pair


def test_past_the_limit_the_page_grows_linearly_with_the_runs(monkeypatch):
    small, large = (_page(n, monkeypatch) for n in (ALL_PAIRS + 1, 2 * ALL_PAIRS + 2))
    assert small["pairs"] == [ALL_PAIRS] and large["pairs"] == [2 * ALL_PAIRS + 1]   # each run with the baseline
    m = len(MEASURES)
    for n, c in ((ALL_PAIRS + 1, small), (2 * ALL_PAIRS + 2, large)):
        assert c["tests"] <= (n - 1) * m + 2 * (n - 1) * m * (m - 1) // 2   # main table + both sides of each flip
        assert "only the pairs of the baseline" in c["text"]
    # twice the runs, about twice the work (all pairs would be four times: 325 pairs against 78)
    assert large["calls"] < 2.4 * small["calls"]
