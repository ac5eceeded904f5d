"""Grades that do not fit, large grades computed exactly, query ids that do not match, and input forms."""
import gzip
import io
import math
import sys
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import searchgrade as sg
from searchgrade import io as sgio


# --------------------------------------------------------------------- grades
@pytest.mark.parametrize("grade", [10**20, -(2**63) - 1, 2**63, 1e20])
def test_a_grade_that_does_not_fit_names_query_and_document(grade):
    qrels = {"q1": {"a": 1}, "q2": {"b": 0, "c": grade}}
    with pytest.raises(ValueError, match=r"qrels query 'q2' document 'c': grade .* does not fit"):
        sg.Evaluator(qrels, ["AP"])


def test_the_largest_grades_that_fit_are_accepted():
    df = sg.evaluate({"q": {"a": 2**63 - 1, "b": -(2**63) + 1}}, {"q": {"a": 1.0, "b": 0.5}}, ["AP", "NumRel"])
    assert df.loc["q"].tolist() == [1.0, 1]
    df = sg.evaluate({"q": {"a": 2**63 - 1, "b": -(2**63)}}, {"q": {"a": 1.0, "b": 0.5}}, ["AP", "NumRel"])
    assert df.loc["q"].tolist() == [1.0, 1]  # -2**63 is a negative grade like any other (issue 34, N8)


def _exact_err(grades, gmax, k=None):
    """ERR in exact rational arithmetic: sum_i (1/i) R_i prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^gmax."""
    keep, total = Fraction(1), Fraction(0)
    for i, g in enumerate(grades[:k], 1):
        r = Fraction(2 ** min(g, gmax) - 1, 2**gmax)
        total += keep * r / i
        keep *= 1 - r
    return total


def _exact_ndcg(grades, judged, k):
    """nDCG with gain 2^g - 1, as exactly as logarithms allow: each 2^g - 1 is an exact integer."""
    def dcg(gs):
        return sum(Fraction(2**g - 1) * Fraction(1 / math.log2(i + 1)) for i, g in enumerate(gs[:k], 1))
    return dcg(grades) / dcg(sorted(judged, reverse=True))


@pytest.mark.parametrize("top", [4, 53, 60, 1023, 1024, 1100, 5000])
def test_err_and_exp_gain_ndcg_stay_finite_and_exact_for_large_grades(top):
    judged = {"a": top - 1, "b": top, "c": 3, "d": 0, "e": 1, "f": top - 3}
    ranking = ["c", "a", "x", "b", "d", "f", "e"]
    grades = [judged.get(d, 0) for d in ranking]
    got = sg.score_ranking(ranking, judged, ["ERR@6", "ERR", "nDCG(gain=exp)@5", "nDCG(gain=exp)"])
    assert all(np.isfinite(v) for v in got.values()), got
    assert got["ERR@6"] == pytest.approx(float(_exact_err(grades, top, 6)), rel=1e-13, abs=1e-300)
    assert got["ERR"] == pytest.approx(float(_exact_err(grades, top)), rel=1e-13, abs=1e-300)
    assert got["nDCG(gain=exp)@5"] == pytest.approx(float(_exact_ndcg(grades, judged.values(), 5)), rel=1e-12)
    assert got["nDCG(gain=exp)"] == pytest.approx(float(_exact_ndcg(grades, judged.values(), None)), rel=1e-12)


def test_a_huge_grade_in_one_query_does_not_disturb_the_next():
    qrels = {"q1": {f"d{i}": 5000 for i in range(50)}, "q2": {"a": 2, "b": 1}}
    run = {"q1": {f"d{i}": float(50 - i) for i in range(50)}, "q2": {"b": 2.0, "a": 1.0}}
    both = sg.evaluate(qrels, run, ["ERR", "nDCG(gain=exp)@10"])
    alone = sg.evaluate({"q2": qrels["q2"]}, {"q2": run["q2"]}, ["ERR", "nDCG(gain=exp)@10"])
    assert both.loc["q2"].tolist() == alone.loc["q2"].tolist()
    assert both.loc["q2", "ERR"] == pytest.approx(float(_exact_err([1, 2], 2)), rel=1e-15)


def test_dcg_with_exp_gain_beyond_float_range_is_a_clear_error():
    assert sg.score_ranking(["a"], {"a": 1000}, ["DCG(gain=exp)"])["DCG(gain=exp)"] == pytest.approx(2.0**1000 - 1)
    with pytest.raises(ValueError, match=r"DCG\(gain=exp\).*grade 1100 does not fit in a float.*nDCG"):
        sg.score_ranking(["a"], {"a": 1100}, ["DCG(gain=exp)"])


