"""Tests for searchgrade.book.runs: run files, the cache (hit, miss, corruption), fusion inputs and the command line."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from searchgrade import collections as ck
from searchgrade.book import runs
from searchgrade.retrieval import dense, fusion
from searchgrade.collections import Collection
from searchgrade.io import read_run

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "beir_small"


class ToyEncoder(dense.Encoder):
    """Character-count embeddings over a few Hangul syllables: fast, deterministic, no model."""

    name = "toy"
    batch_size = 8
    SYLLABLES = "토마김치서울수도항구커피점수"

    def settings(self):
        return {"encoder": "toy", "syllables": self.SYLLABLES}

    def _embed(self, texts, side):
        return np.array([[t.count(s) for s in self.SYLLABLES] + [0.1] for t in texts], dtype=np.float64)


@pytest.fixture()
def lineup(monkeypatch, tmp_path):
    monkeypatch.setitem(dense.ENCODERS, "toy", ToyEncoder)
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    bm = {"k1": 1.5, "b": 0.75, "epsilon": 0.25, "fields": ["title", "text"]}
    specs = [
        runs.Retriever("bm25-ws", "BM25", "bm25", "ws", {"tokeniser": "ko-ws", **bm}),
        runs.Retriever("bm25-bigram", "BM25", "bm25", "bigram", {"tokeniser": "ko-bigram", **bm}),
        runs.Retriever("dense-toy", "dense", "dense", "toy", {"encoder": "toy", "fields": ["title", "text"]}),
        runs.Retriever("rrf-bigram-toy", "hybrid", "rrf", "rrf", {"k": 60}, ("bm25-bigram", "dense-toy")),
        runs.Retriever("convex-bigram-toy", "hybrid", "convex", "convex", {"weights": [0.5, 0.5]},
                       ("bm25-bigram", "dense-toy")),
        runs.Retriever("rerank-bigram-toy", "hybrid", "rerank", "rerank",
                       {"n": 2, "scorer": {"encoder": "toy"}, "fields": ["title", "text"]}, ("bm25-bigram",)),
    ]
    return {s.name: s for s in specs}


def _make(lineup, out, collection=FIXTURE, **kw):
    coll = ck.load_beir(collection) if isinstance(collection, Path) else collection
    runs._WORKSPACES.clear()
    return {(r.retriever): r for r in runs.make_runs([coll], out_dir=out, progress=False, lineup=lineup, **kw)}


def test_default_lineup():
    assert list(runs.LINEUP) == ["bm25-ws", "bm25-bigram", "bm25-kiwi", "bm25-mecab", "dense-e5", "dense-use",
                                 "dense-minilm", "rrf-kiwi-e5", "convex-kiwi-e5", "rerank-kiwi-e5"]
    assert {s.family for s in runs.LINEUP.values()} == {"BM25", "dense", "hybrid"}
    assert runs.LINEUP["rerank-kiwi-e5"].params["n"] == 30
    with pytest.raises(ValueError, match="already in the line-up"):
        runs.register_retriever(runs.LINEUP["bm25-ws"])
    with pytest.raises(ValueError, match="unknown input"):
        runs.register_retriever(runs.Retriever("x", "hybrid", "rrf", "", {}, ("nope",)))


def test_runs_written_then_cached(lineup, tmp_path):
    out = tmp_path / "runs"
    first = _make(lineup, out)
    assert {r.status for r in first.values()} == {"computed"}
    folder = out / "beir_small"
    for name in lineup:
        run = read_run(folder / f"{name}.run")
        assert set(run) <= {"q1", "q2", "q3", "q4"}
        info = runs.run_info("beir_small", name, out)
        assert info["retriever"] == name and info["queries"] == 4 and len(info["key"]) == 64
    bm25 = read_run(folder / "bm25-ws.run")
    assert next(iter(bm25["q1"])) == "d1"
    mtimes = {p: p.stat().st_mtime_ns for p in folder.iterdir()}
    second = _make(lineup, out)
    assert {r.status for r in second.values()} == {"cached"}
    assert {p: p.stat().st_mtime_ns for p in folder.iterdir()} == mtimes
    # what get_run returns is what the file holds
    runs._WORKSPACES.clear()
    got = runs.get_run(ck.load_beir(FIXTURE), "rrf-bigram-toy", out_dir=out, progress=False, lineup=lineup)
    assert got == read_run(folder / "rrf-bigram-toy.run")


def test_cache_miss_on_changed_text_settings_or_file(lineup, tmp_path):
    out = tmp_path / "runs"
    _make(lineup, out)
    # a changed document: every run of that collection is recomputed
    changed = tmp_path / "beir_changed"
    shutil.copytree(FIXTURE, changed)
    text = (changed / "corpus.jsonl").read_text(encoding="utf-8").replace("얼음물에", "찬물에")
    (changed / "corpus.jsonl").write_text(text, encoding="utf-8")
    coll = ck.load_beir(changed, name="beir_small")
    assert {r.status for r in _make(lineup, out, coll).values()} == {"computed"}
    # changed BM25 parameters: that retriever and the runs built on it
    lineup["bm25-bigram"].params["k1"] = 1.2
    status = {n: r.status for n, r in _make(lineup, out, coll).items()}
    assert status == {"bm25-ws": "cached", "bm25-bigram": "computed", "dense-toy": "cached",
                      "rrf-bigram-toy": "computed", "convex-bigram-toy": "computed", "rerank-bigram-toy": "computed"}
    # a damaged run file no longer matches its recorded checksum
    path = out / "beir_small" / "bm25-ws.run"
    path.write_text(path.read_text(encoding="utf-8").replace(" 1 ", " 7 ", 1), encoding="utf-8")
    assert _make(lineup, out, coll)["bm25-ws"].status == "computed"
    assert _make(lineup, out, coll, force=True)["dense-toy"].status == "computed"


def test_fusion_and_second_stage_runs(lineup, tmp_path):
    out = tmp_path / "runs"
    _make(lineup, out)
    folder = out / "beir_small"
    bigram = read_run(folder / "bm25-bigram.run")
    toy = read_run(folder / "dense-toy.run")
    expected = fusion.rrf([bigram, toy], k=60)
    got = read_run(folder / "rrf-bigram-toy.run")
    assert {q: set(d) for q, d in got.items()} == {q: set(d) for q, d in expected.items()}
    for qid, docs in expected.items():
        assert [got[qid][d] for d in docs] == pytest.approx(list(docs.values()))
    rerank = read_run(folder / "rerank-bigram-toy.run")
    top2 = fusion.candidates(bigram, 2)
    for qid, docs in rerank.items():
        assert set(docs) == set(top2[qid])


def test_refuses_unusable_collections(lineup, tmp_path):
    empty = Collection("empty", {}, {"q": "x"}, {"q": {"d": 1}}, {"corpus_note": "no text here"})
    with pytest.raises(ValueError, match="has no documents; no run can be made. no text here"):
        _make(lineup, tmp_path, empty)
    spaced = Collection("spaced", {"a b": {"title": "", "text": "토마토"}}, {"q": "토마토"}, {"q": {"a b": 1}})
    with pytest.raises(ValueError, match="trec_safe_ids"):
        _make(lineup, tmp_path, spaced)
    with pytest.raises(ValueError, match="unknown retriever"):
        runs.make_runs([ck.load_beir(FIXTURE)], ["bm25-nope"], out_dir=tmp_path, lineup=lineup)


def test_collection_hash_ignores_qrels():
    c = ck.load_beir(FIXTURE)
    h = runs.collection_hash(c)
    c.qrels["q1"]["d2"] = 1
    assert runs.collection_hash(c) == h
    c.queries["q1"] = c.queries["q1"] + " "
    assert runs.collection_hash(c) != h


def test_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    runs._WORKSPACES.clear()
    assert runs.main(["--list"]) == 0
    assert "rerank-kiwi-e5" in capsys.readouterr().out
    args = ["--collections", f"beir:{FIXTURE}", "--retrievers", "bm25-ws,bm25-bigram", "--out", str(tmp_path), "--quiet"]
    assert runs.main(args) == 0
    out = capsys.readouterr().out
    assert "beir_small     bm25-ws          computed" in out
    assert runs.main(args) == 0
    assert "bm25-bigram      cached" in capsys.readouterr().out
    assert runs.main(["--collections", "ko-strategyqa-dev", "--retrievers", "bm25-ws", "--out", str(tmp_path)]) == 2
    assert "has no documents" in capsys.readouterr().err
    info = json.loads((tmp_path / "beir_small" / "bm25-ws.json").read_text(encoding="utf-8"))
    assert info["settings"]["tokeniser"]["name"] == "ko-ws"


# ---------------------------------------------------------------- batch_top_k


def _same_up_to_ties(single, batch):
    """Same documents in the same order, except where scores are equal within 1e-9 (floating-point ties)."""
    (i1, s1), (i2, s2) = single, batch
    assert len(i1) == len(i2)
    assert np.allclose(s1, s2, rtol=0, atol=1e-9)
    for a, b, sa in zip(i1, i2, s1):
        if a != b:
            assert np.sum(np.abs(s1 - sa) <= 1e-9) > 1


@pytest.mark.parametrize("k", [1, 2, 3, 10])
def test_batch_top_k_equals_top_k(k):
    from searchgrade.retrieval import BM25Okapi, TfIdf

    coll = ck.load_beir(FIXTURE)
    tok = runs.korean.get_tokeniser("ko-bigram")
    docs = tok.batch(dense.doc_texts(coll.corpus), progress=False)
    queries = tok.batch(list(coll.queries.values()), progress=False) + [[], ["없는말"], ["토마", "토마", "도시"]]
    for model in (BM25Okapi(docs), TfIdf(docs)):
        batch = model.batch_top_k(queries, k)
        for q, got in zip(queries, batch):
            _same_up_to_ties(model.top_k(q, k), got)
    with pytest.raises(TypeError, match="token lists"):
        BM25Okapi(docs).batch_top_k(["토마토"], 3)


def test_batch_top_k_with_zero_weights_and_ties():
    from searchgrade.retrieval import BM25Okapi

    # "b" is in 2 of 4 documents: idf = ln(2.5 / 2.5) = 0, so a matched document can score 0
    docs = [["a", "b"], ["b", "c"], ["c"], ["d"]]
    model = BM25Okapi(docs)
    assert 0.0 in model.weights.data
    for q in (["b"], ["b", "c"], ["d", "b"], ["a", "d"], ["z"]):
        for k in (1, 2, 4):
            got = model.batch_top_k([q], k)[0]
            want = model.top_k(q, k)
            assert got[0].tolist() == want[0].tolist() and np.allclose(got[1], want[1])
    # identical documents tie: the earlier corpus position wins, as in top_k
    twins = BM25Okapi([["x", "y"], ["x", "y"], ["x", "y"], ["z"], ["w"]])
    assert twins.batch_top_k([["x"]], 2)[0][0].tolist() == [0, 1]


def test_get_runs_and_lineup_table(lineup, tmp_path):
    out = tmp_path / "runs"
    runs._WORKSPACES.clear()
    got = runs.get_runs(ck.load_beir(FIXTURE), ["bm25-ws", "rrf-bigram-toy"], out_dir=out, progress=False, lineup=lineup)
    assert list(got) == ["bm25-ws", "rrf-bigram-toy"]
    assert got["bm25-ws"] == read_run(out / "beir_small" / "bm25-ws.run")
    table = runs.lineup_table()
    assert list(table.index) == list(runs.LINEUP)
    assert table.loc["rrf-kiwi-e5", "inputs"] == "bm25-kiwi, dense-e5"


def test_code_fingerprint_invalidates_exactly_the_runs_that_use_the_code(monkeypatch):
    """An edit of dense.py changes the keys of dense, fusion-of-dense and rerank runs, not BM25's."""
    real = runs._code_fingerprint
    before = {name: runs._settings(spec, runs.LINEUP) for name, spec in runs.LINEUP.items()}
    monkeypatch.setattr(runs, "_code_fingerprint",
                        lambda kind: real(kind) + ("-edited" if "retrieval/dense.py" in runs._KIND_MODULES[kind] else ""))
    after = {name: runs._settings(spec, runs.LINEUP) for name, spec in runs.LINEUP.items()}
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"dense-e5", "dense-use", "dense-minilm", "rrf-kiwi-e5", "convex-kiwi-e5", "rerank-kiwi-e5"}
