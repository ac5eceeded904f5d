"""One front door for collections: built-in names, the Hugging Face hub (pinned), BEIR folders.

:func:`load_collection` resolves what ``searchgrade runs --collection`` and ``searchgrade report``
are given: a :class:`~searchgrade.collections.Collection`, a name of
:func:`searchgrade.collections.load` (``korquad-dev``, ``autorag``, ...), a name of
:data:`HUB_COLLECTIONS`, ``beir:<folder>`` or a BEIR folder (``split``, default ``test``). Named
collections are fixed (checksummed raw files, pinned revisions) and loaded once per process;
folders are read again each time. :func:`collection_hash` is what a run's cache key holds of the
collection; :func:`with_queries` swaps in another set of its queries. Hub collections:

========================  ===========================================================================
name                      what it is
========================  ===========================================================================
``ko-strategyqa-mteb``    Ko-StrategyQA as MTEB evaluates it (``taeminlee/Ko-StrategyQA`` at revision
                          ``d243889a3eb6654029dbd7e7f9319ae31d58f97c``, MTEB's pin): the 9,251 Korean
                          Wikipedia paragraphs and the dev split's 592 queries, the article's collection
========================  ===========================================================================

The files are fetched with ``huggingface_hub.hf_hub_download`` (imported only when a hub
collection is asked for; it comes with sentence-transformers, in the ``retrieval`` extra). As for
models (:mod:`searchgrade.retrieval.dense`), the hub is used only when ``HF_HUB_OFFLINE=0``; otherwise
only the local Hugging Face cache is read, and a collection that is not there fails with a message
saying how to get it. Without a hub, download the three files elsewhere and pass their folder instead
of the name: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/dev.jsonl``.

The hub's copy writes its qrels as JSON lines (``qrels/dev.jsonl``: ``query-id``, ``corpus-id``,
``score``) where BEIR's loader reads ``qrels/dev.tsv``; :func:`tsv_qrels_folder` converts them into
a cached folder (content-addressed, under :func:`searchgrade.places.cache_root`) that
:func:`searchgrade.collections.load_beir` reads with all its checks. Ids containing whitespace (which
TREC run files cannot hold) are renamed with :func:`searchgrade.collections.trec_safe_ids`;
``meta["renamed_ids"]`` maps each new id to the old one.

The run engine (:mod:`searchgrade.retrieval.runs`) does not count this module's code in a run's key:
what it reads is hashed instead.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..places import cache_root, hub_offline
from ..io.errors import did_you_mean
from .base import LOADERS, Collection, CollectionFormatError, load, trec_safe_ids
from .beir import load_beir, read_jsonl

__all__ = ["load_collection", "with_queries", "collection_hash", "HubCollection", "HUB_COLLECTIONS",
           "load_hub_collection", "tsv_qrels_folder", "common_qrels", "dropped_note", "safe_ids"]


_COLLECTIONS: dict[str, Collection] = {}


def load_collection(name: str | os.PathLike | Collection, split: str | None = None,
                    intersect: bool = False) -> Collection:
    """A collection: a Collection, a built-in or hub name, ``beir:<folder>`` or a BEIR folder (``split``, default test).

    An existing folder is read as a BEIR folder, also when its name is ``beir`` (a format, not a
    collection); a bare name that is both a collection name and a folder here is refused as ambiguous
    (``beir:NAME`` or ``./NAME`` says the folder), so a folder never silently shadows a collection.
    ``intersect`` (folders only) keeps the judgments whose query and document the folder has, instead of
    refusing the folder (:func:`common_qrels`).
    """
    if isinstance(name, Collection):
        return name
    text = os.fspath(name)
    if text.startswith("beir:"):
        return _beir(text[len("beir:"):], split, intersect)
    named = text in HUB_COLLECTIONS or (text in LOADERS and text not in _FOLDER_LOADERS)
    if named and Path(text).is_dir():
        raise ValueError(f"{text!r} is both a collection name and a folder here; write beir:{text} or ./{text} for "
                         f"the folder, or run from another folder for the named collection")
    if Path(text).is_dir():
        return _beir(text, split, intersect)
    if intersect:
        raise ValueError(f"--intersect is for BEIR folders; {text!r} is a named collection, checked as it is")
    if _looks_like_path(text):
        raise FileNotFoundError(f"{text}: no such folder (a BEIR folder holds corpus.jsonl, queries.jsonl, qrels/)")
    if named:
        if split is not None:
            raise ValueError(f"the collection {text!r} has its own split; --split is for BEIR folders")
        if text not in _COLLECTIONS:  # named collections are fixed (checksummed or pinned): loaded once per process
            _COLLECTIONS[text] = (load_hub_collection(text) if text in HUB_COLLECTIONS
                                  else load(text))
        return _COLLECTIONS[text]
    raise ValueError(f"unknown collection {text!r} and no folder of that name; known: "
                     f"{', '.join(sorted(_names()))}, or a BEIR folder{did_you_mean(text, _names())}")


def with_queries(coll: Collection, path: str | os.PathLike) -> Collection:
    """The collection with its queries replaced by those of a JSON-lines file (``_id``, ``text``), e.g. a variant.

    The corpus and the judgments stay; the file must name queries of the collection (all of them or a
    subset, each once), so that runs on the two query sets pair query by query. The new collection's
    name is ``<collection>+<file stem>``; its qrels keep the file's queries only.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such queries file")
    queries: dict[str, str] = {}
    for lineno, obj in read_jsonl(path, ("_id", "text")):
        qid, text = str(obj["_id"]), obj["text"]
        if qid not in coll.queries:
            raise CollectionFormatError(path, lineno, f"query {qid!r} is not a query of {coll.name!r}: a query "
                                                      "variant keeps the collection's ids (all or a subset)")
        if qid in queries:
            raise CollectionFormatError(path, lineno, f"query {qid!r} appears twice")
        if not isinstance(text, str) or not text.strip():
            raise CollectionFormatError(path, lineno, f"query {qid!r} has no text")
        queries[qid] = text
    if not queries:
        raise CollectionFormatError(path, None, "no queries")
    meta = {**coll.meta, "queries_file": str(path.resolve()), "base_collection": coll.name}
    return Collection(f"{coll.name}+{path.stem}", coll.corpus, queries,
                      {q: rel for q, rel in coll.qrels.items() if q in queries}, meta)


