"""Cached runs: the engine (searchgrade.retrieval.runs) and the book's line-up on top of it (searchgrade.book.korean_runs).

Run files, the cache (hit, miss, corruption), fusion and second-stage inputs, the folder reader and the
book's command line. A toy encoder (character counts) stands in for a model, so nothing here loads one.
"""
from __future__ import annotations

import importlib.util
import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import searchgrade as sg
from searchgrade import collections as ck
from searchgrade.book import korean_runs
from searchgrade.collections import Collection, collection_hash
from searchgrade.io import FormatError, read_run
from searchgrade.retrieval import dense, kinds, rerank
from searchgrade.retrieval import lineup as L
from searchgrade.retrieval import runs as engine
from searchgrade.retrieval import models, workspace
from searchgrade.places import cache_root
from searchgrade.io.runfolder import MANIFEST, read_runs

from tests.support.lineup import lineup_toml

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "beir_small"


class ToyEncoder(dense.Encoder):
    """Character-count embeddings over a few Hangul syllables: fast, deterministic, no model."""

    name = "toy"
    batch_size = 8
    SYLLABLES = "토마김치서울수도항구커피점수"

    def settings(self):
        return {"encoder": "toy", "syllables": self.SYLLABLES}

    def _embed(self, texts, side):
        return np.array([[t.count(s) for s in self.SYLLABLES] + [0.1] for t in texts], dtype=np.float64)


# the shared line-up, with two more fusions; its second stage reranks the top 2 of bm25-bigram
TOY_LINEUP = lineup_toml(rerank_depth=2, extra="""\
[[retriever]]
name = "convex-bigram-toy"
kind = "convex"
inputs = ["bm25-bigram", "dense-toy"]
weights = [0.5, 0.5]

[[retriever]]
name = "mnz-bigram-toy"
kind = "combmnz"
inputs = ["bm25-bigram", "dense-toy"]
normalisation = "rank"
""")


@pytest.fixture()
def lineup(monkeypatch, tmp_path):
    monkeypatch.setitem(dense.ENCODERS, "toy", ToyEncoder)
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    models._MODELS.clear()
    return dict(L.parse_lineup(TOY_LINEUP, "toy.toml").retrievers)


def _make(lineup, out, collection=FIXTURE, **kw):
    coll = ck.load_beir(collection) if isinstance(collection, Path) else collection
    workspace._WORKSPACES.clear()
    return {(r.retriever): r for r in korean_runs.make_runs([coll], out_dir=out, progress=False, lineup=lineup, **kw)}


def test_default_lineup_is_the_book_file():
    assert list(korean_runs.LINEUP) == ["bm25-ws", "bm25-bigram", "bm25-kiwi", "bm25-mecab", "dense-e5", "dense-use",
                                 "dense-minilm", "rrf-kiwi-e5", "convex-kiwi-e5", "rerank-kiwi-e5"]
    assert {s.family for s in korean_runs.LINEUP.values()} == {"BM25", "dense", "hybrid"}
    assert korean_runs.LINEUP["rerank-kiwi-e5"].params["depth"] == 30
    assert korean_runs.DEFAULT_DEPTH == 100
    assert all(s.origin.startswith(str(korean_runs.LINEUP_FILE)) for s in korean_runs.LINEUP.values())
    with pytest.raises(ValueError, match="already in the line-up"):
        korean_runs.register_retriever(korean_runs.LINEUP["bm25-ws"])
    with pytest.raises(ValueError, match="unknown input"):
        korean_runs.register_retriever(korean_runs.Retriever("x", "hybrid", "rrf", "", {}, ("nope",)))


