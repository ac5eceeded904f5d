"""searchgrade.fusion.tuning: what optimize_fusion prints, and its ties (the search itself: tests/fusion/test_api.py)."""
from __future__ import annotations

import numpy as np
import pytest

import searchgrade as sg


def _case(n_runs: int = 3):
    rng = np.random.default_rng(5)
    qids = [f"q{i}" for i in range(30)]
    qrels = {q: {f"d{j}": int(rng.integers(0, 2)) for j in range(10)} for q in qids}
    runs = [{q: {f"d{j}": float(rng.random()) for j in range(10)} for q in qids} for _ in range(n_runs)]
    return qrels, runs


def test_printing_a_tuning_is_one_short_line_with_the_details_on_attributes():
    qrels, runs = _case()
    tuned = sg.optimize_fusion(qrels, runs, "wsum", "min-max", "nDCG@5", folds=3)
    text = repr(tuned)
    assert "\n" not in text and len(text) < 200 and str(tuned) == text
    assert text.startswith("FusionTuning(wsum, norm=min-max, nDCG@5: weights=")
    assert f"score={tuned.score:.4f} on 30 queries, held_out={tuned.held_out:.4f} (3 folds); 62 trials)" in text
    # 62 of the 66 weight triples that add up to 1 in tenths also do so in floats, as ranx adds them
    assert len(tuned.trials) == 62 and len(tuned.folds) == 3 and len(tuned.table()) == 4


def test_tuning_takes_ties():
    qrels, runs = _case(2)
    tied = [{q: {d: round(s, 1) for d, s in docs.items()} for q, docs in run.items()} for run in runs]
    trec = sg.optimize_fusion(qrels, tied, "rrf", None, "AP")
    listed = sg.optimize_fusion(qrels, tied, "rrf", None, "AP", ties="input")
    by_input = sg.fuse(tied, "rrf", None, listed.params, ties="input")
    assert listed.score == pytest.approx(float(sg.mean(qrels, by_input, ["AP"]).iloc[0]), rel=1e-12)
    assert [s for _, s in trec.trials] != [s for _, s in listed.trials]
