"""The book's Korean retriever line-up, read from ``lineups/book.toml``, and its cached TREC runs (``make runs``).

The ten retrievers (BM25 with four Korean tokenisers, three dense encoders, two fusions and a
second stage) are defined only in that file, in the line-up format of
:mod:`searchgrade.retrieval.lineup`; :func:`lineup_table` shows them. Runs are computed and cached
by :mod:`searchgrade.retrieval.runs` (the cache rules are described there) in
``data/runs/<collection>/`` (or ``$SEARCHGRADE_RUNS/<collection>/``).

The book's collections (:data:`DEFAULT_COLLECTIONS`) are MIRACL-ko with its three program-made
query variants (:data:`MIRACL_COLLECTIONS`: ``miracl-ko``, ``miracl-ko-spacing``,
``miracl-ko-josa``, ``miracl-ko-jamo``; same passages, so a variant costs only the query side:
the passages' embeddings come from the cache) and KorQuAD 1.0 dev, on which ``make runs``
computes only the retrievers the chapters read (:data:`BOOK_RETRIEVERS`). Any other collection
(``autorag``, a BEIR folder) runs on request.

``python -m searchgrade.book.korean_runs [--collections korquad-dev,autorag] [--retrievers ...]`` writes
``<collection>/<retriever>.run`` (TREC format, top 100, run name = retriever name) and beside it
``<retriever>.json`` with the cache key, the settings, the file's SHA-256 and the seconds it took.
From a notebook::

    from searchgrade.book import korean_runs
    run = korean_runs.get_run("korquad-dev", "bm25-kiwi")   # computed once, then read from disk
    all_runs = korean_runs.get_runs("miracl-ko")            # {retriever: run} for the whole line-up
    spaced = korean_runs.get_runs("miracl-ko-spacing")      # the same on MIRACL-ko's spaceless questions
    records = korean_runs.make_runs(["miracl-ko"])          # what was computed or found cached, with times
    korean_runs.lineup_table()                              # the line-up as a DataFrame
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..collections import MIRACL_VARIANTS, Collection, collection_hash, data_root
from ..io.runfolder import refresh_records
from ..io.types import Run
from ..retrieval import runs as engine
from ..retrieval.lineup import LineupError, Retriever, read_lineup
from ..retrieval.runs import RunRecord

__all__ = [
    "Retriever",
    "LINEUP",
    "LINEUP_FILE",
    "DEFAULT_COLLECTIONS",
    "MIRACL_COLLECTIONS",
    "BOOK_RETRIEVERS",
    "DEFAULT_DEPTH",
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
    "lineup_file",
    "main",
]

#: MIRACL-ko's written questions and its three query variants (searchgrade.collections.miracl).
MIRACL_COLLECTIONS = ("miracl-ko", *(f"miracl-ko-{axis}" for axis in MIRACL_VARIANTS))
DEFAULT_COLLECTIONS = (*MIRACL_COLLECTIONS, "korquad-dev")
#: Collections on which ``make runs`` computes part of the line-up: what the chapters read there.
#: KorQuAD's runs serve the ties appendix (the RRF of BM25 with Kiwi and e5, which needs both); the second
#: stage is kept though no page reads it now (cheap: the passages' embeddings are cached); the other
#: encoders would cost about 420 CPU-seconds for no page.
BOOK_RETRIEVERS = {"korquad-dev": ("bm25-kiwi", "dense-e5", "rrf-kiwi-e5", "rerank-kiwi-e5")}


def lineup_file() -> Path:
    """The book's line-up file: ``lineups/book.toml`` in the project that holds this package."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "lineups" / "book.toml"
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("lineups/book.toml not found above the searchgrade package: the book's line-up lives in "
                            "the project's repository (install it with `pip install -e .` from a clone)")


LINEUP_FILE = lineup_file()
_BOOK = read_lineup(LINEUP_FILE)
LINEUP: dict[str, Retriever] = dict(_BOOK.retrievers)
DEFAULT_DEPTH = _BOOK.depth


def register_retriever(spec: Retriever, replace: bool = False) -> Retriever:
    """Add a retriever to :data:`LINEUP` for this session (its inputs must already be there)."""
    if spec.name in LINEUP and not replace:
        raise ValueError(f"a retriever named {spec.name!r} is already in the line-up")
    missing = [i for i in spec.inputs if i not in LINEUP]
    if missing:
        raise ValueError(f"retriever {spec.name}: unknown input(s) {', '.join(missing)}")
    LINEUP[spec.name] = spec
    return spec


