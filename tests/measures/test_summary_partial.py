"""Summaries over queries: trec_eval's sequential sum, the exact one, and partial summaries that merge.

The exact summation is checked three ways: against Python's Fractions (the sum is exact, the mean
correctly rounded); as a property with hypothesis (queries split into 1, 2 or 7 shards, each shard
evaluated on its own, the partials merged in a random grouping and order, give bit for bit the summary
of one pass, and stay within 1e-12 of trec_eval's sequential sum); and on every trec_eval golden case
(the command's summaries replaced by exact partials merged block by block print what trec_eval
printed, byte for byte).
"""
from __future__ import annotations

import io
import math
import random
import sys
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from tests.support.examples import examples
from tests.support.golden import golden_folder, load_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import searchgrade as sg
from searchgrade.measures import blocks
from searchgrade.measures.summary import (SCALE, PartialSummary, aggregate, exact_sum, partial_summary,
                                          summarize_column)

MEASURES = ["AP", "GMAP", "nDCG@10", "P@5", "RR", "Rprec", "bpref", "NumRel", "NumRet", "NumRelRet", "rbp"]


# --------------------------------------------------------------------------- the exact sum itself
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@given(st.lists(finite, max_size=60))
def test_exact_sum_is_the_exact_sum_and_the_mean_is_correctly_rounded(values):
    total, special = exact_sum(np.array(values, dtype=np.float64))
    exact = sum(map(Fraction, values), Fraction(0))
    assert special == 0.0 and Fraction(total, 1 << SCALE) == exact
    if values:
        assert summarize_column(np.array(values), "mean", "exact") == float(exact / len(values))


def test_subnormals_and_extremes_add_exactly():
    values = [5e-324, -5e-324, 2.5e-320, 1e308, 1e308, -1e308, 1e-300]
    total, _ = exact_sum(np.array(values))
    assert Fraction(total, 1 << SCALE) == sum(map(Fraction, values))


def test_non_finite_values_give_what_a_float_sum_gives():
    assert math.isnan(summarize_column(np.array([np.nan, 1.0]), "mean", "exact"))
    assert summarize_column(np.array([np.inf, 1.0]), "sum", "exact") == math.inf
    assert math.isnan(summarize_column(np.array([np.inf, -np.inf]), "mean", "exact"))


def test_exact_differs_from_sequential_where_the_sequential_sum_rounds():
    x = np.full(10, 0.1)
    assert summarize_column(x, "mean") == 0.09999999999999999  # ten roundings, as trec_eval's loop
    assert summarize_column(x, "mean", "exact") == 0.1  # the exact sum 10 * 0.1 (as float64), rounded once


def test_counts_stay_integers_beyond_2_to_the_53():
    x = np.array([2**53, 1, 1], dtype=np.int64)
    assert summarize_column(x, "sum", "exact") == 2**53 + 2 and isinstance(summarize_column(x, "sum", "exact"), int)
    assert summarize_column(np.array([0.5, 0.25]), "sum", "exact") == 0.75


def test_geometric_mean_adds_the_floored_logs():
    x = np.array([0.5, 0.0, 0.2])  # 0.0 is floored at trec_eval's MIN_GEO_MEAN
    want = math.exp(float(sum(Fraction(math.log(v)) for v in (0.5, 1e-5, 0.2)) / 3))
    assert summarize_column(x, "gmean", "exact") == want


def test_a_bad_summation_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match=r"summation must be one of \('trec', 'exact'\), not 'fast'"):
        summarize_column(np.zeros(2), "mean", "fast")
    with pytest.raises(ValueError, match="summation must be one of"):
        aggregate(pd.DataFrame({"AP": [0.5]}), summation="kahan")


def test_merging_refuses_other_columns_and_the_empty_partial_is_neutral():
    a = PartialSummary.of({"AP": "mean"}, {"AP": np.array([0.5, 0.25])})
    b = PartialSummary.of({"P@5": "mean"}, {"P@5": np.array([0.5])})
    with pytest.raises(ValueError, match="cannot merge summaries of different columns"):
        a.merge(b)
    assert a + PartialSummary.empty({"AP": "mean"}) == a
    assert math.isnan(PartialSummary.empty({"AP": "mean"}).finish()["AP"])
    assert PartialSummary.empty({"NumRet": "sum"}).finish() == {"NumRet": 0}


