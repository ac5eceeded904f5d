"""The article's Ko-StrategyQA by name (searchgrade.collections.resolve), with a stand-in for huggingface_hub.

No hub is reachable here, so `huggingface_hub.hf_hub_download` is replaced by a function that serves a
snapshot folder laid out as the hub's copy is (corpus.jsonl, queries.jsonl, qrels/dev.jsonl) and records
what it was asked for: the pinned revision, and local files only unless HF_HUB_OFFLINE=0.
"""
from __future__ import annotations

import json
import sys
import types

import pytest

from searchgrade.collections import resolve as sources

REVISION = "d243889a3eb6654029dbd7e7f9319ae31d58f97c"   # MTEB's pin of taeminlee/Ko-StrategyQA


def snapshot(tmp_path):
    """A folder shaped like the hub's snapshot: ids with spaces, train and dev queries, JSON-lines qrels."""
    root = tmp_path / "snapshots" / REVISION
    (root / "qrels").mkdir(parents=True)
    docs = [{"_id": "Tony Bennett-3", "title": "토니 베넷", "text": "토니 베넷의 본명은 앤서니 도미닉 베네데토다."},
            {"_id": "Europa (moon)-1", "title": "유로파", "text": "유로파는 목성의 위성이다."},
            {"_id": "Tomato-89", "title": "토마토", "text": "토마토는 가짓과의 식물이다."}]
    queries = [{"_id": "q-dev-1", "text": "토니 베넷의 중간 이름은 무엇인가요?"},
               {"_id": "q-dev-2", "text": "유로파는 어느 행성의 위성인가요?"},
               {"_id": "q-train-1", "text": "토마토는 과일인가요?"}]
    qrels = [{"query-id": "q-dev-1", "corpus-id": "Tony Bennett-3", "score": 1},
             {"query-id": "q-dev-2", "corpus-id": "Europa (moon)-1", "score": 1}]
    for name, rows in (("corpus.jsonl", docs), ("queries.jsonl", queries), ("qrels/dev.jsonl", qrels)):
        (root / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return root


@pytest.fixture()
def fake_hub(tmp_path, monkeypatch):
    """A stand-in huggingface_hub module; its calls are recorded in .calls."""
    root = snapshot(tmp_path)
    module = types.ModuleType("huggingface_hub")
    module.calls = []

    def hf_hub_download(repo_id, filename, repo_type=None, revision=None, local_files_only=False):
        module.calls.append((repo_id, filename, repo_type, revision, local_files_only))
        if module.fail:
            raise OSError("We have no connection or you passed local_files_only, and the file is not cached")
        return str(root / filename)

    module.hf_hub_download, module.fail = hf_hub_download, False
    monkeypatch.setitem(sys.modules, "huggingface_hub", module)
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    sources._COLLECTIONS.pop("ko-strategyqa-mteb", None)
    yield module
    sources._COLLECTIONS.pop("ko-strategyqa-mteb", None)


def test_loaded_by_name_at_the_pinned_revision(fake_hub):
    assert sources.HUB_COLLECTIONS["ko-strategyqa-mteb"].revision == REVISION
    coll = sources.load_collection("ko-strategyqa-mteb")
    assert fake_hub.calls == [("taeminlee/Ko-StrategyQA", f, "dataset", REVISION, True)
                              for f in ("corpus.jsonl", "queries.jsonl", "qrels/dev.jsonl")]
    assert coll.name == "ko-strategyqa-mteb"
    assert coll.queries == {"q-dev-1": "토니 베넷의 중간 이름은 무엇인가요?", "q-dev-2": "유로파는 어느 행성의 위성인가요?"}
    assert coll.qrels == {"q-dev-1": {"Tony_Bennett-3": 1}, "q-dev-2": {"Europa_(moon)-1": 1}}
    assert set(coll.corpus) == {"Tony_Bennett-3", "Europa_(moon)-1", "Tomato-89"}
    assert coll.meta["renamed_ids"] == {"Tony_Bennett-3": "Tony Bennett-3", "Europa_(moon)-1": "Europa (moon)-1"}
    assert coll.meta["queries_not_in_split"] == 1 and REVISION in coll.meta["source"]
    assert sources.load_collection("ko-strategyqa-mteb") is coll          # loaded once per process


def test_the_hub_is_asked_only_when_allowed(fake_hub, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    sources.load_collection("ko-strategyqa-mteb")
    assert {c[-1] for c in fake_hub.calls} == {False}


def test_offline_and_not_cached_says_how_to_get_it(fake_hub):
    fake_hub.fail = True
    with pytest.raises(RuntimeError) as info:
        sources.load_collection("ko-strategyqa-mteb")
    message = str(info.value)
    assert "HF_HUB_OFFLINE=1" in message and "huggingface-cli download taeminlee/Ko-StrategyQA" in message
    assert REVISION in message and "pass DIR instead of the name" in message


def test_without_huggingface_hub(monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    sources._COLLECTIONS.pop("ko-strategyqa-mteb", None)
    with pytest.raises(RuntimeError, match="huggingface_hub, which is not installed"):
        sources.load_collection("ko-strategyqa-mteb")


def test_the_downloaded_folder_works_by_path(fake_hub, tmp_path):
    folder = tmp_path / "snapshots" / REVISION
    coll = sources.load_collection(folder, "dev")
    assert set(coll.qrels) == {"q-dev-1", "q-dev-2"} and "Tony_Bennett-3" in coll.corpus
    assert fake_hub.calls == []
    with pytest.raises(ValueError, match="has its own split"):
        sources.load_collection("ko-strategyqa-mteb", "test")