def test_runs_written_then_cached(lineup, tmp_path):
    out = tmp_path / "runs"
    first = _make(lineup, out)
    assert {r.status for r in first.values()} == {"computed"}
    folder = out / "beir_small"
    for name in lineup:
        run = read_run(folder / f"{name}.run")
        assert set(run) <= {"q1", "q2", "q3", "q4"}
        info = korean_runs.run_info("beir_small", name, out)
        assert info["retriever"] == name and info["queries"] == 4 and len(info["key"]) == 64
        assert info["kind"] == lineup[name].kind and info["inputs"] == list(lineup[name].inputs)
    bm25 = read_run(folder / "bm25-ws.run")
    assert next(iter(bm25["q1"])) == "d1"
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["retrievers"] == list(lineup) and manifest["collection"] == "beir_small"
    mtimes = {p: p.stat().st_mtime_ns for p in folder.iterdir() if p.suffix == ".run"}
    second = _make(lineup, out)
    assert {r.status for r in second.values()} == {"cached"}
    assert {p: p.stat().st_mtime_ns for p in folder.iterdir() if p.suffix == ".run"} == mtimes
    # what get_run returns is what the file holds
    workspace._WORKSPACES.clear()
    got = korean_runs.get_run(ck.load_beir(FIXTURE), "rrf", out_dir=out, progress=False, lineup=lineup)
    assert got == read_run(folder / "rrf.run")


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
                      "rrf": "computed", "convex-bigram-toy": "computed", "mnz-bigram-toy": "computed",
                      "rerank-toy": "computed"}
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                    # queries without results in one of the runs
        expected = sg.fuse([bigram, toy], "rrf", None, {"k": 60}, depth=100)
        mnz = sg.fuse({"bm25-bigram": bigram, "dense-toy": toy}, "mnz", "rank", depth=100)
    got = read_run(folder / "rrf.run")
    assert {q: set(d) for q, d in got.items()} == {q: set(d) for q, d in expected.items() if d}
    for qid, docs in got.items():
        assert [got[qid][d] for d in expected[qid]] == pytest.approx(list(expected[qid].values()))
    assert read_run(folder / "mnz-bigram-toy.run") == {q: d for q, d in mnz.items() if d}   # scores written exactly
    reranked = read_run(folder / "rerank-toy.run")
    top2 = rerank.candidates(bigram, 2)
    for qid, docs in reranked.items():
        assert set(docs) == set(top2[qid])