def runs_root() -> Path:
    """Where run files go: ``$SEARCHGRADE_RUNS``, else ``data/runs`` beside the project's ``data/raw``."""
    env = os.environ.get("SEARCHGRADE_RUNS")
    return Path(env) if env else data_root().parent / "runs"


def load_collection(name: str | Collection) -> Collection:
    """A collection by name: the Korean ones (``korquad-dev``, ``autorag``, ...), ``beir:<folder>``, or any ``collections.load`` name."""
    return engine.load_collection(name)


def _folder(coll: Collection, out_dir) -> Path:
    """The folder of one collection's runs."""
    return Path(out_dir or runs_root()) / coll.name


def run_info(collection: str, retriever: str, out_dir: str | os.PathLike | None = None) -> dict | None:
    """The sidecar record (settings, seconds, checksum) of a written run, or None if there is none."""
    return engine.run_info(Path(out_dir or runs_root()) / collection, retriever)


def get_run(collection: str | Collection, retriever: str, out_dir: str | os.PathLike | None = None,
            depth: int = DEFAULT_DEPTH, force: bool = False, progress: bool = True,
            lineup: Mapping[str, Retriever] | None = None) -> Run:
    """The run ``{qid: {docid: score}}`` of one retriever on one collection, from the cache or computed and written."""
    coll = load_collection(collection)
    return engine.get_run(coll, retriever, lineup or LINEUP, _folder(coll, out_dir), depth, force, progress)


def get_runs(collection: str | Collection, retrievers: Sequence[str] | None = None,
             out_dir: str | os.PathLike | None = None, depth: int = DEFAULT_DEPTH, force: bool = False,
             progress: bool = True, lineup: Mapping[str, Retriever] | None = None) -> dict[str, Run]:
    """``{retriever: run}`` for several retrievers (default: the whole line-up) on one collection, cached as get_run."""
    coll = load_collection(collection)
    return engine.get_runs(coll, lineup or LINEUP, _folder(coll, out_dir), retrievers, depth, force, progress)


def lineup_table(lineup: Mapping[str, Retriever] | None = None):
    """The line-up as a pandas DataFrame (name, family, kind, description, inputs), for display."""
    import pandas as pd

    rows = [{"retriever": s.name, "family": s.family, "kind": s.kind, "description": s.description,
             "inputs": ", ".join(s.inputs)} for s in (lineup or LINEUP).values()]
    return pd.DataFrame(rows).set_index("retriever")


def make_runs(collections: Sequence[str | Collection] = DEFAULT_COLLECTIONS, retrievers: Sequence[str] | None = None,
              out_dir: str | os.PathLike | None = None, depth: int = DEFAULT_DEPTH, force: bool = False,
              progress: bool = True, lineup: Mapping[str, Retriever] | None = None) -> list[RunRecord]:
    """Write (or find cached) the runs of ``retrievers`` on each collection.

    Without ``retrievers``: the whole line-up, or on a collection of :data:`BOOK_RETRIEVERS` its entry.
    """
    lineup = lineup or LINEUP
    unknown = [n for n in (retrievers or []) if n not in lineup]
    if unknown:
        raise ValueError(f"unknown retriever(s) {', '.join(unknown)}; known: {', '.join(lineup)}")
    records: list[RunRecord] = []
    for c in collections:
        coll = load_collection(c)
        chosen = retrievers or BOOK_RETRIEVERS.get(coll.name)
        records += engine.make_runs(coll, lineup, _folder(coll, out_dir), chosen, depth, force, progress)
        refresh_records(_folder(coll, out_dir), {n: lineup[n] for n in chosen or lineup})
    return records


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: write the line-up's runs for the chosen collections and print what was done and how long it took."""
    parser = argparse.ArgumentParser(prog="python -m searchgrade.book.korean_runs",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--collections", default=",".join(DEFAULT_COLLECTIONS),
                        help="comma-separated: korquad-dev, autorag, miracl-ko[-spacing|-josa|-jamo], "
                             "beir:<folder> (default: %(default)s)")
    parser.add_argument("--retrievers", default=None,
                        help=f"comma-separated (default: all of {', '.join(LINEUP)}; on korquad-dev the "
                             f"four the chapters read)")
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
    except (LineupError, ValueError, FileNotFoundError, RuntimeError, ImportError) as err:
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
