"""Streaming evaluation (searchgrade.measures.stream): rankings pushed a query at a time (Evaluator.stream())
and run files read a part at a time give what evaluate and mean give on the whole run, bit for bit."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import searchgrade as sg
from searchgrade.io import stream as io_stream
from searchgrade.io import write_run
from searchgrade.measures import stream
from searchgrade.measures.stream import Held
from tests.support.examples import examples

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@20", "GMAP", "NumRel", "NumRet", "Rprec", "bpref", "ERR@10",
            "RBP(p=0.8)", "infAP", "success@3", "judged@10"]


@st.composite
def cases(draw):
    """(qrels, run, options): ties (scores on a grid of 4), grades -1 to 3, qrels queries the run lacks,
    run queries the qrels lack, empty rankings, ids whose text order is not their number's."""
    qids = [f"{q}" if q % 2 else f"q{q}" for q in range(draw(st.integers(1, 12)))]
    docs = [f"d{d}" for d in range(draw(st.integers(1, 15)))]
    grade = st.integers(-1, 3)
    qrels = {q: draw(st.dictionaries(st.sampled_from(docs), grade, min_size=1, max_size=8))
             for q in qids if draw(st.integers(0, 4))}
    if not qrels:
        qrels = {qids[0]: {docs[0]: 1}}
    score = st.integers(0, 3).map(lambda s: s / 4)
    run = {q: draw(st.dictionaries(st.sampled_from(docs), score, max_size=12))
           for q in qids + ["extra"] if draw(st.integers(0, 3))}
    options = draw(st.fixed_dictionaries({"missing": st.sampled_from(["ignore", "zero"]),
                                          "ties": st.sampled_from(["trec", "input"]),
                                          "judged_only": st.booleans(),
                                          "max_docs": st.sampled_from([None, 3]),
                                          "rel_level": st.sampled_from([1, 2])}))
    return qrels, run, options