# ------------------------------------------------------------------ query ids
def test_qrels_queries_missing_from_the_run_are_reported():
    qrels = {f"q{i}": {"a": 1} for i in range(1, 9)}
    run = {"q1": {"a": 1.0}}
    with pytest.warns(UserWarning, match=r"7 qrels queries are not in the run .*missing='zero'.*: "
                                         r"q2, q3, q4, q5, q6, \.\.\."):
        df = sg.evaluate(qrels, run, ["AP"])
    assert list(df.index) == ["q1"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scored, so nothing to report
        assert len(sg.evaluate(qrels, run, ["AP"], missing="zero")) == 8


def test_query_ids_of_different_types_are_named_in_the_warning():
    qrels = {1: {"a": 1}, 2: {"b": 1}}
    run = {"1": {"a": 1.0}, "2": {"b": 1.0}}
    with pytest.warns(UserWarning) as caught:
        df = sg.evaluate(qrels, run, ["AP"])
    text = " ".join(str(w.message) for w in caught)
    assert len(df) == 0
    assert "2 run queries have no qrels" in text and "2 qrels queries are not in the run" in text
    assert "differ from a qrels query id only in type: qrels 1 (int) vs run '1' (str)" in text
    assert "differ from a run query id only in type: qrels 1 (int) vs run '1' (str)" in text


def test_no_type_note_when_ids_simply_differ():
    with pytest.warns(UserWarning) as caught:
        sg.evaluate({"q1": {"a": 1}}, {"q2": {"a": 1.0}}, ["AP"])
    assert not any("type" in str(w.message) for w in caught)


# ----------------------------------------------------------------- input forms
needs_io = pytest.mark.skipif(not (hasattr(sgio, "as_qrels") and hasattr(sgio, "as_run")),
                              reason="waits for searchgrade.io.as_qrels / as_run (the io helper's work)")
MEASURES = ["AP", "nDCG@10", "P@5", "NumRet"]


@needs_io
def test_dataframes_give_the_same_values_as_dicts(trec_qrels, trec_run):
    qdf = pd.DataFrame([(q, d, g) for q, docs in trec_qrels.items() for d, g in docs.items()],
                       columns=["query_id", "doc_id", "relevance"])
    rdf = pd.DataFrame([(q, d, s) for q, docs in trec_run.items() for d, s in docs.items()],
                       columns=["query_id", "doc_id", "score"])
    expected = sg.evaluate(trec_qrels, trec_run, MEASURES)
    pd.testing.assert_frame_equal(sg.evaluate(qdf, rdf, MEASURES), expected)
    pd.testing.assert_series_equal(sg.mean(qdf, trec_run, MEASURES), sg.aggregate(expected))
    pd.testing.assert_frame_equal(sg.Evaluator(qdf, MEASURES).evaluate(rdf), expected)
    one = qdf[qdf.query_id == "301"]
    ranking = sorted(trec_run["301"], key=lambda d: (-trec_run["301"][d], d))
    assert sg.score_ranking(ranking, one, ["AP"]) == sg.score_ranking(ranking, trec_qrels["301"], ["AP"])


@needs_io
def test_gzip_paths_and_stdin_give_the_same_values(tmp_path, trec_dir, trec_qrels, trec_run, monkeypatch):
    expected = sg.evaluate(trec_qrels, trec_run, MEASURES)
    gz = tmp_path / "qrels.test.gz"
    gz.write_bytes(gzip.compress((trec_dir / "qrels.test").read_bytes()))
    pd.testing.assert_frame_equal(sg.evaluate(gz, trec_dir / "results.test", MEASURES), expected)
    pd.testing.assert_frame_equal(sg.evaluate(str(gz), str(trec_dir / "results.test"), MEASURES), expected)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((trec_dir / "results.test").read_bytes())))
    pd.testing.assert_frame_equal(sg.evaluate(trec_qrels, "-", MEASURES), expected)


def test_natural_order_fast_path_equals_natural_key():
    """QrelsIndex sorts ids of the form text + digits with a cheaper key: the same order as natural_key."""
    import random

    from searchgrade.measures.qrels import natural_key, natural_sorted

    rng = random.Random(7)
    prefixes = ["q", "Q", "doc_", "", "a-b", "질의", "q²"]
    numbers = ["0", "00", "1", "01", "10", "9", "123", "0009", "99999999999999999999", "٣"]
    for _ in range(3000):
        ids = list({rng.choice(prefixes) + rng.choice(numbers) for _ in range(rng.randint(1, 12))})
        if rng.random() < 0.2:
            ids.append(rng.choice(["q1x", "1a2", "abc", "x"]))  # not text + digits: the general key
        assert natural_sorted(ids) == sorted(ids, key=natural_key), ids
    assert natural_sorted([3, 1, 2]) == [1, 2, 3]  # not str: the general key