def test_every_fusion_kind_and_its_warning(lineup, tmp_path):
    text = TOY_LINEUP + "".join(
        f'\n[[retriever]]\nname = "{kind}-{norm}"\nkind = "{kind}"\ninputs = ["bm25-ws", "dense-toy"]\n'
        f'normalisation = "{norm}"\nweights = [0.7, 0.3]\ndepth = 2\n'
        for kind in ("combsum", "combmax") for norm in ("min-max-one", "zmuv", "none"))
    specs = dict(L.parse_lineup(text, "more.toml").retrievers)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = _make(specs, tmp_path / "runs")
    assert any("depth=2" in str(w.message) for w in caught)      # fusion says an input list was cut
    folder = tmp_path / "runs" / "beir_small"
    ws, toy = read_run(folder / "bm25-ws.run"), read_run(folder / "dense-toy.run")
    for kind in ("combsum", "combmax"):
        for norm in ("min-max-one", "zmuv", "none"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")                # the row's run, as the engine called it
                want = kinds.KINDS[kind].run(None, specs[f"{kind}-{norm}"], 100, [ws, toy])
            got = read_run(folder / f"{kind}-{norm}.run")
            assert got == {q: d for q, d in want.items() if d}, (kind, norm)
            assert made[f"{kind}-{norm}"].status == "computed"


def test_refuses_unusable_collections(lineup, tmp_path):
    empty = Collection("empty", {}, {"q": "x"}, {"q": {"d": 1}}, {"corpus_note": "no text here"})
    with pytest.raises(ValueError, match="has no documents; no run can be made. no text here"):
        _make(lineup, tmp_path, empty)
    spaced = Collection("spaced", {"a b": {"title": "", "text": "토마토"}}, {"q": "토마토"}, {"q": {"a b": 1}})
    with pytest.raises(ValueError, match="trec_safe_ids"):
        _make(lineup, tmp_path, spaced)
    with pytest.raises(ValueError, match="unknown retriever"):
        korean_runs.make_runs([ck.load_beir(FIXTURE)], ["bm25-nope"], out_dir=tmp_path, lineup=lineup)


def test_collection_hash_ignores_qrels():
    c = ck.load_beir(FIXTURE)
    h = korean_runs.collection_hash(c)
    c.qrels["q1"]["d2"] = 1
    assert korean_runs.collection_hash(c) == h
    c.queries["q1"] = c.queries["q1"] + " "
    assert korean_runs.collection_hash(c) != h


def test_load_collection_by_name_folder_and_jsonl_qrels(tmp_path, monkeypatch):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    assert ck.load_collection(str(FIXTURE)).queries == ck.load_beir(FIXTURE).queries
    assert len(ck.load_collection(f"beir:{FIXTURE}", "dev").qrels) == 1
    # qrels as JSON lines (the hub's copies): converted into a cached TSV folder, ids with spaces renamed
    folder = tmp_path / "jsonl"
    (folder / "qrels").mkdir(parents=True)
    shutil.copy(FIXTURE / "queries.jsonl", folder / "queries.jsonl")
    corpus = (FIXTURE / "corpus.jsonl").read_text(encoding="utf-8").replace('"_id": "d1"', '"_id": "Tomato 1"')
    (folder / "corpus.jsonl").write_text(corpus, encoding="utf-8")
    (folder / "qrels" / "dev.jsonl").write_text(
        '{"query-id": "q1", "corpus-id": "Tomato 1", "score": 1}\n{"query-id": "q2", "corpus-id": "d3", "score": 2.0}\n',
        encoding="utf-8")
    coll = ck.load_collection(folder, "dev")
    assert coll.qrels == {"q1": {"Tomato_1": 1}, "q2": {"d3": 2}} and "Tomato_1" in coll.corpus
    assert coll.meta["renamed_ids"] == {"Tomato_1": "Tomato 1"}
    (folder / "qrels" / "dev.jsonl").write_text('{"query-id": "q1", "corpus-id": "d2", "score": 0.5}\n',
                                                encoding="utf-8")
    with pytest.raises(FormatError, match=r"dev\.jsonl:1: score 0\.5 is not an integer"):
        ck.load_collection(folder, "dev")
    with pytest.raises(ValueError, match="unknown collection 'no-such'"):
        ck.load_collection("no-such")


def test_read_runs_checks_checksums_and_collection(lineup, tmp_path):
    out = tmp_path / "runs"
    _make(lineup, out)
    folder = out / "beir_small"
    coll = ck.load_beir(FIXTURE)
    got = read_runs(folder, collection_hash(coll), collection_name=coll.name)
    assert list(got.runs) == list(lineup)                         # the manifest's order
    assert got.runs["bm25-ws"] == read_run(folder / "bm25-ws.run") and got.infos["bm25-ws"]["kind"] == "bm25"
    other = Collection("other", {"d1": {"title": "", "text": "x"}}, {"q1": "x"}, {"q1": {"d1": 1}})
    with pytest.raises(ValueError, match="was made on the collection 'beir_small' .* not on 'other'"):
        read_runs(folder, collection_hash(other), collection_name="other")
    with pytest.raises(ValueError, match="not on the given collection"):
        read_runs(folder, collection_hash(other))
    with pytest.raises(TypeError, match="collection_hash must be a str"):
        read_runs(folder, other)
    path = folder / "dense-toy.run"
    path.write_text(path.read_text(encoding="utf-8") + "q9 Q0 d1 1 0.5 dense-toy\n", encoding="utf-8")
    with pytest.raises(FormatError, match="differs from the checksum"):
        read_runs(folder, collection_hash(coll))
    with pytest.raises(FileNotFoundError, match="no run for nope"):
        read_runs(folder, collection_hash(coll), ["nope"])
    with pytest.raises(FileNotFoundError, match="no .run files"):
        read_runs(tmp_path, collection_hash(coll))


def test_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    workspace._WORKSPACES.clear()
    assert korean_runs.main(["--list"]) == 0
    assert "rerank-kiwi-e5" in capsys.readouterr().out
    args = ["--collections", f"beir:{FIXTURE}", "--retrievers", "bm25-ws,bm25-bigram", "--out", str(tmp_path), "--quiet"]
    assert korean_runs.main(args) == 0
    out = capsys.readouterr().out
    assert "beir_small     bm25-ws          computed" in out
    assert korean_runs.main(args) == 0
    assert "bm25-bigram      cached" in capsys.readouterr().out
    assert korean_runs.main(["--collections", "ko-strategyqa-dev", "--retrievers", "bm25-ws", "--out", str(tmp_path)]) == 2
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
    from searchgrade.retrieval import BM25Okapi, TfIdf, korean

    coll = ck.load_beir(FIXTURE)
    tok = korean.get_tokeniser("ko-bigram")
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
    workspace._WORKSPACES.clear()
    got = korean_runs.get_runs(ck.load_beir(FIXTURE), ["bm25-ws", "rrf"], out_dir=out, progress=False, lineup=lineup)
    assert list(got) == ["bm25-ws", "rrf"]
    assert got["bm25-ws"] == read_run(out / "beir_small" / "bm25-ws.run")
    table = korean_runs.lineup_table()
    assert list(table.index) == list(korean_runs.LINEUP)
    assert table.loc["rrf-kiwi-e5", "inputs"] == "bm25-kiwi, dense-e5"


def test_code_fingerprint_invalidates_exactly_the_runs_that_use_the_code(monkeypatch):
    """An edit of dense.py changes the keys of dense, fusion-of-dense and rerank runs, not BM25's."""
    real = engine._code_text
    before = {name: engine.settings(spec, korean_runs.LINEUP) for name, spec in korean_runs.LINEUP.items()}
    monkeypatch.setattr(engine, "_code_text", lambda path: real(path) + ("-edited" if path.name == "dense.py" else ""))
    after = {name: engine.settings(spec, korean_runs.LINEUP) for name, spec in korean_runs.LINEUP.items()}
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"dense-e5", "dense-use", "dense-minilm", "rrf-kiwi-e5", "convex-kiwi-e5", "rerank-kiwi-e5"}


