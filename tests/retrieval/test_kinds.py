"""Retriever kinds (searchgrade.retrieval.kinds): a new kind is one row plus the function that computes it.

The toy kind below is registered by this test alone; nothing in the package names it. It runs in a
line-up file beside BM25 and an RRF of both, through the same parser, engine, cache and folder
reader as the built-in kinds.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from searchgrade import collections as ck
from searchgrade.io import read_run
from searchgrade.retrieval import dense, kinds, schema
from searchgrade.retrieval import lineup as L
from searchgrade.retrieval import runs as engine
from searchgrade.retrieval import workspace
from searchgrade.io.runfolder import read_runs

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "beir_small"


def syllable_share(ws, spec, depth, inputs):
    """Each document scores ``weight`` times the share of the query's syllables it contains."""
    texts = dict(zip(ws.docids, ws.doc_texts(spec.params["fields"])))
    run = {}
    for qid, query in ws.collection.queries.items():
        wanted = set(query) - set(" ?")
        scores = {d: spec.params["weight"] * len(wanted & set(t)) / len(wanted) for d, t in texts.items()}
        run[qid] = dict(sorted(((d, s) for d, s in scores.items() if s > 0), key=lambda x: -x[1])[:depth])
    return run


def positive_weight(table):
    """The toy's own check: a positive weight."""
    if table.values["weight"] <= 0:
        raise table.fail("weight", f"must be positive, got {table.values['weight']}")
    return table.values


TOY = kinds.Kind("syllables", "share of the query's syllables in the document",
                 {"weight": (schema.NUM, 1.0), **schema.FIELDS}, syllable_share, check=positive_weight)

LINEUP = """\
[[retriever]]
name = "share"
kind = "syllables"
weight = 2

[[retriever]]
name = "bm25-bigram"
kind = "bm25"
tokeniser = "ko-bigram"

[[retriever]]
name = "rrf"
kind = "rrf"
inputs = ["share", "bm25-bigram"]
"""


@pytest.fixture()
def toy(monkeypatch, tmp_path):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    kinds.register_kind(TOY)
    yield TOY
    del kinds.KINDS[TOY.name]


def test_a_registered_kind_runs_in_a_lineup_end_to_end(toy, tmp_path):
    lineup = L.parse_lineup(LINEUP, "toy.toml")
    spec = lineup.retrievers["share"]
    assert (spec.family, spec.params) == ("hybrid", {"weight": 2.0, "fields": ["title", "text"]})
    L.check_available(lineup)                                  # a kind without an availability check is usable
    coll = ck.load_beir(FIXTURE)
    workspace._WORKSPACES.clear()
    records = engine.make_runs(coll, lineup, tmp_path / "runs", progress=False)
    assert [(r.retriever, r.status) for r in records] == [("share", "computed"), ("bm25-bigram", "computed"),
                                                          ("rrf", "computed")]
    texts = dict(zip(coll.corpus, dense.doc_texts(coll.corpus)))
    q1 = set("토마토 껍질은 어떻게 벗기나요") - {" "}
    want = {d: 2 * len(q1 & set(t)) / len(q1) for d, t in texts.items() if q1 & set(t)}
    got = read_run(tmp_path / "runs" / "share.run")
    assert got["q1"] == pytest.approx(want) and next(iter(got["q1"])) == "d1"
    info = engine.run_info(tmp_path / "runs", "share")
    assert info["kind"] == "syllables" and info["settings"]["params"] == {"weight": 2.0, "fields": ["title", "text"]}
    assert info["settings"]["inputs"] == [] and len(info["settings"]["code"]) == 64
    rrf = engine.run_info(tmp_path / "runs", "rrf")
    assert [s["kind"] for s in rrf["settings"]["inputs"]] == ["syllables", "bm25"]
    folder = read_runs(tmp_path / "runs")
    assert list(folder.runs) == ["share", "bm25-bigram", "rrf"] and folder.runs["share"] == got
    workspace._WORKSPACES.clear()
    again = engine.make_runs(coll, lineup, tmp_path / "runs", progress=False)
    assert {r.status for r in again} == {"cached"}


def test_a_registered_kind_is_checked_like_the_built_in_ones(toy):
    with pytest.raises(L.LineupError, match=r"toy.toml:4: retriever 'share', key 'weight': must be positive, got -1"):
        L.parse_lineup(LINEUP.replace("weight = 2", "weight = -1"), "toy.toml")
    with pytest.raises(L.LineupError, match=r"key 'wieght': unknown key for kind 'syllables'; its keys: name, kind, "
                                            r"family, description, weight, fields; did you mean 'weight'\?"):
        L.parse_lineup(LINEUP.replace("weight = 2", "wieght = 2"), "toy.toml")
    with pytest.raises(L.LineupError, match="must be a number"):
        L.parse_lineup(LINEUP.replace("weight = 2", 'weight = "2"'), "toy.toml")
    assert "syllables share of the query's syllables in the document (keys: weight, fields)" in kinds.describe()
    with pytest.raises(ValueError, match="already registered"):
        kinds.register_kind(TOY)


def test_an_unregistered_kind_is_unknown():
    with pytest.raises(L.LineupError, match=r"unknown kind 'syllables'; known: bm25, dense, rrf"):
        L.parse_lineup(LINEUP, "toy.toml")


def test_a_row_is_checked_when_it_is_made():
    with pytest.raises(ValueError, match="belong to every retriever"):
        kinds.Kind("x", "x", {"name": (schema.STR, "")}, syllable_share)
    with pytest.raises(ValueError, match="no type"):
        kinds.Kind("x", "x", {"weight": ("a float", 1.0)}, syllable_share)
    with pytest.raises(ValueError, match="without whitespace"):
        kinds.Kind("two words", "x", {}, syllable_share)


def test_a_module_a_row_names_must_exist(toy, tmp_path):
    """A misspelt module would leave the run key blind to the code; it is refused instead."""
    typo = kinds.Kind("syllables", "x", TOY.keys, syllable_share, modules=("searchgrade.retrieval.no_such",))
    kinds.register_kind(typo, replace=True)                # the toy fixture removes it afterwards
    lineup = L.parse_lineup(LINEUP, "toy.toml")
    with pytest.raises(ValueError, match="names the module 'searchgrade.retrieval.no_such', which has no source"):
        engine.make_runs(ck.load_beir(FIXTURE), lineup, tmp_path / "runs", ["share"], progress=False)


def test_every_built_in_kind_has_a_row_the_engine_can_use():
    assert list(kinds.KINDS)[:8] == ["bm25", "dense", "rrf", "convex", "combsum", "combmnz", "combmax", "rerank"]
    assert set(kinds.FUSION_KINDS) <= set(kinds.KINDS)
    for row in kinds.KINDS.values():
        assert row.description and callable(row.run) and row.modules
        assert json.dumps({k: d for k, (_, d) in row.keys.items() if d is not schema.REQUIRED})  # defaults are TOML