def test_doc_codes_screened_by_fold_or_hash_find_every_judged_id(tmp_path, monkeypatch):
    """QrelsIndex.doc_codes: many ids are screened first (by their folds when both sides were read by the bulk
    reader, else by hash); the codes are those of a plain dict lookup, -1 for the ids not judged."""
    from searchgrade.io import load_columns
    from searchgrade.measures import qrels as qrels_module
    from searchgrade.measures.qrels import QrelsIndex

    rng = np.random.default_rng(5)
    judged = [f"doc-{i}" for i in rng.choice(200_000, 6_000, replace=False).tolist()] + ["d1", "a" * 40]
    (tmp_path / "qrels").write_text("".join(f"q{i % 50} 0 {d} {i % 3}\n" for i, d in enumerate(judged)))
    cols, _ = load_columns(tmp_path / "qrels", "qrels")
    assert cols.doc_fold is not None
    index = QrelsIndex(cols)
    asked = judged[:6000:3] + [f"doc-{i}" for i in range(200_000, 210_000)] + ["d1", "d2", "a" * 40]
    (tmp_path / "run").write_text("".join(f"q Q0 {d} 1 1.0 r\n" for d in asked))
    run, _ = load_columns(tmp_path / "run", "run")
    _, keys, code = index.docs()
    want = [code.get(d, -1) for d in run.doc_keys]
    assert index.doc_codes(run.doc_keys, run.doc_fold).tolist() == want  # screened by fold
    assert index.doc_codes(run.doc_keys).tolist() == want  # by hash
    monkeypatch.setattr(qrels_module, "_SCREEN", 1 << 40)
    assert index.doc_codes(run.doc_keys).tolist() == want  # not screened
    assert sum(c >= 0 for c in want) == 2000 + 2


def test_judgments_of_a_few_rows_in_any_qrels_order():
    from searchgrade.measures.qrels import QrelsIndex

    qrels = {"b": {"x": 1, "y": 0}, "a": {"z": 2}, "c": {"x": 0, "w": 1, "v": 3}}
    index = QrelsIndex(qrels)
    row, at = index.judgments(["c", "a"])
    assert row.tolist() == [0, 0, 0, 1] and index.grade[at].tolist() == [0, 1, 3, 2]
# ------------------------------------------------- grades that look like scores (issue 41 §3)
def _swapped_case():
    """A run with integer scores 1000 - rank (depth 100) and binary qrels: as sg.mean(run, qrels) gets them."""
    run = {f"q{i}": {f"d{j}": 1000 - j for j in range(100)} for i in range(5)}
    qrels = {f"q{i}": {f"d{j}": int(j % 3 == 0) for j in range(0, 100, 7)} for i in range(5)}
    return run, qrels


def test_swapped_dicts_warn_that_the_grades_look_like_scores():
    run, qrels = _swapped_case()
    with pytest.warns(UserWarning, match=r"the qrels' grades look like a run's scores \(every grade is above 100, "
                                         r"from 901 to 1000\): are the qrels and the run swapped\?"):
        sg.mean(run, qrels, ["AP"])
    deep = {q: {f"d{j}": 1000 - j for j in range(1000)} for q in run}     # 1..1000: some grades are small
    with pytest.warns(UserWarning, match=r"a query has 1000 different grades\): are the qrels and the run swapped"):
        sg.mean(deep, qrels, ["AP"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sg.mean(qrels, {q: {d: float(s) for d, s in docs.items()} for q, docs in run.items()}, ["AP"])
    with pytest.raises(ValueError, match=r"grade 0.75 is not an integer \(are the qrels and the run swapped\?\)"):
        sg.mean({"q": {"a": 0.75}}, qrels, ["AP"])


def _real_qrels():
    """Every qrels of the book's collections and of the shared test data (../shared) that searchgrade reads."""
    from searchgrade.collections import LOADERS, load

    from tests.support.golden import ROOT

    for name in sorted(set(LOADERS) - {"beir"}):
        yield f"collection {name}", load(name).qrels
    shared = ROOT.parent / "shared"
    paths = sorted({*shared.glob("data/**/*qrel*"), *shared.glob("peer_tests/**/*qrel*"),
                    *shared.glob("trec_eval_golden/**/*qrel*"), *shared.glob("ndeval_golden/*.qrels")})
    for path in paths:
        try:
            yield str(path), sgio.read_qrels(path, warn=False)
        except (sgio.FormatError, ValueError):
            continue        # not TREC qrels (cranfield's own format), or an ndeval case built to be refused


def test_the_score_rule_never_fires_on_real_qrels():
    from searchgrade.measures.qrels import score_like

    seen = 0
    for name, qrels in _real_qrels():
        query = np.repeat(np.arange(len(qrels)), [len(d) for d in qrels.values()])
        grade = np.fromiter((g for d in qrels.values() for g in d.values()), dtype=np.int64)
        assert score_like(query, grade) is None, name
        seen += 1
    assert seen > 100
    run, _ = _swapped_case()
    query = np.repeat(np.arange(5), 100)
    assert score_like(query, np.array([g for d in run.values() for g in d.values()])) is not None


# ------------------------------------------------- float document ids (issue 41 §3)
def test_float_document_ids_that_match_as_text_are_warned_about():
    with pytest.warns(UserWarning, match=r"document ids differ from the qrels' only in type: query 'q1': qrels "
                                         r"'1.0' \(str\) vs run 1.0 \(float\)"):
        df = sg.evaluate({"q1": {"a": 1, "1.0": 1}}, {"q1": {1.0: 0.5}}, ["AP"])
    assert df.loc["q1", "AP"] == 0.0
    with pytest.warns(UserWarning, match=r"1 of them differ from a qrels query id only in type: qrels '2.5' "
                                         r"\(str\) vs run 2.5 \(float\)"):
        sg.evaluate({"2.5": {"a": 1}}, {2.5: {"a": 0.5}}, ["AP"])