def test_the_parser_is_not_part_of_the_key_but_the_engine_is():
    """Editing the line-up parser cannot change a run (its output, the settings, is in the key); the engine can."""
    keyed = set(engine._ENGINE) | {m for row in kinds.KINDS.values() for m in row.modules}
    readers = {f"searchgrade.retrieval.{m}" for m in ("lineup", "schema", "available")} | {
        "searchgrade.collections.resolve", "searchgrade.io.runfolder", "searchgrade.places", "searchgrade.cli.runs"}
    assert not keyed & readers
    assert {"searchgrade.retrieval.runs", "searchgrade.retrieval.kinds", "searchgrade.retrieval.tokens"} <= keyed
    assert all(importlib.util.find_spec(m) for m in keyed)   # every keyed module exists (a typo would hash "absent")
    spec = korean_runs.LINEUP["bm25-ws"]
    s = engine.settings(spec, korean_runs.LINEUP)
    assert s["params"] == spec.params and s["tokeniser"]["name"] == "ko-ws"


def test_an_english_analyser_as_bm25_tokeniser(tmp_path, monkeypatch):
    """`tokeniser` may name an analyser of searchgrade.retrieval.sparse; the run is BM25 over its terms."""
    from searchgrade.retrieval import BM25Okapi, sparse

    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    coll = Collection("english", {"d1": {"title": "Flow", "text": "boundary layers flowing past plates"},
                                  "d2": {"title": "Heat", "text": "heat transfer in slabs"},
                                  "d3": {"title": "", "text": "the plate flows"}},
                      {"q1": "flow past a plate", "q2": "transferring heat"}, {"q1": {"d1": 1}, "q2": {"d2": 1}})
    specs = L.parse_lineup('[[retriever]]\nname = "bm25-stems"\nkind = "bm25"\ntokeniser = "stems"\n', "en.toml")
    workspace._WORKSPACES.clear()
    got = engine.get_run(coll, "bm25-stems", specs, tmp_path / "runs", progress=False)
    docs = [sparse.stems(t) for t in dense.doc_texts(coll.corpus)]
    bm25 = BM25Okapi(docs)
    want = {q: {list(coll.corpus)[i]: float(s) for i, s in zip(*bm25.top_k(sparse.stems(t), 100))}
            for q, t in coll.queries.items()}
    assert got == {q: d for q, d in want.items() if d} and set(got["q1"]) == {"d1", "d3"}
    info = engine.run_info(tmp_path / "runs", "bm25-stems")
    assert info["settings"]["tokeniser"]["name"] == "stems" and "snowballstemmer" in info["settings"]["tokeniser"]


