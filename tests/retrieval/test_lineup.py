"""Line-up files (searchgrade.retrieval.lineup): what they may say, what is refused and how the refusal reads."""
from __future__ import annotations

import pickle
import textwrap
from pathlib import Path

import pytest

from searchgrade.io.errors import did_you_mean
from searchgrade.retrieval import dense
from searchgrade.retrieval import available
from searchgrade.retrieval import lineup as L

ROOT = Path(__file__).resolve().parents[2]
LINEUPS = ROOT / "lineups"

GOOD = """\
[lineup]
name = "mine"
depth = 50

[[retriever]]
name = "bm25"
kind = "bm25"
tokeniser = "ko-bigram"
k1 = 1

[[retriever]]
name = "dense"
kind = "dense"
model = "some/model"
query_prefix = "query: "

[[retriever]]
name = "fused"
kind = "combmnz"
inputs = ["bm25", "dense"]
normalisation = "zmuv"
weights = [2, 1]

[[retriever]]
name = "second"
kind = "rerank"
inputs = ["fused"]
depth = 20
model = "cross/encoder"
max_length = 256
"""


def write(tmp_path, text, name="lineup.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def refused(tmp_path, text, **kw) -> L.LineupError:
    path = write(tmp_path, text)
    with pytest.raises(L.LineupError) as info:
        L.read_lineup(path, **kw)
    assert str(info.value).startswith(str(path)), str(info.value)
    return info.value


def test_a_good_file_is_read_with_every_default_written_out(tmp_path):
    lu = L.read_lineup(write(tmp_path, GOOD))
    assert (lu.name, lu.depth) == ("mine", 50)
    assert list(lu.retrievers) == ["bm25", "dense", "fused", "second"]
    bm25, dn, fused, second = lu.retrievers.values()
    assert bm25.params == {"tokeniser": "ko-bigram", "k1": 1.0, "b": 0.75, "epsilon": 0.25, "fields": ["title", "text"]}
    assert bm25.family == "BM25" and dn.family == "dense" and fused.family == "hybrid"
    assert dn.params == {"model": "some/model", "query_prefix": "query: ", "document_prefix": "", "device": "cpu",
                         "batch_size": 32, "max_seq_length": None, "trust_remote_code": False,
                         "fields": ["title", "text"]}
    assert fused.inputs == ("bm25", "dense") and fused.params == {"normalisation": "zmuv", "weights": [2.0, 1.0],
                                                                  "depth": None}
    assert second.params["scorer"] == "cross-encoder" and second.params["max_length"] == 256
    assert "query_prefix" not in second.params           # a cross-encoder has no prefixes
    assert bm25.origin == f"{tmp_path / 'lineup.toml'}:5"
    assert lu.line("dense", "query_prefix") == 15


def test_the_book_file_is_the_book_lineup():
    from searchgrade.book import korean_runs

    lu = L.read_lineup(LINEUPS / "book.toml")
    assert korean_runs.LINEUP_FILE == LINEUPS / "book.toml"
    assert list(korean_runs.LINEUP) == list(lu.retrievers) == [
        "bm25-ws", "bm25-bigram", "bm25-kiwi", "bm25-mecab", "dense-e5", "dense-use", "dense-minilm",
        "rrf-kiwi-e5", "convex-kiwi-e5", "rerank-kiwi-e5"]
    assert {n: (s.kind, s.params, s.inputs) for n, s in korean_runs.LINEUP.items()} == \
        {n: (s.kind, s.params, s.inputs) for n, s in lu.retrievers.items()}
    assert lu.retrievers["rerank-kiwi-e5"].params == {"depth": 30, "scorer": "bi-encoder", "model": "e5",
                                                      "fields": ["title", "text"]}
    assert lu.retrievers["convex-kiwi-e5"].params == {"weights": [0.5, 0.5]}
    assert lu.retrievers["rrf-kiwi-e5"].params == {"k": 60.0, "weights": None}
    assert all(s.params.get("k1", 1.5) == 1.5 for s in lu.retrievers.values())


def test_the_article_file_holds_the_article_models():
    lu = L.read_lineup(LINEUPS / "article.toml")
    assert lu.collection == "ko-strategyqa-mteb" and lu.depth == 100
    models = {s.params["model"] for s in lu.retrievers.values() if "model" in s.params}
    assert models == {"intfloat/multilingual-e5-small", "Qwen/Qwen3-Embedding-0.6B", "BAAI/bge-m3",
                      "nlpai-lab/KURE-v1", "BAAI/bge-reranker-v2-m3"}
    assert sorted(s.params["tokeniser"] for s in lu.retrievers.values() if s.kind == "bm25") == \
        ["ko-bigram", "ko-kiwi", "ko-ws"]
    rerank = lu.retrievers["rerank-bge-m3"]
    assert rerank.inputs == ("dense-bge-m3",) and rerank.params["depth"] == 30
    assert rerank.params["scorer"] == "cross-encoder"
    assert set(lu.retrievers["rrf-bge-m3-kiwi"].inputs) == {"dense-bge-m3", "bm25-kiwi"}
    e5 = lu.retrievers["dense-e5-small"].params
    assert (e5["query_prefix"], e5["document_prefix"]) == ("query: ", "passage: ")


@pytest.mark.parametrize("text, retriever, key, line, words", [
    ("[[retriever]]\nname = 'a'\nkind = 'bm25'\ntokeniser = 'ko-ws'\nk3 = 1\n", "a", "k3", 5, "unknown key"),
    ("[[retriever]]\nname = 'a'\nkind = 'bm26'\n", "a", "kind", 3, "unknown kind 'bm26'"),
    ("[[retriever]]\nname = 'a'\nkind = 'bm25'\n", "a", None, 1, "missing the key 'tokeniser'"),
    ("[[retriever]]\nname = 'a'\nkind = 'bm25'\ntokeniser = 'ko-nope'\n", "a", "tokeniser", 4, "unknown tokeniser"),
    ("[[retriever]]\nname = 'a'\nkind = 'bm25'\ntokeniser = 'ko-ws'\nk1 = '1.5'\n", "a", "k1", 5, "must be a number"),
    ("[[retriever]]\nname = 'a'\nkind = 'rrf'\ninputs = ['x', 'y']\n", "a", "inputs", 4, "unknown input 'x'"),
    ("[[retriever]]\nname = 'a'\nkind = 'rrf'\ninputs = ['a', 'b']\n[[retriever]]\nname = 'b'\nkind = 'bm25'\n"
     "tokeniser = 'ko-ws'\n", "a", "inputs", 4, "its own input"),
    ("[[retriever]]\nname = 'a'\nkind = 'convex'\ninputs = ['b', 'c']\nweights = [0.5, 0.6]\n"
     "[[retriever]]\nname = 'b'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n"
     "[[retriever]]\nname = 'c'\nkind = 'bm25'\ntokeniser = 'ko-bigram'\n", "a", "weights", 5, "sum to 1"),
    ("[[retriever]]\nname = 'a'\nkind = 'combsum'\ninputs = ['b', 'c']\nnormalisation = 'minimax'\n"
     "[[retriever]]\nname = 'b'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n"
     "[[retriever]]\nname = 'c'\nkind = 'bm25'\ntokeniser = 'ko-bigram'\n", "a", "normalisation", 5,
     "min-max, min-max-inverted, max, sum, zmuv, rank, min-max-one, none"),
    ("[[retriever]]\nname = 'a'\nkind = 'combsum'\ninputs = ['b', 'c']\n"
     "[[retriever]]\nname = 'b'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n"
     "[[retriever]]\nname = 'c'\nkind = 'bm25'\ntokeniser = 'ko-bigram'\n", "a", None, 1, "'normalisation'"),
    ("[[retriever]]\nname = 'r'\nkind = 'rerank'\ninputs = ['b', 'c']\ndepth = 10\nmodel = 'x/y'\n", "r", "inputs", 4,
     "exactly one first stage"),
    ("[[retriever]]\nname = 'r'\nkind = 'rerank'\ninputs = ['b']\ndepth = 101\nmodel = 'x/y'\n"
     "[[retriever]]\nname = 'b'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n", "r", "depth", 5, "line-up's depth of 100"),
    ("[[retriever]]\nname = 'r'\nkind = 'rerank'\ninputs = ['b']\ndepth = 10\nmodel = 'x/y'\nquery_prefix = 'q'\n"
     "[[retriever]]\nname = 'b'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n", "r", "query_prefix", 7, "cross-encoder"),
    ("[[retriever]]\nname = 'r'\nkind = 'rerank'\ninputs = ['b']\ndepth = 10\nmodel = 'e5'\n"
     "[[retriever]]\nname = 'b'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n", "r", "model", 6, "not a cross-encoder"),
    ("[[retriever]]\nname = 'd'\nkind = 'dense'\nmodel = 'e5'\nquery_prefix = 'q: '\n", "d", "query_prefix", 5,
     "fixed settings"),
    ("[[retriever]]\nname = 'd'\nkind = 'dense'\nmodel = 'x/y'\ndevice = 'gpu'\n", "d", "device", 5, "cpu, cuda"),
    ("[[retriever]]\nname = 'd'\nkind = 'dense'\nmodel = 'x/y'\nbatch_size = 0\n", "d", "batch_size", 5, "positive"),
    ("[[retriever]]\nname = 'a/b'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n", "a/b", "name", 2, "file name"),
    ("[[retriever]]\nname = 'a'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n[[retriever]]\nname = 'a'\nkind = 'bm25'\n"
     "tokeniser = 'ko-bigram'\n", "a", "name", 6, "used twice (first at line 1)"),
])
def test_bad_files_are_refused_naming_file_line_retriever_and_key(tmp_path, text, retriever, key, line, words):
    err = refused(tmp_path, text)
    assert (err.retriever, err.key, err.line) == (retriever, key, line)
    assert words in err.problem
    assert str(err) == f"{tmp_path / 'lineup.toml'}:{line}: {err.problem}"
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err) and again.key == key