def test_json_carries_a_partial_exactly():
    part = PartialSummary.of({"AP": "mean", "GMAP": "gmean", "NumRet": "sum"},
                             {"AP": np.array([0.1, 1e-310, np.inf]), "GMAP": np.array([0.3, 0.0, 0.9]),
                              "NumRet": np.array([3, 4, 5])})
    assert PartialSummary.from_json(part.to_json()) == part


# --------------------------------------------------------------------------- the shard-merge property
@st.composite
def collections(draw):
    """(qrels, run): graded qrels (-1 .. 3), tied scores, queries only in the qrels or only in the run."""
    n_queries = draw(st.integers(1, 14))
    docs = [f"d{i}" for i in range(draw(st.integers(1, 12)))]
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}" if q % 3 else str(q)  # ids that sort differently as text and as numbers
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side != "run":
            judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
            qrels[qid] = {d: draw(st.integers(-1, 3)) for d in judged}
        if side != "qrels":
            ranked = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
            run[qid] = {d: float(draw(st.integers(0, 4))) / 4 for d in ranked}  # few values: ties
    if not set(qrels) & set(run):  # at least one query with a row
        qid = next(iter(qrels or run))
        qrels.setdefault(qid, {docs[0]: 1})
        run.setdefault(qid, {docs[0]: 1.0})
    return qrels, run


def _evaluate(qrels, run, **options) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the missing-query warnings: tested elsewhere
        return sg.evaluate(qrels, run, MEASURES, **options)


