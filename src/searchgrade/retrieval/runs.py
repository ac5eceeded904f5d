"""Cached TREC runs of any line-up on any collection: the engine of ``searchgrade runs`` and of ``make runs``.

A line-up (:mod:`.lineup`, from a TOML file or built in Python) names retrievers; this module
computes each one's run on a collection and writes it into one folder::

    DIR/<retriever>.run     TREC format, top ``depth`` documents per query, run name = retriever name
    DIR/<retriever>.json    the cache key, the full settings, the file's SHA-256, seconds, counts
    DIR/lineup.json         the line-up's order and origin (what ``searchgrade report`` reads first)

The cache key is a SHA-256 of the collection's documents and queries (:func:`collection_hash`;
qrels do not change a run), the retriever's settings (every parameter, the versions and
fingerprints of its tokeniser or models, and recursively those of its inputs), the depth, and
the code that computes it: this module plus the modules of its kind (:mod:`.sparse` and
:mod:`.korean` for BM25, :mod:`.dense` for encoders, :mod:`.fusion` for fusion and second
stages). A run whose key and checksum match is read back instead of recomputed; a damaged file,
a changed text, setting, model folder or module recomputes exactly the runs it affects. The code
that only reads or describes runs lives elsewhere, so editing it recomputes nothing: the line-up
parser (:mod:`.lineup`, whose output, the settings, is in the key), collection sources
(:mod:`.sources`, whose output is hashed), the folder reader (:mod:`.runfolder`) and the command
line (:mod:`.command`, ``searchgrade runs``).

Models load offline unless ``HF_HUB_OFFLINE=0``; torch is seeded (0) while a cross-encoder is
loaded, so a classification head that the checkpoint lacks is initialised the same way each time.
:mod:`searchgrade.book.runs` is the book's line-up on top of this engine.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..checksums import sha256 as _checksum
from ..collections import Collection
from ..io import read_run, write_run
from . import dense, fusion, korean
from .lineup import DEFAULT_DEPTH, Lineup, Retriever
from .sources import collection_hash, load_collection

__all__ = [
    "Run",
    "RunRecord",
    "load_collection",
    "collection_hash",
    "settings",
    "run_key",
    "run_info",
    "get_run",
    "get_runs",
    "make_runs",
    "write_manifest",
    "MANIFEST",
]

Run = dict[str, dict[str, float]]
MANIFEST = "lineup.json"


# --------------------------------------------------------------------------- models and settings

_MODELS: dict[str, object] = {}  # encoders, cross-encoders and analysers of this process, by their settings


class _Analyser(korean.Tokeniser):
    """An analyser of :mod:`.sparse` (``words``, ``stems``, ...) used as a BM25 tokeniser."""

    def __init__(self, name: str):
        from . import sparse

        self.name, self._fn = name, sparse.get_analyser(name)

    def __call__(self, text: str) -> list[str]:
        """Terms of one text."""
        return self._fn(text)

    def settings(self) -> dict:
        """Its name and the stemmer's version (the code is in the run key's fingerprint)."""
        from .dense import _version

        return {"name": self.name, "analyser": "searchgrade.retrieval.sparse",
                "snowballstemmer": _version("snowballstemmer")}


def _tokeniser(name: str) -> korean.Tokeniser:
    """A Korean tokeniser or a sparse analyser by name."""
    return korean.get_tokeniser(name) if name in korean.TOKENISERS else _MODELS.setdefault(f"analyser {name}",
                                                                                            _Analyser(name))


def _encoder(p: Mapping) -> dense.Encoder:
    """The bi-encoder of a dense retriever or bi-encoder scorer (one instance per settings in this process)."""
    if p["model"] in dense.ENCODERS:
        key = f"encoder {p['model']}"
        if key not in _MODELS:
            _MODELS[key] = dense.get_encoder(p["model"])
        return _MODELS[key]
    options = {k: p.get(k, d) for k, d in (("query_prefix", ""), ("document_prefix", ""), ("batch_size", 32),
                                           ("max_seq_length", None), ("device", "cpu"), ("trust_remote_code", False))}
    key = "st " + json.dumps([p["model"], options], sort_keys=True)
    if key not in _MODELS:
        _MODELS[key] = dense.SentenceTransformerEncoder(p["model"], **options)
    return _MODELS[key]


def _cross_encoder(p: Mapping) -> dense.CrossEncoderScorer:
    """The cross-encoder of a rerank stage (one instance per settings in this process)."""
    options = {"batch_size": p.get("batch_size", 32), "max_length": p.get("max_length"), "device": p.get("device", "cpu")}
    key = "cross " + json.dumps([p["model"], options], sort_keys=True)
    if key not in _MODELS:
        _MODELS[key] = dense.CrossEncoderScorer(p["model"], **options)
    return _MODELS[key]


def _bi_encoder_scorer(p: Mapping) -> bool:
    """Does this rerank stage score with a bi-encoder (else a cross-encoder)?"""
    return p.get("scorer", "cross-encoder") == "bi-encoder"


# The modules whose code decides a run's values, per kind (this module counts for every kind). io, which
# writes and reads the files, is not among them: scores are written with repr and read back exactly.
_ENGINE = "retrieval/runs.py"
_KIND_MODULES = {
    "bm25": ("retrieval/sparse.py", "retrieval/korean.py"),
    "dense": ("retrieval/dense.py",),
    **{kind: ("retrieval/fusion.py",) for kind in ("rrf", "convex", "combsum", "combmnz", "combmax")},
    "rerank": ("retrieval/fusion.py", "retrieval/dense.py"),
}


def _code_fingerprint(kind: str) -> str:
    """SHA-256 of the code that computes a run of this kind (so an edited module invalidates exactly its runs).

    The modules are hashed as syntax trees without their docstrings, so editing a docstring or a
    comment does not recompute any run; any change to the code itself does.
    """
    here = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for name in (_ENGINE, *_KIND_MODULES[kind]):
        path = here / name
        h.update(name.encode())
        h.update(_code_text(path).encode() if path.is_file() else b"absent")
    return h.hexdigest()


def _code_text(path: Path) -> str:
    """A module's code as a canonical dump of its syntax tree, docstrings and comments left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