@pytest.mark.parametrize("text, line, words", [
    ("[[retriever]]\nname = 'a'\nkind = = 'bm25'\n", 3, "not valid TOML"),
    ("[lineup]\ndepth = 'deep'\n[[retriever]]\nname = 'a'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n", 2, "depth must be"),
    ("[lineup]\nseed = 1\n[[retriever]]\nname = 'a'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n", 2, "unknown key 'seed'"),
    ("[runs]\nx = 1\n", 1, "unknown table or key 'runs'"),
    ("[lineup]\nname = 'x'\n", None, "no [[retriever]] tables"),
    ("[retriever]\nname = 'a'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n", 1, "double brackets"),
    ("[[retriever]]\nname = 'a'\nkind = 'rrf'\ninputs = ['b', 'c']\n[[retriever]]\nname = 'b'\nkind = 'rrf'\n"
     "inputs = ['a', 'c']\n[[retriever]]\nname = 'c'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n", 4, "cycle: a -> b -> a"),
])
def test_bad_files_at_file_level(tmp_path, text, line, words):
    err = refused(tmp_path, text)
    assert err.line == line and words in str(err), str(err)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no-such.toml: no such line-up file"):
        L.read_lineup(tmp_path / "no-such.toml")


def test_model_map_and_device_override(tmp_path):
    path = write(tmp_path, GOOD)
    lu = L.read_lineup(path, {"some/model": str(tmp_path), "cross/encoder": "/models/x"}, device="cuda:1")
    assert lu.retrievers["dense"].params["model"] == str(tmp_path)
    assert lu.retrievers["dense"].params["device"] == "cuda:1"
    assert lu.retrievers["dense"].overrides == {"model": {"from": "some/model", "to": str(tmp_path)},
                                                "device": {"from": "cpu", "to": "cuda:1"}}
    assert lu.retrievers["bm25"].overrides == {}
    err = refused(tmp_path, GOOD, model_map={"BAAI/bge-m3": "/x"})
    assert "no retriever uses: BAAI/bge-m3" in str(err)
    assert L.parse_model_map(["a/b=/x", "c = /y"]) == {"a/b": "/x", "c": "/y"}
    for bad in (["a/b"], ["=/x"], ["a=/x", "a=/y"]):
        with pytest.raises(ValueError, match="--model-map"):
            L.parse_model_map(bad)


