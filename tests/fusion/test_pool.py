"""searchgrade.fusion.pool: how runs are named in messages, where the warning points, ids, the input tie order."""
from __future__ import annotations

import inspect
import warnings

import pytest

import searchgrade as sg

A = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"a": 0.3}}
B = {"q1": {"b": 1.0, "c": 0.1}}


def test_the_missing_queries_warning_names_runs_as_given_and_points_at_the_callers_line(tmp_path):
    path = tmp_path / "bm25.run"
    path.write_text("q1 Q0 a 1 1.0 bm25\nq1 Q0 b 2 0.5 bm25\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        here = inspect.currentframe().f_lineno
        sg.fuse([A, str(path)], "rrf", None)
    (w,) = caught
    assert f"run {str(path)!r} lacks 1 ('q2')" in str(w.message)
    assert w.filename == __file__ and w.lineno == here + 1
    with pytest.warns(UserWarning, match=r"run 2 lacks 1 \('q2'\)"):
        sg.fuse([A, B], "rrf", None)       # dicts are counted from 1
    with pytest.warns(UserWarning, match=r"run 'dense' lacks 1 \('q2'\)"):
        sg.fuse({"bm25": A, "dense": B}, "rrf", None)
    with pytest.warns(UserWarning) as tuned:
        sg.optimize_fusion({"q1": {"a": 1}, "q2": {"a": 1}}, [A, B], "rrf", None, max_k=20)
    assert any(t.filename == __file__ for t in tuned)


def test_document_ids_of_two_types_are_one_line_naming_the_run():
    with pytest.raises(TypeError, match=r"fusion: document ids of different types cannot be ordered: run 2, query "
                                        r"'q1' has 2 \(int\) where another is 'a' \(str\); use one type"):
        sg.fuse([A, {"q1": {"a": 1.0, 2: 0.5}}], "rrf", None)
    assert sg.fuse([{"q1": {1: 1.0, 2.5: 0.5}}], "rrf", None, {"k": 0}) == {"q1": {1: 1.0, 2.5: 0.5}}


def test_ties_input_ranks_tied_documents_in_the_runs_order():
    run = {"q": {"d1": 1.0, "d3": 1.0, "d2": 1.0, "d0": 2.0}}
    assert sg.fuse([run], "rrf", None, {"k": 0}, ties="input")["q"] == {"d0": 1.0, "d1": 0.5, "d3": 1 / 3,
                                                                         "d2": 0.25}
    assert sg.fuse([run], "rrf", None, {"k": 0})["q"] == {"d0": 1.0, "d3": 0.5, "d2": 1 / 3, "d1": 0.25}
    # after a normalisation that reverses the order, ties are still broken by the run's order
    inverted = sg.fuse([run], "rrf", "min-max-inverted", {"k": 0}, ties="input")["q"]
    assert inverted == {"d1": 1.0, "d3": 0.5, "d2": 1 / 3, "d0": 0.25}
    assert sg.fusion.normalize(run, "rank", ties="input")["q"] == {"d0": 1.0, "d1": 0.75, "d3": 0.5, "d2": 0.25}
