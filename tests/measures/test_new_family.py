"""A new measure family is one registry row plus one kernel: registered, it is a measure like the others."""
import numpy as np
import pytest

import searchgrade as sg
from searchgrade.measures import registry
from searchgrade.measures.family import Family
from searchgrade.measures.family import TrecName
from searchgrade.measures.kernels.base import level
from searchgrade.measures.names import known_measures, parse_measure

QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}
RUN = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"y": 1.0, "x": 0.5}}


def relevant_found(ctx, m):
    """The kernel: how many relevant documents the top k holds (a count, not divided by k)."""
    return ctx.rel_hits(level(ctx, m), m.cutoff).astype(np.float64)


@pytest.fixture
def found_family():
    """The new row, registered in the registry itself for the test and taken out afterwards."""
    row = Family("Found", relevant_found, "relevant documents in the top k", (registry.REL,),
                 cutoff="required", formula="``sum_{i<=k} rel_i``")
    yield registry.register_family(row)
    registry.unregister_family("Found")


def test_a_registered_family_is_evaluated_by_name(found_family):
    df = sg.evaluate(QRELS, RUN, ["Found@2", "Found(rel=2)@3", "P@2"])
    assert df.loc["q1", "Found@2"] == 1 and df.loc["q2", "Found@2"] == 1
    assert df.loc["q1", "Found(rel=2)@3"] == 1 and df.loc["q2", "Found(rel=2)@3"] == 0
    assert np.allclose(df["Found@2"] / 2, df["P@2"])  # P@k is the count over k


def test_a_registered_family_is_checked_and_listed(found_family):
    with pytest.raises(ValueError, match="Found"):
        sg.evaluate(QRELS, RUN, ["Found"])  # its cut-off is required, like P's
    assert "Found" in sg.measure_table().index


def test_a_name_is_registered_once(found_family):
    with pytest.raises(ValueError, match="already registered"):
        registry.register_family(found_family)
    with pytest.raises(ValueError, match="already registered"):
        registry.register_family(Family("p", relevant_found, "clash with P", cutoff="required"))


def test_a_family_registered_after_the_names_were_read_has_its_trec_eval_names():
    parse_measure("ndcg_cut_10")  # the name tables are built (and cached) before the row exists
    row = Family("Found", relevant_found, "relevant documents in the top k", (registry.REL,), cutoff="required",
                 trec=(TrecName("found", "cut", (5, 10)),))
    registry.register_family(row)
    try:
        assert "found_k" in known_measures()
        m = parse_measure("found_7")
        assert (m.family, m.cutoff) == ("Found", 7)
        df = sg.evaluate(QRELS, RUN, ["found_2"])
        assert df.loc["q1", "found_2"] == 1
    finally:
        assert registry.unregister_family("found") is row
    with pytest.raises(ValueError, match="unknown measure 'found_7'"):
        parse_measure("found_7")  # gone again: the tables follow the registry both ways
    assert "Found" not in registry.FAMILIES and registry.trec_root("found") is None
    with pytest.raises(KeyError, match="Found"):
        registry.unregister_family("Found")


def test_replacing_a_family_keeps_its_place():
    order = list(registry.FAMILIES)
    old = registry.FAMILIES["Hit"]
    try:
        registry.register_family(Family("Hit", relevant_found, "count", (registry.REL,), cutoff="required",
                                        trec=old.trec), replace=True)
        assert list(registry.FAMILIES) == order
        assert sg.evaluate(QRELS, RUN, ["success_5"]).loc["q1", "success_5"] == 2  # the new kernel
    finally:
        registry.register_family(old, replace=True)
    assert sg.evaluate(QRELS, RUN, ["success_5"]).loc["q1", "success_5"] == 1
