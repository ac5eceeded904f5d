"""Work done a block at a time for peak memory gives what one block gives: the ranking's padded sorts and
tie groups (searchgrade.measures.ranking) and the trec_eval printer's byte matrices."""
import importlib

import numpy as np
import pytest

import searchgrade as sg
from searchgrade.trec_eval import run_trec_eval

ranking = importlib.import_module("searchgrade.measures.ranking")
printer = importlib.import_module("searchgrade.cli.trec_eval.printer")


def _files(tmp_path, seed: int) -> tuple:
    """Qrels and a run with many tied scores, rows of very different lengths, docids of mixed widths."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(40):
        n = int(rng.choice([1, 3, 17, 64, 300]))
        docs = rng.choice(2000, size=n, replace=False)
        scores = rng.integers(0, 6, size=n) / 2  # few distinct scores: long tie groups
        run += [f"q{q} Q0 D{d} {i} {s} r\n" for i, (d, s) in enumerate(zip(docs.tolist(), scores.tolist()), 1)]
        qrels += [f"q{q} 0 D{d} {int(g)}\n" for d, g in zip(docs[::3].tolist(), rng.integers(0, 4, size=n)[::3])]
    (tmp_path / "qrels").write_text("".join(qrels))
    (tmp_path / "run").write_text("".join(run))
    return str(tmp_path / "qrels"), str(tmp_path / "run")


@pytest.mark.parametrize("seed", [1, 2])
def test_ranking_in_small_blocks_is_the_same(tmp_path, monkeypatch, seed):
    qrels, run = _files(tmp_path, seed)
    ev = sg.Evaluator(qrels, ["P@5"])
    _, whole = ev.rank(run, exact=True)
    monkeypatch.setattr(ranking, "_SORT_CELLS", 8)  # a padded matrix and a sort of tie groups of a few cells
    _, small = ev.rank(run, exact=True)
    assert small.docids() == whole.docids()
    for name in ("seg", "rank", "grade", "judged", "nonpool"):
        assert np.array_equal(getattr(small, name), getattr(whole, name)), name


def test_trec_eval_output_in_small_blocks_is_the_same(tmp_path, monkeypatch):
    qrels, run = _files(tmp_path, 3)
    whole = run_trec_eval(qrels, run, ["all_trec"], query=True)
    monkeypatch.setattr(ranking, "_SORT_CELLS", 8)
    monkeypatch.setattr(printer, "_BLOCK_BYTES", 1)  # one query per printed block
    assert run_trec_eval(qrels, run, ["all_trec"], query=True) == whole