_FOLDER_LOADERS = ("beir",)
"""Registered loaders that need a folder: ``beir`` names a format, not a collection."""


def _names() -> list[str]:
    """The collection names :func:`load_collection` knows (built-in and hub)."""
    return [n for n in [*LOADERS, *HUB_COLLECTIONS] if n not in _FOLDER_LOADERS]


def _looks_like_path(text: str) -> bool:
    """A string that can only mean a folder: it has a path separator or starts with '.' or '~'."""
    return "/" in text or os.sep in text or text.startswith((".", "~"))


def _beir(folder: str, split: str | None, intersect: bool = False) -> Collection:
    """A BEIR folder (qrels as TSV or JSON lines), with whitespace in ids renamed."""
    split = split or "test"
    source, dropped = tsv_qrels_folder(folder, split), None
    if intersect:
        source, dropped = common_qrels(source, split)
    coll = load_beir(source, split=split, name=Path(folder).resolve().name)
    if dropped is not None:
        coll.meta["dropped_judgments"] = dropped
    return safe_ids(coll)


def common_qrels(folder: str | os.PathLike, split: str) -> tuple[Path, dict]:
    """A BEIR folder whose qrels keep only lines naming a query and a document it has; (folder, what was dropped).

    ``folder`` itself when nothing is dropped, else a cached copy (content-addressed). What was dropped:
    ``{"lines": n, "queries": [ids not in queries.jsonl], "documents": n lines naming a missing document}``.
    """
    folder = Path(folder)
    qrels = folder / "qrels" / f"{split}.tsv"
    sources = [folder / "corpus.jsonl", folder / "queries.jsonl", qrels]
    _require(sources)
    queries = {str(o["_id"]) for _, o in read_jsonl(sources[1])}
    docs = {str(o["_id"]) for _, o in read_jsonl(sources[0])}
    lines = qrels.read_text(encoding="utf-8").splitlines()
    kept, lost_queries, lost_docs = lines[:1], set(), 0
    for line in lines[1:]:
        parts = line.split("\t")
        if len(parts) >= 2 and parts[0] not in queries:
            lost_queries.add(parts[0])
        elif len(parts) >= 2 and parts[1] not in docs:
            lost_docs += 1
        else:
            kept.append(line)
    dropped = {"lines": len(lines) - len(kept), "queries": sorted(lost_queries), "documents": lost_docs}
    if not dropped["lines"]:
        return folder, dropped
    target = _cache_root() / f"{folder.name}-common-{_digest(sources)[:16]}"
    return _cached_folder(target, sources, split, lambda: "\n".join(kept) + "\n"), dropped


