"""The formula table, the tool table and the API appendix's measure table are generated from the registry rows."""
import dataclasses

import docutils.core
import pytest

import searchgrade as sg
import searchgrade.metrics
from searchgrade.measures import registry, tables
from searchgrade.measures.family import Differs
from searchgrade.measures.registry import FAMILIES


def _flat(text: str) -> str:
    """Text with every run of whitespace as one space (table cells wrap)."""
    return " ".join(text.split())


def _rows(rst: str) -> list[list[str]]:
    """The body rows of an RST table, each cell's text with whitespace collapsed; fails on any parser message."""
    doc = docutils.core.publish_doctree(rst, settings_overrides={"report_level": 5, "halt_level": 5})
    messages = [n.astext() for n in doc.findall() if n.tagname == "system_message"]
    assert not messages, messages
    body = next(n for n in doc.findall() if n.tagname == "tbody")
    return [[_flat(entry.astext()) for entry in row.children] for row in body.children]


def test_the_module_docstring_holds_the_generated_tables():
    doc = searchgrade.metrics.__doc__
    assert "{formulas}" not in doc and "{tools}" not in doc
    assert tables.formula_table() in doc and tables.differs_table() in doc


def test_every_family_has_one_formula_row_with_its_formula_source_and_trec_eval_names():
    rows = _rows(tables.formula_table())
    assert [r[0].split("@")[0].split("[")[0] for r in rows] == list(FAMILIES)
    for (name, trec, text), fam in zip(rows, FAMILIES.values()):
        assert fam.formula, f"{fam.name} has no formula in its registry row"
        assert _flat(fam.formula.replace("``", "")) in text.replace("``", "")
        assert fam.cite in text
        for spec in fam.trec:
            assert spec.root in trec


def test_the_tool_table_has_a_row_per_family_that_differs():
    rows = _rows(tables.differs_table())
    differing = [f.differs for f in FAMILIES.values() if f.differs is not None]
    assert [r[0] for r in rows] == [d.choice for d in differing]
    for row, d in zip(rows, differing):
        assert row[1:] == [_flat(d.trec_eval).replace("``", ""), _flat(d.ir_measures).replace("``", ""),
                           _flat(d.ranx).replace("``", "")]


def test_ranx_rbp_gains_the_raw_grade():
    """ranx/metrics/rank_biased_precision.py (_rank_biased_precision) sets the gain to qrels[j, 1], the grade."""
    ranx = FAMILIES["RBP"].differs.ranx
    assert "raw grade" in ranx and "not binary" in ranx
    assert FAMILIES["RBP"].ranx.startswith("rbp (gain=grade")  # RBP(gain=grade) is ranx's rbp


@pytest.fixture
def fake_family(monkeypatch):
    """A registry with one more row, as a new family would add it."""
    fake = dataclasses.replace(FAMILIES["P"], name="FakeP", formula="``fake_i / k``", cite="Nobody 2099",
                               ranx="fake_precision", differs=Differs("fake choice", "tr", "ir", "rx"))
    monkeypatch.setitem(FAMILIES, "FakeP", fake)
    return fake


def test_a_new_row_appears_in_every_generated_table(fake_family):
    formulas = _rows(tables.formula_table())
    assert formulas[-1] == ["FakeP@k", "P_k", "fake_i / k (Nobody 2099)"]
    assert _rows(tables.differs_table())[-1] == ["fake choice", "tr", "ir", "rx"]
    table = tables.measure_table()
    assert table.loc["FakeP", "source"] == "Nobody 2099"
    assert table.loc["FakeP", "ranx"] == "fake_precision"
    assert "FakeP" in tables.closed_form_families()


def test_the_appendix_table_is_the_registrys():
    """sg.measure_table (the API appendix's table) is tables.measure_table, one row per registry family."""
    assert sg.measure_table is tables.measure_table is searchgrade.metrics.measure_table
    table = sg.measure_table()
    assert list(table.index) == list(FAMILIES)
    assert table.loc["RBP", "source"] == "Moffat & Zobel 2008"
    assert table.loc["nDCG", "ranx"] == FAMILIES["nDCG"].ranx


def test_the_curve_models_come_from_the_registry_rows():
    from searchgrade import curves

    assert curves.CURVE_FAMILIES == tuple(f.name for f in FAMILIES.values() if f.curve is not None)
    assert set(curves.CURVE_FAMILIES) >= {"P", "RR", "RBP", "INST", "NERR11"}


def test_registry_keeps_its_row_type_importable():
    assert registry.Family is dataclasses.replace(FAMILIES["P"]).__class__