def test_code_fingerprint_ignores_docstrings_and_comments_but_not_code(tmp_path):
    from searchgrade.retrieval import runs as engine

    a = tmp_path / "a.py"
    a.write_text('"""Module doc."""\n# a comment\ndef f(x):\n    """Doc."""\n    return x + 1\n')
    base = engine._code_text(a)
    a.write_text('"""Another doc."""\ndef f(x):\n    """Changed doc."""\n    return x + 1  # new comment\n')
    assert engine._code_text(a) == base
    a.write_text('"""Module doc."""\ndef f(x):\n    """Doc."""\n    return x + 2\n')
    assert engine._code_text(a) != base


# ---------------------------------------------------------------- the `searchgrade runs` command (issue 24)

BM25_ONLY = """\
[[retriever]]
name = "{name}"
kind = "bm25"
tokeniser = "ko-bigram"
description = "{description}"
"""


def test_a_folder_named_like_a_registered_loader_is_a_folder(tmp_path, monkeypatch):
    # `--collection beir` with a folder ./beir: the folder (beir is a format, not a collection)
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    shutil.copytree(FIXTURE, tmp_path / "beir")
    monkeypatch.chdir(tmp_path)
    assert ck.load_collection("beir").queries == ck.load_beir(FIXTURE).queries
    # a bare name that is both a collection and a folder here is ambiguous: a clear error, no traceback
    shutil.copytree(FIXTURE, tmp_path / "cranfield")
    with pytest.raises(ValueError, match=r"'cranfield' is both a collection name and a folder here; write "
                                         r"beir:cranfield or \./cranfield"):
        ck.load_collection("cranfield")
    assert ck.load_collection("./cranfield").queries == ck.load_beir(FIXTURE).queries
    with pytest.raises(FileNotFoundError, match="no/such: no such folder"):
        ck.load_collection("no/such")
    with pytest.raises(ValueError, match="did you mean 'korquad-dev'"):
        ck.load_collection("KorQuAD-dev2")


def _runs_command(tmp_path, name, description=""):
    from searchgrade.cli import runs as command

    (tmp_path / "l.toml").write_text(BM25_ONLY.format(name=name, description=description), encoding="utf-8")
    workspace._WORKSPACES.clear()
    return command.main(["--lineup", str(tmp_path / "l.toml"), "--collection", str(FIXTURE),
                         "--out", str(tmp_path / "out"), "--quiet"])


def test_a_description_change_updates_the_cached_record(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    assert _runs_command(tmp_path, "bm25", "old words") == 0
    assert _runs_command(tmp_path, "bm25", "new words") == 0
    assert "cached" in capsys.readouterr().out                      # not recomputed ...
    info = json.loads((tmp_path / "out" / "bm25.json").read_text(encoding="utf-8"))
    assert info["description"] == "new words"                       # ... but described anew
    assert read_runs(tmp_path / "out").infos["bm25"]["description"] == "new words"


def test_the_output_folder_holds_exactly_the_lineup(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    assert _runs_command(tmp_path, "old-name") == 0
    assert _runs_command(tmp_path, "new-name") == 0                 # renamed: the old run is removed, and said
    assert "removed 1 run(s) of retrievers no longer in" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "out").glob("*.run")) == ["new-name.run"]
    assert not (tmp_path / "out" / "old-name.json").exists()
    # a .run that `searchgrade runs` did not make is never deleted: the folder is refused
    (tmp_path / "out" / "mine.run").write_text("q1 Q0 d1 1 1.0 x\n", encoding="utf-8")
    assert _runs_command(tmp_path, "new-name") == 2
    assert "holds runs that `searchgrade runs` did not make (mine.run" in capsys.readouterr().err
    assert (tmp_path / "out" / "mine.run").exists()


