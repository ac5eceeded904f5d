"""Cached TREC runs of any line-up on any collection: the engine of ``searchgrade runs`` and of ``make runs``.

A line-up (:mod:`.lineup`, from a TOML file or built in Python) names retrievers; this module
computes each one's run on a collection and writes it into one folder::

    DIR/<retriever>.run     TREC format, top ``depth`` documents per query, run name = retriever name
    DIR/<retriever>.json    the cache key, the full settings, the file's SHA-256, seconds, counts
    DIR/lineup.json         the line-up's order and origin (what ``searchgrade report`` reads first)

The cache key is a SHA-256 of the collection's documents and queries (:func:`searchgrade.collections.collection_hash`;
qrels do not change a run), the retriever's settings (every parameter, the versions and
fingerprints of its tokeniser or models, and recursively those of its inputs), the depth, and
the code that computes it: the engine (this module, :mod:`.kinds`, :mod:`.models`,
:mod:`.workspace` and :mod:`.tokens`) plus the modules its kind's row names (:mod:`.sparse` and
:mod:`.korean` for BM25, :mod:`.dense` and :mod:`.encoders` for encoders, :mod:`searchgrade.fusion` for
fusion, :mod:`.rerank` for second stages). A run whose key and checksum match is read back instead of recomputed;
a damaged file, a changed text, setting, model folder or module recomputes exactly the runs it
affects. The code that only reads or describes runs lives elsewhere, so editing it recomputes
nothing: the line-up parser (:mod:`.lineup`, whose output, the settings, is in the key, with
:mod:`.schema` and :mod:`.available`), the collections (:mod:`searchgrade.collections`, whose output
is hashed), the caches' place (:mod:`searchgrade.places`), the folder reader
(:mod:`searchgrade.io.runfolder`) and the command line (:mod:`searchgrade.cli.runs`,
``searchgrade runs``).

What a kind computes is its row's ``run`` function (:mod:`.kinds`); this module only orders the
work (inputs first), caches and writes.

Models load offline unless ``HF_HUB_OFFLINE=0``; torch is seeded (0) while a cross-encoder is
loaded, so a classification head that the checkpoint lacks is initialised the same way each time.
:mod:`searchgrade.book.korean_runs` is the book's line-up on top of this engine.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..checksums import sha256 as _checksum
from ..collections import Collection, collection_hash, load_collection
from ..io import read_run, trec_order, write_run
from ..io.runfolder import MANIFEST
from ..io.types import Run
from .kinds import KINDS
from .lineup import DEFAULT_DEPTH, Lineup, Retriever
from .workspace import Workspace, workspace

__all__ = [
    "RunRecord",
    "settings",
    "run_key",
    "run_info",
    "get_run",
    "get_runs",
    "make_runs",
    "write_manifest",
]

# --------------------------------------------------------------------------- settings and keys

# The modules whose code decides every run's values; each kind adds its own (Kind.modules in .kinds). io, which
# writes and reads the files, is not among them: scores are written with repr and read back exactly.
_ENGINE = ("searchgrade.retrieval.runs", "searchgrade.retrieval.kinds", "searchgrade.retrieval.models",
           "searchgrade.retrieval.workspace", "searchgrade.retrieval.tokens")


def _code_fingerprint(kind: str) -> str:
    """SHA-256 of the code that computes a run of this kind (so an edited module invalidates exactly its runs).

    The modules are hashed as syntax trees without their docstrings, so editing a docstring or a
    comment does not recompute any run; any change to the code itself does.
    """
    h = hashlib.sha256()
    for name in (*_ENGINE, *KINDS[kind].modules):
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin or not Path(spec.origin).is_file():
            raise ValueError(f"retriever kind {kind!r} names the module {name!r}, which has no source file here")
        h.update(name.encode())
        h.update(_code_text(Path(spec.origin)).encode())
    return h.hexdigest()


def _code_text(path: Path) -> str:
    """A module's code as a canonical dump of its syntax tree, docstrings and comments left out (each distinct
    source text is parsed once per process: a line-up names the same modules again and again)."""
    source = path.read_bytes()
    key = hashlib.sha256(source).digest()
    if key not in _CODE_TEXTS:
        _CODE_TEXTS[key] = _syntax_dump(source.decode("utf-8"))
    return _CODE_TEXTS[key]


_CODE_TEXTS: dict[bytes, str] = {}


def _syntax_dump(text: str) -> str:
    """The canonical dump of a module's syntax tree without its docstrings."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


def settings(spec: Retriever, lineup: Mapping[str, Retriever]) -> dict:
    """A retriever's full settings: its parameters, the versions and fingerprints behind them, its inputs' settings."""
    kind = KINDS[spec.kind]
    out = {"name": spec.name, "kind": spec.kind, "params": spec.params, "code": _code_fingerprint(spec.kind)}
    if kind.models:
        out.update(kind.models(spec.params))
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
    return {q: {d: float(docs[d]) for d in trec_order(docs)} for q, docs in run.items() if docs}


def run_info(folder: str | os.PathLike, retriever: str) -> dict | None:
    """The sidecar record (settings, seconds, checksum) of a written run, or None if there is none."""
    path = Path(folder) / f"{retriever}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _cached(ws: Workspace, name: str, run_path: Path, info_path: Path, key: str) -> tuple[Run, dict] | None:
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

    def __init__(self, ws: Workspace, lineup: Mapping[str, Retriever], folder: Path, depth: int, force: bool):
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
            raw = KINDS[spec.kind].run(ws, spec, self.depth, inputs)
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
            "family": spec.family, "kind": spec.kind, "second_stage": KINDS[spec.kind].second_stage,
            "description": spec.description, "inputs": list(spec.inputs),
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
    job = _Job(workspace(coll, progress), _specs(lineup), Path(folder), _depth(lineup, depth), force)
    return job.get(retriever)


def get_runs(collection, lineup: Lineup | Mapping[str, Retriever], folder: str | os.PathLike,
             retrievers: Sequence[str] | None = None, depth: int | None = None, force: bool = False,
             progress: bool = True) -> dict[str, Run]:
    """``{retriever: run}`` for several retrievers (default: the whole line-up), cached as :func:`get_run`."""
    coll, specs = load_collection(collection), _specs(lineup)
    job = _Job(workspace(coll, progress), specs, Path(folder), _depth(lineup, depth), force)
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
    job = _Job(workspace(coll, progress), specs, Path(folder), _depth(lineup, depth), force)
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