def quietly(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def same_series(a: pd.Series, b: pd.Series) -> None:
    """Equal summaries: the same index, and each value the same number (NaN where NaN), of the same type."""
    assert list(a.index) == list(b.index)
    for x, y in zip(a.tolist(), b.tolist()):
        assert type(x) is type(y) and (x == y or (math.isnan(x) and math.isnan(y))), (x, y)


@settings(max_examples=examples(200), deadline=None)
@given(case=cases(), batch=st.sampled_from([(1, 1 << 17), (3, 1 << 17), (2048, 4), (2048, 1 << 17)]),
       held=st.sampled_from([0, 1 << 25]))
def test_pushed_rankings_give_evaluate_and_mean(case, batch, held):
    qrels, run, options = case
    if not run:
        run = {"extra": {}}
    ev = sg.Evaluator(qrels, MEASURES, **options)
    want = quietly(lambda: ev.evaluate(run))
    want_mean = quietly(lambda: sg.mean(qrels, run, MEASURES, **options))
    stream.HELD_BYTES, old = held, stream.HELD_BYTES
    try:
        s = ev.stream(batch_queries=batch[0], batch_docs=batch[1])
        with warnings.catch_warnings():  # a kernel's warnings come once a batch (ERR's grade scale)
            warnings.simplefilter("ignore")
            for q, ranking in run.items():
                s.add(q, ranking)
            got = s.finish()
    finally:
        stream.HELD_BYTES = old
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert [got[c].dtype for c in got] == [want[c].dtype for c in want]
    same_series(quietly(s.mean), want_mean)


def test_the_stream_warns_as_evaluate_warns():
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    ev = sg.Evaluator(qrels, ["AP"])
    s = ev.stream()
    s.add("1", {"a": 1.0})
    s.add("9", {"a": 1.0})
    with pytest.warns(UserWarning) as caught:
        s.finish()
    said = " ".join(str(w.message) for w in caught)
    assert "1 run query has no qrels" in said and "1 qrels query is not in the run" in said


def test_a_ranking_as_a_list_of_documents_best_first():
    qrels = {"1": {"a": 1, "c": 2}}
    ev = sg.Evaluator(qrels, ["nDCG@3", "P@1"])
    s = ev.stream()
    s.add("1", ["c", "b", "a"])
    pd.testing.assert_frame_equal(s.finish(), ev.evaluate({"1": {"c": 3.0, "b": 2.0, "a": 1.0}}))


@pytest.mark.parametrize("call, error", [
    (lambda s: (s.add("1", {"a": 1.0}), s.add("1", {"b": 1.0})), "query '1' was added before"),
    (lambda s: s.add("1", ["a", "b", "a"]), "document 'a' is twice in the ranking"),
    (lambda s: s.add("1", "ab"), "a ranking is {docid: score} or a list of docids"),
    (lambda s: (s.finish(), s.add("2", {})), "this stream is finished"),
    (lambda s: s.add("1", {"a": float("nan")}) or s.finish(), "score nan is not a finite number"),
])
def test_bad_pushes_are_refused(call, error):
    s = sg.Evaluator({"1": {"a": 1}, "2": {"a": 1}}, ["AP"]).stream(batch_queries=1)
    with pytest.raises((ValueError, TypeError), match=error.replace("{", r"\{").replace("}", r"\}")):
        quietly(lambda: call(s))


def test_held_values_come_back_exactly_from_memory_and_from_the_file():
    rng = np.random.default_rng(0)
    names = ["f", "i"]
    for limit in (0, 100, 1 << 25):
        held = Held(names, limit)
        want_f, want_i, rows = [], [], []
        for b in range(5):
            n = int(rng.integers(0, 7))
            f, i = rng.standard_normal(n), rng.integers(-5, 2**62, n)
            f[:1] = -0.0
            block_rows = [f"q{b}-{k}" for k in range(n)]
            held.add(block_rows, {"f": f, "i": i}, [f"s{r}" for r in block_rows])
            want_f.append(f), want_i.append(i), rows.extend(block_rows)
        order = rng.permutation(len(rows)).tolist()
        values, strings = held.take([rows[k] for k in order])
        assert values["f"].dtype == np.float64 and values["i"].dtype == np.int64
        assert np.concatenate(want_f)[order].view(np.int64).tolist() == values["f"].view(np.int64).tolist()
        assert np.concatenate(want_i)[order].tolist() == values["i"].tolist()
        assert strings == [f"s{rows[k]}" for k in order]
        held.close()


# ----------------------------------------------------------------------------------------- run files
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases(), shuffle=st.booleans(), unit=st.sampled_from([1, 40, None]))
def test_a_run_file_read_a_part_at_a_time_gives_what_its_dict_gives(tmp_path_factory, monkeypatch, case, shuffle,
                                                                    unit):
    qrels, run, options = case
    run = {q: docs for q, docs in run.items() if docs}
    if not run:
        return
    path = tmp_path_factory.mktemp("run") / "run"
    write_run(run, path)
    if shuffle:
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(lines[i] for i in np.random.default_rng(len(lines)).permutation(len(lines))))
    monkeypatch.setattr(io_stream, "UNIT_BYTES", unit or io_stream.UNIT_BYTES)
    monkeypatch.setattr(io_stream, "SPILL_BYTES", 64)
    monkeypatch.setattr(stream, "HELD_BYTES", 0)
    ev = sg.Evaluator(qrels, MEASURES, **options)
    read = {q: {d: float(s) for d, s in docs.items()} for q, docs in sg.read_run(path, warn=False).items()}
    want = quietly(lambda: ev.scores(read, summary=True, relstring=4))
    got = quietly(lambda: ev.scores(str(path), summary=True, relstring=4))
    assert got.rows == want.rows and got.relstrings == want.relstrings
    assert got.positive_judgments == want.positive_judgments
    for name, x in want.values.items():
        assert got.values[name].dtype == x.dtype and got.values[name].tobytes() == x.tobytes(), name
    for name, value in want.summaries.items():
        other = got.summaries[name]
        assert type(other) is type(value) and (other == value or (math.isnan(other) and math.isnan(value)))
    assert got.report.records == sum(map(len, run.values())) and got.report.queries == len(run)