def _merge_in_random_tree(parts: list, rng: random.Random) -> PartialSummary:
    """The partials merged in a random order and grouping (pairs picked at random until one is left)."""
    parts = list(parts)
    while len(parts) > 1:
        a = parts.pop(rng.randrange(len(parts)))
        b = parts.pop(rng.randrange(len(parts)))
        parts.append(a + b if rng.random() < 0.5 else b.merge(a))
    return parts[0]


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from([1, 2, 7]), st.sampled_from(["ignore", "zero"]), st.randoms(use_true_random=False))
def test_shards_merged_in_any_grouping_give_one_pass_bit_for_bit(data, shards, missing, rng):
    qrels, run = data
    whole = _evaluate(qrels, run, missing=missing)
    one_pass = aggregate(whole, summation="exact")
    queries = sorted(set(qrels) | set(run))
    shard_of = {q: rng.randrange(shards) for q in queries}
    parts = []
    for s in range(shards):  # each shard evaluated on its own, as an executor would
        part_qrels = {q: d for q, d in qrels.items() if shard_of[q] == s}
        part_run = {q: d for q, d in run.items() if shard_of[q] == s}
        if not part_run and missing == "zero":  # each judged query on an empty ranking (an empty run is refused)
            part_run = {q: {} for q in part_qrels}
        table = _evaluate(part_qrels, part_run, missing=missing) if part_run else whole.iloc[:0]
        parts.append(partial_summary(table, MEASURES))
    merged = _merge_in_random_tree(parts, rng)
    assert merged.count == len(whole)
    pd.testing.assert_series_equal(merged.series(), one_pass, check_exact=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        in_one_call = sg.mean(qrels, run, MEASURES, missing=missing, summation="exact")
    pd.testing.assert_series_equal(in_one_call, one_pass, check_exact=True)
    sequential = aggregate(whole)
    for name in one_pass.index:
        assert one_pass[name] == pytest.approx(sequential[name], rel=0, abs=1e-12), name
        if isinstance(sequential[name], int):
            assert one_pass[name] == sequential[name] and isinstance(one_pass[name], int), name


def test_mean_keeps_trec_eval_s_sequential_sum_by_default():
    qrels = {f"q{i}": {"a": 1} for i in range(10)}
    run = {f"q{i}": {"a": 1.0, "b": 2.0} for i in range(10)}  # P@10 = 0.1 for every query
    got = sg.mean(qrels, run, ["P@10"])
    assert got["P@10"] == summarize_column(np.full(10, 0.1), "mean")  # ten sequential additions of 0.1
    assert sg.mean(qrels, run, ["P@10"], summation="exact")["P@10"] == 0.1


# --------------------------------------------------------------------------- every golden case, exactly
GOLDEN = golden_folder("SEARCHGRADE_TREC_EVAL_GOLDEN", "trec_eval_golden")
CASES = load_cases(GOLDEN)


def _exact_blocks(differences: list):
    """score_run_blocks with small blocks whose last block carries exact summaries: each block's values
    become a partial summary, merged block by block (the sequential ones go to ``differences``)."""
    def score_run_blocks(qrels, run, measures, *, summary=False, **kw):
        got = blocks.score_run_blocks(qrels, run, measures, summary=summary, block_rows=3, **kw)
        merged, last = None, None
        for scores in got:
            part = PartialSummary.of({name: m.agg for name, m in zip(scores.values, measures)}, scores.values)
            merged = part if merged is None else merged + part
            if last is not None:
                yield last
            last = scores
        if summary and last is not None and last.rows:
            exact = merged.finish()
            differences.extend((name, exact[name], value) for name, value in last.summaries.items())
            last = last._replace(summaries=exact)
        yield last
    return score_run_blocks


# the golden cases where a mean lies on a rounding boundary of the fourth decimal: the exact mean and
# trec_eval's rounded sum fall on its two sides (c275, P_1000: exactly 0.00325 against 0.0032500000000000003)
BOUNDARY_CASES = {"c275"}


def _run_case(case: dict, monkeypatch) -> tuple[int, str]:
    """The command on one golden case, in this process: (exit status, standard output)."""
    import searchgrade.cli.trec_eval as command

    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", newline=""))
    if case["stdin"] is not None:
        data = (GOLDEN / case["stdin"]).read_bytes()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = command.main(list(case["args"]))
    sys.stdout.flush()
    return rc, out.getvalue().decode("utf-8")


def _on_a_boundary(ours: str, theirs: str, differences: list) -> bool:
    """Whether two printed lines differ only where an exact summary and trec_eval's, within 1e-12 of
    each other, print on the two sides of a rounding boundary of %.4f."""
    mine, golden = ours.split("\t"), theirs.split("\t")
    if mine[:2] != golden[:2] or mine[1] != "all":
        return False
    return any(f"{a:.4f}" == mine[2] and f"{b:.4f}" == golden[2] and abs(a - b) <= 1e-12
               for _, a, b in differences)


def test_the_exact_summation_prints_what_trec_eval_printed_on_the_golden_cases(monkeypatch):
    import searchgrade.cli.trec_eval as command

    assert len(CASES) == 300, f"the golden cases are missing from {GOLDEN}"
    monkeypatch.chdir(GOLDEN)
    compared, wrong, boundary = 0, [], set()
    for case in CASES:
        differences: list = []
        monkeypatch.setattr(command, "score_run_blocks", _exact_blocks(differences))
        rc, out = _run_case(case, monkeypatch)
        compared += len(differences)
        far = [(n, a, b) for n, a, b in differences if not abs(a - b) <= 1e-12]
        assert far == [], (case["name"], far[:3])
        lines = [pair for pair in zip(out.splitlines(), case["stdout"].splitlines()) if pair[0] != pair[1]]
        if rc != case["returncode"] or out.count("\n") != case["stdout"].count("\n"):
            wrong.append(case["name"])
        elif lines and all(_on_a_boundary(a, b, differences) for a, b in lines):
            boundary.add(case["name"])
        elif lines:
            wrong.append(case["name"])
    monkeypatch.undo()
    assert wrong == [], f"the exact summation prints otherwise than trec_eval on {wrong}"
    assert boundary == BOUNDARY_CASES
    assert compared > 1000  # every summary line of every case was compared