def test_models_that_cannot_be_loaded_offline_are_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))          # an empty Hugging Face cache
    import huggingface_hub.constants as hc

    monkeypatch.setattr(hc, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    path = write(tmp_path, GOOD)
    lu = L.read_lineup(path)
    with pytest.raises(L.LineupError) as info:
        L.check_available(lu)
    err = info.value
    assert (err.path, err.line, err.retriever, err.key) == (str(path), 14, "dense", "model")
    assert "not in the local Hugging Face cache" in err.problem and "--model-map" in err.problem
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(L.LineupError, match="holds no model"):
        L.check_available(L.read_lineup(path, {"some/model": str(empty)}), ["dense"])
    with pytest.raises(L.LineupError, match="no such folder"):
        L.check_available(L.read_lineup(path, {"some/model": str(tmp_path / "nope" / "x")}), ["dense"])
    mini = L.read_lineup(path, {"some/model": str(dense.minilm_path())})
    L.check_available(mini, ["bm25", "dense"])                   # a real folder passes
    monkeypatch.setattr(available, "cuda_available", lambda: False)
    with pytest.raises(L.LineupError) as info:
        L.check_available(L.read_lineup(path, {"some/model": str(dense.minilm_path())}, device="cuda"), ["dense"])
    assert info.value.key == "device" and "no CUDA device" in info.value.problem


def test_missing_tokeniser_packages_are_refused(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "kiwipiepy" else real(name, *a))
    path = write(tmp_path, "[[retriever]]\nname = 'k'\nkind = 'bm25'\ntokeniser = 'ko-kiwi'\n")
    with pytest.raises(L.LineupError) as info:
        L.check_available(L.read_lineup(path))
    assert (info.value.key, info.value.line) == ("tokeniser", 4) and "kiwipiepy" in info.value.problem


def test_retriever_from_python_uses_the_same_rules():
    spec = L.retriever(name="b", kind="bm25", tokeniser="ko-ws")
    assert spec.params["k1"] == 1.5 and spec.origin == "<python>"
    with pytest.raises(L.LineupError, match="unknown key for kind 'bm25'"):
        L.retriever(name="b", kind="bm25", tokeniser="ko-ws", model="x")


def test_did_you_mean(tmp_path, monkeypatch):
    err = refused(tmp_path, "[[retriever]]\nname = 'k'\nkind = 'bm25'\ntokenizer = 'ko-kiwi'\n")
    assert err.key == "tokenizer" and "did you mean 'tokeniser'?" in err.problem
    err = refused(tmp_path, "[[retriever]]\nname = 'k'\nkind = 'BM25'\ntokeniser = 'ko-kiwi'\n")
    assert "did you mean 'bm25'?" in err.problem
    err = refused(tmp_path, "[[retriever]]\nname = 'k'\nkind = 'bm25'\ntokeniser = 'ko_kiwi'\n")
    assert "did you mean 'ko-kiwi'?" in err.problem
    # `model = "USE"` is looked up on the hub; the message points at the built-in encoder `use`
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import huggingface_hub.constants as hc

    monkeypatch.setattr(hc, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    path = write(tmp_path, "[[retriever]]\nname = 'u'\nkind = 'dense'\nmodel = 'USE'\n")
    with pytest.raises(L.LineupError, match="did you mean 'use'.*searchgrade.retrieval.dense"):
        L.check_available(L.read_lineup(path))
    assert did_you_mean("zzz", ["bm25"]) == ""


def test_device_cuda_without_cuda_is_refused_even_for_fixed_encoders(tmp_path, monkeypatch, capsys):
    path = write(tmp_path, "[[retriever]]\nname = 'e'\nkind = 'dense'\nmodel = 'e5'\n"
                           "[[retriever]]\nname = 'b'\nkind = 'bm25'\ntokeniser = 'ko-ws'\n")
    lu = L.read_lineup(path, device="cuda")
    assert lu.fixed_device == ["e"] and "device" not in lu.retrievers["e"].params   # e5 has fixed settings
    monkeypatch.setattr(available, "cuda_available", lambda: False)
    with pytest.raises(L.LineupError, match=r"--device cuda: no CUDA device here \(torch.cuda.is_available\(\)"):
        L.check_available(lu)
    monkeypatch.setattr(available, "cuda_available", lambda: True)
    from searchgrade.cli import runs as command

    monkeypatch.setattr(L, "check_available", lambda *a, **k: None)   # the command reads it from the line-up module
    fixture = ROOT / "tests" / "fixtures" / "beir_small"
    assert command.main(["--lineup", str(path), "--collection", str(fixture), "--out", str(tmp_path / "o"),
                         "--device", "cuda", "--check"]) == 0
    assert "--device cuda does not apply to e" in capsys.readouterr().err
    with pytest.raises(ValueError, match="--device must be"):
        L.read_lineup(path, device="gpu")