def settings(spec: Retriever, lineup: Mapping[str, Retriever]) -> dict:
    """A retriever's full settings: its parameters, the versions and fingerprints behind them, its inputs' settings."""
    p = spec.params
    out = {"name": spec.name, "kind": spec.kind, "params": p, "code": _code_fingerprint(spec.kind)}
    if spec.kind == "bm25":
        out["tokeniser"] = _tokeniser(p["tokeniser"]).settings()
    elif spec.kind == "dense":
        out["encoder"] = _encoder(p).settings()
    elif spec.kind == "rerank":
        out["scorer"] = (_encoder(p) if _bi_encoder_scorer(p) else _cross_encoder(p)).settings()
    out["inputs"] = [settings(lineup[i], lineup) for i in spec.inputs]
    return out


def _package_fingerprint() -> dict:
    """searchgrade's version (each retriever's settings carry the fingerprint of its own code)."""
    from .. import __version__

    return {"searchgrade": __version__}


def _sha(obj) -> str:
    """SHA-256 of an object's canonical JSON."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def run_key(collection_sha: str, spec_settings: dict, depth: int) -> str:
    """The cache key of one run: collection hash, settings, depth and package version."""
    return _sha({"collection": collection_sha, "retriever": spec_settings, "depth": depth,
                 "package": _package_fingerprint()})


# --------------------------------------------------------------------------- computing runs


class _Workspace:
    """Per-collection memo: document texts, token lists, dense indexes and finished runs."""

    def __init__(self, collection: Collection, progress: bool):
        if not collection.corpus:
            note = collection.meta.get("corpus_note", "")
            raise ValueError(f"collection {collection.name!r} has no documents; no run can be made. {note}".strip())
        spaced = [i for i in list(collection.corpus) + list(collection.queries) if any(c.isspace() for c in i)]
        if spaced:
            raise ValueError(f"collection {collection.name!r}: {len(spaced)} ids contain whitespace (e.g. {spaced[0]!r}), "
                             f"which TREC run files cannot hold; rename them with searchgrade.collections.trec_safe_ids")
        self.collection, self.progress = collection, progress
        self.hash = collection_hash(collection)
        self.docids = list(collection.corpus)
        self.tokens: dict[tuple, list[list[str]]] = {}
        self.dense: dict[tuple, dense.DenseIndex] = {}
        self.runs: dict[tuple[str, str], Run] = {}

    def doc_texts(self, fields: Sequence[str]) -> list[str]:
        """Document texts (fields joined by a newline), in corpus order."""
        return dense.doc_texts(self.collection.corpus, fields)

    def dense_index(self, encoder: dense.Encoder, fields: Sequence[str]) -> dense.DenseIndex:
        """The (memoised) dense index of this collection for an encoder."""
        key = (json.dumps(encoder.settings(), sort_keys=True), tuple(fields))
        if key not in self.dense:
            self.dense[key] = dense.DenseIndex(encoder, self.collection.corpus, fields, progress=self.progress)
        return self.dense[key]


_WORKSPACES: dict[str, _Workspace] = {}


def _workspace(collection: Collection, progress: bool) -> _Workspace:
    """A memoised workspace per collection content (so notebooks reuse token lists and embeddings)."""
    h = collection_hash(collection)
    ws = _WORKSPACES.get(h)
    if ws is None or ws.collection.name != collection.name:
        ws = _WORKSPACES[h] = _Workspace(collection, progress)
    ws.progress = progress
    return ws


def _bm25_run(ws: _Workspace, p: Mapping, depth: int) -> Run:
    """BM25 (rank_bm25's Okapi variant) over a tokeniser."""
    from .sparse import BM25Okapi

    tok = _tokeniser(p["tokeniser"])
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


def _seeded_load(scorer: dense.CrossEncoderScorer) -> None:
    """Load a cross-encoder with torch seeded, so weights it lacks (a new classification head) are always the same."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        scorer.model  # noqa: B018  (loads it)


def _rerank(ws: _Workspace, spec: Retriever, depth: int, first: Run) -> Run:
    """A second stage: the first stage's top ``depth`` candidates re-scored by a bi- or cross-encoder."""
    p, coll = spec.params, ws.collection
    if _bi_encoder_scorer(p):
        scorer = ws.dense_index(_encoder(p), p["fields"]).scorer(coll.queries)
    else:
        cross = _cross_encoder(p)
        _seeded_load(cross)
        scorer = cross.scorer(coll.queries, coll.corpus, p["fields"])
    return fusion.rerank(first, scorer, n=min(p["depth"], depth), progress=ws.progress)


def _compute(ws: _Workspace, spec: Retriever, depth: int, inputs: list[Run]) -> Run:
    """The run of one retriever on one collection (inputs already computed)."""
    p = spec.params
    if spec.kind == "bm25":
        return _bm25_run(ws, p, depth)
    if spec.kind == "dense":
        return ws.dense_index(_encoder(p), p["fields"]).search(ws.collection.queries, depth)
    if spec.kind == "rrf":
        return fusion.rrf(inputs, k=p.get("k", 60), weights=p.get("weights"), depth=depth)
    if spec.kind == "convex":
        return fusion.convex(inputs, p["weights"], depth=depth)
    if spec.kind in ("combsum", "combmnz", "combmax"):
        named = dict(zip(spec.inputs, inputs))
        weights = dict(zip(spec.inputs, p["weights"])) if p.get("weights") else None
        return getattr(fusion, spec.kind)(named, weights, normalisation=p["normalisation"],
                                          depth=p.get("depth") or depth)
    if spec.kind == "rerank":
        return _rerank(ws, spec, depth, inputs[0])
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


def run_info(folder: str | os.PathLike, retriever: str) -> dict | None:
    """The sidecar record (settings, seconds, checksum) of a written run, or None if there is none."""
    path = Path(folder) / f"{retriever}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _cached(ws: _Workspace, name: str, run_path: Path, info_path: Path, key: str) -> tuple[Run, dict] | None:
    """The run read back from disk if its recorded key and checksum match, else None."""
    if not (run_path.is_file() and info_path.is_file()):
        return None
    try:
        info = json.loads(info_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    sha = _checksum(run_path)
    if info.get("key") != key or info.get("sha256") != sha:
        return None
    run = ws.runs.get((key, sha))
    if run is None:
        run = ws.runs[(key, sha)] = read_run(run_path)
    return run, info


def _where(spec: Retriever) -> str:
    """How messages name a retriever: where it was defined, and its name."""
    return f"{spec.origin}: retriever {spec.name!r}" if spec.origin else f"retriever {spec.name!r}"


class _Job:
    """One call's state: workspace, line-up, output folder, depth, force flag, records and the runs done."""

    def __init__(self, ws: _Workspace, lineup: Mapping[str, Retriever], folder: Path, depth: int, force: bool):
        self.ws, self.lineup, self.folder, self.depth, self.force = ws, lineup, folder, depth, force
        self.records: list[RunRecord] = []
        self.done: dict[str, Run] = {}

    def get(self, name: str) -> Run:
        """The run of ``name``: done in this call, else the disk cache, else computed (inputs first) and written."""
        if name in self.done:
            return self.done[name]
        if name not in self.lineup:
            raise ValueError(f"unknown retriever {name!r}; known: {', '.join(self.lineup)}")
        spec, ws = self.lineup[name], self.ws
        run_path, info_path = self.folder / f"{name}.run", self.folder / f"{name}.json"
        spec_settings = settings(spec, self.lineup)
        key = run_key(ws.hash, spec_settings, self.depth)
        t0 = time.perf_counter()
        found = None if self.force else _cached(ws, name, run_path, info_path, key)
        if found is not None:
            run, info = found
            self._record(name, run_path, "cached", time.perf_counter() - t0, info.get("queries_without_results", 0))
            self.done[name] = run
            return run
        inputs = [self.get(i) for i in spec.inputs]
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            raw = _compute(ws, spec, self.depth, inputs)
        except (RuntimeError, ImportError, OSError) as err:
            raise RuntimeError(f"{_where(spec)}: {err}") from err
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        run = self._write(spec, raw, key, spec_settings, seconds, cpu, run_path, info_path)
        self.done[name] = run
        return run

    def _record(self, name: str, path: Path, status: str, seconds: float, empty: int, cpu: float = 0.0) -> None:
        self.records.append(RunRecord(self.ws.collection.name, name, path, status, seconds,
                                      len(self.ws.collection.queries), empty, cpu))

    def _write(self, spec: Retriever, raw: Run, key: str, spec_settings: dict, seconds: float, cpu: float,
               run_path: Path, info_path: Path) -> Run:
        """Write the run and its sidecar; return the run as it reads back."""
        coll = self.ws.collection
        unknown = set(raw) - set(coll.queries)
        if unknown:
            raise AssertionError(f"{spec.name} returned unknown query ids, e.g. {sorted(unknown)[0]}")
        empty = sum(1 for q in coll.queries if not raw.get(q))
        run = _in_trec_order(raw)
        self.folder.mkdir(parents=True, exist_ok=True)
        write_run(run, run_path, name=spec.name, depth=self.depth)
        sha = _checksum(run_path)
        info = {
            "key": key, "collection": coll.name, "collection_hash": self.ws.hash, "retriever": spec.name,
            "family": spec.family, "kind": spec.kind, "description": spec.description, "inputs": list(spec.inputs),
            "origin": spec.origin, "overrides": spec.overrides, "settings": spec_settings, "depth": self.depth,
            "package": _package_fingerprint(), "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3),
            "queries": len(coll.queries), "queries_without_results": empty, "documents": len(coll.corpus),
            "sha256": sha, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        tmp = info_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(info, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(tmp, info_path)
        self._record(spec.name, run_path, "computed", seconds, empty, cpu)
        self.ws.runs[(key, sha)] = run
        return run


def _specs(lineup: Lineup | Mapping[str, Retriever]) -> Mapping[str, Retriever]:
    """The {name: Retriever} mapping of a Lineup or of a plain mapping."""
    return lineup.retrievers if isinstance(lineup, Lineup) else lineup


def _depth(lineup, depth: int | None) -> int:
    """The run depth: the argument, else the line-up file's, else 100."""
    if depth is None:
        depth = lineup.depth if isinstance(lineup, Lineup) else DEFAULT_DEPTH
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    return depth


def get_run(collection, retriever: str, lineup: Lineup | Mapping[str, Retriever], folder: str | os.PathLike,
            depth: int | None = None, force: bool = False, progress: bool = True) -> Run:
    """The run ``{qid: {docid: score}}`` of one retriever, from ``folder`` if cached, else computed and written there."""
    coll = load_collection(collection)
    job = _Job(_workspace(coll, progress), _specs(lineup), Path(folder), _depth(lineup, depth), force)
    return job.get(retriever)


def get_runs(collection, lineup: Lineup | Mapping[str, Retriever], folder: str | os.PathLike,
             retrievers: Sequence[str] | None = None, depth: int | None = None, force: bool = False,
             progress: bool = True) -> dict[str, Run]:
    """``{retriever: run}`` for several retrievers (default: the whole line-up), cached as :func:`get_run`."""
    coll, specs = load_collection(collection), _specs(lineup)
    job = _Job(_workspace(coll, progress), specs, Path(folder), _depth(lineup, depth), force)
    return {name: job.get(name) for name in (list(retrievers) if retrievers else list(specs))}


def make_runs(collection, lineup: Lineup | Mapping[str, Retriever], folder: str | os.PathLike,
              retrievers: Sequence[str] | None = None, depth: int | None = None, force: bool = False,
              progress: bool = True) -> list[RunRecord]:
    """Write (or find cached) the runs of ``retrievers`` (default: all) in ``folder``, with a progress bar; the records."""
    from tqdm.auto import tqdm

    coll, specs = load_collection(collection), _specs(lineup)
    names = list(retrievers) if retrievers else list(specs)
    unknown = [n for n in names if n not in specs]
    if unknown:
        raise ValueError(f"unknown retriever(s) {', '.join(unknown)}; known: {', '.join(specs)}")
    job = _Job(_workspace(coll, progress), specs, Path(folder), _depth(lineup, depth), force)
    with tqdm(names, desc=f"runs on {coll.name}", unit="run", disable=not progress) as bar:
        for name in bar:
            bar.set_postfix_str(name)
            job.get(name)
    write_manifest(folder, lineup, coll, job.depth)
    return job.records


def write_manifest(folder: str | os.PathLike, lineup: Lineup | Mapping[str, Retriever], collection: Collection,
                   depth: int) -> Path:
    """Write ``folder/lineup.json``: the line-up's order, its file and overrides, the collection and depth."""
    specs = _specs(lineup)
    record = {"retrievers": list(specs), "collection": collection.name, "collection_hash": collection_hash(collection),
              "depth": depth, "lineup": getattr(lineup, "path", None), "name": getattr(lineup, "name", ""),
              "model_map": getattr(lineup, "model_map", {}),
              "kinds": {n: s.kind for n, s in specs.items()}, "inputs": {n: list(s.inputs) for n, s in specs.items()}}
    path = Path(folder) / MANIFEST
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, path)
    return path
