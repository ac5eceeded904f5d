"""A new measure family is one registry row plus one kernel: registered, it is a measure like the others."""
import numpy as np
import pytest

import searchgrade as sg
from searchgrade.measures import registry
from searchgrade.measures.family import Family
from searchgrade.measures.kernels.base import _level

QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}
RUN = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"y": 1.0, "x": 0.5}}


def relevant_found(ctx, m):
    """The kernel: how many relevant documents the top k holds (a count, not divided by k)."""
    return ctx.rel_hits(_level(ctx, m), m.cutoff).astype(np.float64)


@pytest.fixture
def found_family():
    """The new row, registered in the registry itself for the test and taken out afterwards."""
    row = Family("Found", relevant_found, "relevant documents in the top k", (registry.REL,),
                 cutoff="required", formula="``sum_{i<=k} rel_i``")
    yield registry.register_family(row)
    del registry.FAMILIES["Found"], registry._BY_LOWER["found"]


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
