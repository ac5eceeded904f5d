"""A new measure is one file (its kernel beside its row) plus one registration line: then a measure like the others."""
import importlib.util
import textwrap

import numpy as np
import pytest

import searchgrade as sg
from searchgrade.measures import registry
from searchgrade.measures.family import Family, TrecName
from searchgrade.measures.kinds.base import level
from searchgrade.measures.names import known_measures, parse_measure
from searchgrade.measures.params import REL

QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}
RUN = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"y": 1.0, "x": 0.5}}


def relevant_found(ctx, m):
    """The kernel: how many relevant documents the top k holds (a count, not divided by k)."""
    return ctx.rel_hits(level(ctx, m), m.cutoff).astype(np.float64)


# One file, as the measures package docstring writes it: the kernel and its row side by side, names in the
# other tools included (an alias, a ranx name).
KIND = textwrap.dedent('''
    """Found@k: the relevant documents in the top k, a count."""
    import numpy as np

    from searchgrade.measures.family import Family, RanxName, TrecName
    from searchgrade.measures.params import REL
    from searchgrade.measures.kinds.base import level


    def found(ctx, m):
        """Found@k = |relevant in the top k|."""
        return ctx.rel_hits(level(ctx, m), m.cutoff).astype(np.float64)


    ROWS = [Family("Found", found, "relevant documents in the top k", (REL,), cutoff="required",
                   formula="``sum_{i<=k} rel_i``", trec=(TrecName("found", "cut", (5, 10)),),
                   aliases=("relevant_found",), ranx_names=(RanxName("found_ranx", "@k"),))]
''')


def test_a_kind_in_one_file_is_one_registration_line(tmp_path):
    (tmp_path / "found_kind.py").write_text(KIND)
    spec = importlib.util.spec_from_file_location("found_kind", tmp_path / "found_kind.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = registry.register_kind(module)  # the one line
    try:
        assert [r.name for r in rows] == ["Found"] and list(registry.FAMILIES)[-1] == "Found"
        df = sg.evaluate(QRELS, RUN, ["Found@2", "Found@1"])
        assert df["Found@2"].tolist() == [1, 1] and df["Found@1"].tolist() == [1, 0]
        for name in ("found_2", "relevant_found@2", "found_ranx@2"):  # its trec_eval name, alias, ranx name
            assert parse_measure(name).key == parse_measure("Found@2").key, name
        assert "Found(rel)@k" in known_measures() and "Found" in sg.measure_table().index
    finally:
        registry.unregister_family("Found")
    assert registry.family("relevant_found") is None and "found_ranx" not in registry.RANX
    with pytest.raises(ValueError, match="unknown measure 'found_2'"):
        parse_measure("found_2")


@pytest.fixture
def found_family():
    """The new row, registered in the registry itself for the test and taken out afterwards."""
    row = Family("Found", relevant_found, "relevant documents in the top k", (REL,),
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
    row = Family("Found", relevant_found, "relevant documents in the top k", (REL,), cutoff="required",
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
        registry.register_family(Family("Hit", relevant_found, "count", (REL,), cutoff="required",
                                        trec=old.trec), replace=True)
        assert list(registry.FAMILIES) == order
        assert sg.evaluate(QRELS, RUN, ["success_5"]).loc["q1", "success_5"] == 2  # the new kernel
    finally:
        registry.register_family(old, replace=True)
    assert sg.evaluate(QRELS, RUN, ["success_5"]).loc["q1", "success_5"] == 1


def test_a_row_cannot_take_another_familys_alias_or_ranx_name():
    from searchgrade.measures.family import RanxName

    with pytest.raises(ValueError, match="alias"):
        registry.register_family(Family("Found", relevant_found, "x", (REL,), cutoff="required", aliases=("MAP",)))
    with pytest.raises(ValueError, match="ranx name"):
        registry.register_family(Family("Found", relevant_found, "x", (REL,), cutoff="required",
                                        ranx_names=(RanxName("ndcg"),)))
    assert "Found" not in registry.FAMILIES and registry.family("map").name == "AP"
    assert registry.RANX["ndcg"] == ("nDCG", "nDCG")
