"""aggregate() pairs measures with columns by name; mean() is evaluate + aggregate in one call."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import searchgrade as sg

QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 2}}
RUN = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}, "q2": {"y": 1.0, "c": 0.5}, "q3": {"z": 1.0}}


def frame():
    return sg.evaluate(QRELS, RUN, ["NumRet", "AP", "GMAP"])


def test_measures_are_paired_with_columns_by_name_not_position():
    df = frame()
    agg = sg.aggregate(df, measures=["AP"])
    assert list(agg.index) == ["AP"]
    assert agg["AP"] == pytest.approx(df["AP"].mean())
    agg = sg.aggregate(df, measures=["GMAP", "NumRet"])  # any order, any subset
    assert list(agg.index) == ["GMAP", "NumRet"]
    assert agg["NumRet"] == 6 and agg["GMAP"] == pytest.approx(math.exp(np.log(np.maximum(df["AP"], 1e-5)).mean()))


def test_identifier_columns_are_left_out_silently_numeric_ones_with_a_warning():
    df = frame().assign(system="bm25")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agg = sg.aggregate(df)
    assert list(agg.index) == ["NumRet", "AP", "GMAP"]
    with pytest.warns(UserWarning, match=r"\['year'\] are not measure names and were left out"):
        agg = sg.aggregate(df.assign(year=2026))
    assert "year" not in agg.index


def test_a_missing_measure_is_a_key_error_naming_it():
    with pytest.raises(KeyError, match=r"no column for measure\(s\) \['P@10'\]"):
        sg.aggregate(frame(), measures=["AP", "P@10"])


def test_columns_found_by_printed_name_or_spelling():
    df = sg.evaluate(QRELS, RUN, ["rbp"])  # printed RBP(p=0.9)
    assert sg.aggregate(df, ["rbp"]).index.tolist() == ["RBP(p=0.9)"]
    hand = pd.DataFrame({"map": [0.5, 1.0]})  # a hand-made frame with a trec_eval spelling
    assert sg.aggregate(hand, ["map"])["map"] == 0.75
    assert sg.aggregate(hand)["map"] == 0.75


def test_empty_frame_means_are_nan_and_sums_zero():
    df = frame().iloc[:0]
    agg = sg.aggregate(df)
    assert math.isnan(agg["AP"]) and agg["NumRet"] == 0


def test_mean_is_aggregate_of_evaluate():
    for options in ({}, {"missing": "zero"}, {"ties": "expected"}, {"rel_level": 2}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = sg.mean(QRELS, RUN, ["AP", "GMAP", "NumRel", "rbp"], **options)
            b = sg.aggregate(sg.evaluate(QRELS, RUN, ["AP", "GMAP", "NumRel", "rbp"], **options))
        pd.testing.assert_series_equal(a, b)
    assert "mean" in sg.__all__


def test_mean_takes_ir_measures_objects():
    ir_measures = pytest.importorskip("ir_measures")
    got = sg.mean(QRELS, RUN, [ir_measures.AP, ir_measures.P @ 2])
    assert list(got.index) == ["AP", "P@2"]
    assert got["P@2"] == pytest.approx(sg.aggregate(sg.evaluate(QRELS, RUN, ["P@2"]))["P@2"])