def dropped_note(coll: Collection) -> str:
    """What ``intersect`` dropped from a folder's qrels, as a sentence ('' when nothing was)."""
    dropped = coll.meta.get("dropped_judgments") or {}
    if not dropped.get("lines"):
        return ""
    shown = ", ".join(dropped["queries"][:10]) + (" ..." if len(dropped["queries"]) > 10 else "")
    return (f"--intersect dropped {dropped['lines']:,} qrels lines: {len(dropped['queries']):,} queries not in "
            f"queries.jsonl ({shown or 'none'}), {dropped['documents']:,} lines naming a document not in "
            "corpus.jsonl")


def collection_hash(collection: Collection) -> str:
    """SHA-256 over the documents (id, every field) and queries (id, text) in their order; qrels do not affect runs."""
    h = hashlib.sha256()
    for docid, doc in collection.corpus.items():
        h.update(json.dumps([docid, sorted(doc.items())], ensure_ascii=False).encode("utf-8"))
        h.update(b"\n")
    h.update(b"--queries--\n")
    for qid, text in collection.queries.items():
        h.update(json.dumps([qid, text], ensure_ascii=False).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


@dataclass(frozen=True)
class HubCollection:
    """A BEIR-format data set on the hub: repository, pinned revision, split, the files to fetch, credit."""

    repo: str
    revision: str
    split: str
    files: tuple[str, ...]
    credit: str


HUB_COLLECTIONS: dict[str, HubCollection] = {
    "ko-strategyqa-mteb": HubCollection(
        repo="taeminlee/Ko-StrategyQA", revision="d243889a3eb6654029dbd7e7f9319ae31d58f97c", split="dev",
        files=("corpus.jsonl", "queries.jsonl", "qrels/dev.jsonl"),
        credit="Ko-StrategyQA (NomaDamas' Korean DeepL translation of StrategyQA, Geva et al. 2021), BEIR format "
               "by taeminlee, as MTEB evaluates it; the translation's licence is not stated"),
}


def _cache_root() -> Path:
    """Where converted folders go: ``$SEARCHGRADE_CACHE/collections`` (default ``data/cache/collections``)."""
    return cache_root() / "collections"


def _fetch(name: str, spec: HubCollection) -> Path:
    """The local snapshot folder holding the collection's files (downloaded if the hub may be used)."""
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise RuntimeError(f"the collection {name!r} is read from the Hugging Face hub with huggingface_hub, which is "
                           "not installed (pip install huggingface_hub; it comes with 'searchgrade[retrieval]')") from None
    paths = []
    for filename in spec.files:
        try:
            paths.append(Path(hf_hub_download(spec.repo, filename, repo_type="dataset", revision=spec.revision,
                                              local_files_only=hub_offline())))
        except Exception as err:  # offline, not cached, no network, no such revision: all mean "not available"
            how = ("no model hub is reachable (HF_HUB_OFFLINE=1) and it is not in the local Hugging Face cache"
                   if hub_offline() else "the hub could not be reached or has no such file")
            raise RuntimeError(
                f"the collection {name!r} ({spec.repo} @ {spec.revision[:12]}, file {filename}) is not available: "
                f"{how}. Set HF_HUB_OFFLINE=0 on a machine with access, or download {', '.join(spec.files)} "
                f"(e.g. `huggingface-cli download {spec.repo} --repo-type dataset --revision {spec.revision} "
                f"--local-dir DIR`) and pass DIR instead of the name. ({type(err).__name__}: {err})") from err
    return paths[0].parent


def load_hub_collection(name: str) -> Collection:
    """A collection of :data:`HUB_COLLECTIONS` by name, from the hub or the local Hugging Face cache."""
    if name not in HUB_COLLECTIONS:
        raise ValueError(f"unknown hub collection {name!r}; known: {', '.join(HUB_COLLECTIONS)}")
    spec = HUB_COLLECTIONS[name]
    folder = tsv_qrels_folder(_fetch(name, spec), spec.split)
    coll = load_beir(folder, split=spec.split, name=name)
    coll.meta.update({"source": f"{spec.repo} @ {spec.revision} (Hugging Face hub), split {spec.split}",
                      "hub": {"repo": spec.repo, "revision": spec.revision}, "credit": spec.credit})
    return safe_ids(coll)


def safe_ids(coll: Collection) -> Collection:
    """The collection with whitespace in its ids replaced (TREC runs cannot hold it); meta["renamed_ids"]: new -> old."""
    if not coll.meta.get("ids_with_whitespace"):
        return coll
    return trec_safe_ids(coll)[0]


def _digest(paths: list[Path]) -> str:
    """SHA-256 over the files' names and bytes."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode() + b"\0")
        with p.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def tsv_qrels_folder(folder: str | os.PathLike, split: str) -> Path:
    """``folder`` itself if it has ``qrels/<split>.tsv``; else a cached copy with ``qrels/<split>.jsonl`` written as TSV."""
    folder = Path(folder)
    tsv, jsonl = folder / "qrels" / f"{split}.tsv", folder / "qrels" / f"{split}.jsonl"
    if tsv.is_file() or not jsonl.is_file():
        return folder
    sources = [folder / "corpus.jsonl", folder / "queries.jsonl", jsonl]
    _require(sources)
    target = _cache_root() / f"{folder.name}-{_digest(sources)[:16]}"
    return _cached_folder(target, sources, split, lambda: _qrels_tsv(jsonl))


def _require(sources: list[Path]) -> None:
    """FileNotFoundError naming every source file that is missing."""
    missing = [str(p) for p in sources if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"{', '.join(missing)}: no such file")


def _cached_folder(target: Path, sources: list[Path], split: str, qrels_text) -> Path:
    """target as a BEIR folder: corpus and queries copied from sources, ``qrels/<split>.tsv`` from qrels_text().

    Written once, into a temporary folder renamed into place; an existing complete copy is reused.
    """
    if not (target / "qrels" / f"{split}.tsv").is_file():
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        (tmp / "qrels").mkdir(parents=True, exist_ok=True)
        for p in sources[:2]:
            shutil.copyfile(p, tmp / p.name)
        (tmp / "qrels" / f"{split}.tsv").write_text(qrels_text(), encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    return target


def _qrels_tsv(path: Path) -> str:
    """A JSON-lines qrels file (query-id, corpus-id, score) as BEIR's TSV text; a score must be an integer."""
    lines = ["query-id\tcorpus-id\tscore"]
    for lineno, obj in read_jsonl(path, ("query-id", "corpus-id", "score")):
        score = obj["score"]
        if isinstance(score, bool) or not isinstance(score, (int, float)) or score != int(score):
            raise CollectionFormatError(path, lineno, f"score {score!r} is not an integer")
        ids = [obj["query-id"], obj["corpus-id"]]
        if not all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in ids):
            raise CollectionFormatError(path, lineno, f"ids must be strings: {json.dumps(ids, ensure_ascii=False)}")
        if any("\t" in str(i) or "\n" in str(i) for i in ids):
            raise CollectionFormatError(path, lineno, "an id contains a tab or a newline")
        lines.append(f"{ids[0]}\t{ids[1]}\t{int(score)}")
    return "\n".join(lines) + "\n"
