"""The one ranking path (searchgrade.measures.ranking) and the query order it starts from."""
import warnings

import numpy as np
import pytest

import searchgrade as sg
from searchgrade.measures.qrels import natural_key, natural_sorted


@pytest.mark.parametrize("ids", [
    ["q1", "q01", "q2"],  # one number written two ways: the id decides
    ["a1", "b\n2", "c3"],  # a line break inside an id
    ["1\n2", "x"],  # a line break that would make two ids of one
    ["\u0661\u0662", "3", "q\u0661"],  # digits that are not ASCII
    ["x99999999999999999999999", "x1"],  # a number beyond 64 bits
    ["q10", "q9", "p100", "q9a"],
    [],
])
def test_natural_sorted_equals_natural_key_on_odd_ids(ids):
    assert natural_sorted(ids) == sorted(ids, key=natural_key)


def test_trec_ties_of_equal_texts_keep_input_order():
    """Ids of two types with one text (1 and '1') tie in strcmp order; they keep the run's order."""
    qrels = {"q": {"1": 1, 2: 0}}
    run = {"q": {1: 0.5, "1": 0.5, "0": 0.5, 2: 0.5}}
    ev = sg.Evaluator(qrels, ["P@4"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, ctx = ev.rank(run)
    assert ctx.docids() == [2, 1, "1", "0"]


def test_file_ranking_equals_trec_order_of_io(tmp_path):
    """A run file ranked from its columns lists each query's documents as io.trec_order does (score
    descending, docid descending in strcmp order), lines of the queries interleaved or not."""
    rng = np.random.default_rng(3)
    lines, run = [], {}
    for q in ("q2", "q10", "q1"):
        docs = {f"d{d}": float(rng.integers(0, 4)) for d in rng.choice(40, 15, replace=False)}
        run[q] = docs
        lines += [(q, d, s) for d, s in docs.items()]
    rng.shuffle(lines)  # queries interleaved: the ranking groups them
    path = tmp_path / "run"
    path.write_text("".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, d, s in lines))
    qrels = {q: {next(iter(docs)): 1} for q, docs in run.items()}
    rows, ctx = sg.Evaluator(qrels, ["P@5"]).rank(path, exact=True)
    got = ctx.docids()
    want = [d for q in rows for d in sg.io.trec_order(run[q])]
    assert rows == ["q1", "q2", "q10"] and got == want


@pytest.mark.parametrize("n_judged", [30, 20000])  # a table of (row, document) pairs, or a binary search
def test_file_grades_join_equals_dict_lookup(tmp_path, n_judged):
    """A run file's grades come from one join with the qrels' columns; dict runs look each document up in
    its query's dict.  Both give the same contexts, whichever way the join goes."""
    rng = np.random.default_rng(n_judged)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(-1, 4)) for d in rng.choice(2 * n_judged, n_judged, replace=False)}
             for q in range(6)}
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 5)) for d in rng.choice(2 * n_judged, 25, replace=False)}
           for q in range(6)}
    with open(tmp_path / "run", "w") as fh:
        fh.writelines(f"{q} Q0 {d} 0 {s!r} r\n" for q in reversed(list(run)) for d, s in run[q].items())
    sg.write_qrels(qrels, tmp_path / "qrels")
    for qrels_input in (qrels, tmp_path / "qrels"):
        ev = sg.Evaluator(qrels_input, ["P@5"])
        _, from_file = ev.rank(tmp_path / "run", exact=True)
        _, from_dicts = ev.rank(run, exact=True)
        for field in ("seg", "rank", "grade", "judged", "nonpool", "nret"):
            assert np.array_equal(getattr(from_file, field), getattr(from_dicts, field)), field