def test_the_commands_cache_in_the_users_cache_folder(tmp_path, monkeypatch, capsys):
    from searchgrade.cli import runs as command

    monkeypatch.delenv("SEARCHGRADE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    seen = []
    real = engine.make_runs                                          # the command reads it from the engine
    monkeypatch.setattr(engine, "make_runs", lambda *a, **k: (seen.append(cache_root()), real(*a, **k))[1])
    assert _runs_command(tmp_path, "bm25") == 0
    assert seen == [tmp_path / "xdg" / "searchgrade"]
    assert "SEARCHGRADE_CACHE" not in __import__("os").environ          # restored after the command
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "mine"))      # an explicit folder wins
    assert _runs_command(tmp_path, "bm25") == 0 and seen[-1] == tmp_path / "mine"
    with pytest.raises(SystemExit):
        command.main(["--help"])
    assert "$XDG_CACHE_HOME/searchgrade" in capsys.readouterr().out.replace("\n", " ")


def test_searchgrade_help_lists_one_subcommand_per_line(capsys):
    from searchgrade.__main__ import main

    with pytest.raises(SystemExit):
        main(["--help"])
    lines = capsys.readouterr().out.splitlines()
    for name in ("trec_eval", "runs", "report"):
        assert any(line.split()[:1] == [name] for line in lines), name
        assert any(line.strip().startswith(f"searchgrade {name} ") for line in lines), name


def _folder_with_strays(tmp_path, monkeypatch, extra: str):
    """A copy of the BEIR fixture whose qrels end with ``extra`` (judgments the folder cannot back), cache in tmp."""
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "mine"
    shutil.copytree(FIXTURE, folder)
    qrels = folder / "qrels" / "test.tsv"
    qrels.write_text(qrels.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return folder


def test_intersect_keeps_the_judgments_of_common_queries_and_says_what_it_dropped(tmp_path, monkeypatch, capsys):
    from searchgrade.cli import runs as command

    folder = _folder_with_strays(tmp_path, monkeypatch, "q99\td1\t1\nq1\tno-such-doc\t1\n")
    with pytest.raises(FormatError):
        ck.load_collection(folder)                                  # refused by default, as before
    coll = ck.load_collection(folder, intersect=True)
    assert coll.meta["dropped_judgments"] == {"lines": 2, "queries": ["q99"], "documents": 1}
    assert coll.qrels == ck.load_beir(FIXTURE).qrels
    (tmp_path / "l.toml").write_text(BM25_ONLY.format(name="b", description=""), encoding="utf-8")
    workspace._WORKSPACES.clear()
    assert command.main(["--lineup", str(tmp_path / "l.toml"), "--collection", str(folder), "--out",
                         str(tmp_path / "out"), "--intersect", "--quiet"]) == 0
    assert "--intersect dropped 2 qrels lines: 1 queries not in queries.jsonl (q99), 1 lines naming a document" \
        in capsys.readouterr().err
    with pytest.raises(ValueError, match="--intersect is for BEIR folders"):
        ck.load_collection("cranfield", intersect=True)


def test_report_of_an_intersected_folder_says_what_was_dropped_once(tmp_path, monkeypatch, capsys):
    """`searchgrade report --intersect` prints the note once; the library's write_report warns instead of printing."""
    from searchgrade.cli import runs as command
    from searchgrade.cli.report import main as report_main
    from searchgrade.report import write_report

    folder = _folder_with_strays(tmp_path, monkeypatch, "q99\td1\t1\n")
    (tmp_path / "l.toml").write_text(BM25_ONLY.format(name="b", description=""), encoding="utf-8")
    workspace._WORKSPACES.clear()
    assert command.main(["--lineup", str(tmp_path / "l.toml"), "--collection", str(folder), "--out",
                         str(tmp_path / "out"), "--intersect", "--quiet"]) == 0
    capsys.readouterr()
    assert report_main(["--collection", str(folder), "--runs", str(tmp_path / "out"), "--intersect", "--out",
                        str(tmp_path / "r.html"), "--n-perm", "50", "--quiet", "--no-font"]) == 0
    err = capsys.readouterr().err
    assert err.count("note: --intersect dropped 1 qrels lines: 1 queries not in queries.jsonl (q99)") == 1
    with pytest.warns(UserWarning, match=r"^--intersect dropped 1 qrels lines"):
        write_report(folder, tmp_path / "out", tmp_path / "r2.html", intersect=True, n_perm=50, font=False)
    assert "dropped" not in capsys.readouterr().err
