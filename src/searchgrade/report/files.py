"""Plain TREC run files from any system (Anserini, Pyserini, a colleague's script) as a report's line-up.

``searchgrade report --qrels QRELS [--collection DIR] --out page.html RUN [RUN ...]`` reads them here:

Names
    A run is named by its file's name without its extension (``.gz`` first, then one more:
    ``bm25.run.gz`` and ``bm25.run`` are ``bm25``, ``runs/e5`` is ``e5``); ``--names runid`` names
    it by its run id (the sixth column) instead, and refuses a file holding several run ids. Two runs
    with one name are refused, naming both files.
Queries
    A run query that the judgments do not have is skipped (as trec_eval skips it) and counted: the
    command says how many on standard error and the page says it too. A query of the judgments that
    a run does not have is a query without results (the page states how it is scored).
Collection
    Optional. Without it the page is made from the judgments and the runs alone: the queries are
    known by their ids and the viewer shows the ids of the documents. With ``--collection`` (a BEIR
    folder or a collection name) the viewer shows the texts; ``--qrels`` then replaces its judgments.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..collections import Collection
from ..io import load_qrels, load_run

__all__ = ["NAME_RULES", "run_name", "read_run_files", "plain_collection", "IdsOnly"]

NAME_RULES = ("file", "runid")


class IdsOnly(Mapping):
    """A corpus that knows no text: every document id maps to an empty document (the viewer shows the id)."""

    def __getitem__(self, docid) -> dict:
        return {"title": "", "text": ""}

    def __contains__(self, docid) -> bool:
        return True

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0


def run_name(path: str | Path) -> str:
    """A run file's name without its extension: ``.gz`` first, then one more (``bm25.run.gz`` is ``bm25``)."""
    name = Path(path).name
    if name.endswith(".gz"):
        name = name[:-3]
    stem = Path(name).stem
    return stem or name


def read_run_files(paths: Sequence[str], qrels: Mapping, names: str = "file") -> tuple[dict, dict[str, int]]:
    """``({name: run}, {name: run queries skipped for want of judgments})`` in the order of ``paths``."""
    if names not in NAME_RULES:
        raise ValueError(f"--names must be one of {', '.join(NAME_RULES)}, not {names!r}")
    runs, skipped, where = {}, {}, {}
    for path in paths:
        run, _, report = load_run(path, warn=True)
        if names == "runid":
            ids = list(dict.fromkeys(report.run_ids))
            if len(ids) != 1:
                raise ValueError(f"{path}: --names runid needs one run id per file; this one has {len(ids)} "
                                 f"({', '.join(map(str, ids[:5]))})")
            name = str(ids[0])
        else:
            name = run_name(path)
        if name in runs:
            other = "runid" if names == "file" else "file"
            raise ValueError(f"two runs are named {name!r}: {where[name]} and {path} (rename a file, or name the "
                             f"runs by --names {other})")
        kept = {q: docs for q, docs in run.items() if q in qrels}
        if not any(kept.values()):
            raise ValueError(f"{path}: none of its {len(run):,} queries is in the judgments (another collection's "
                             "run, or query ids written differently?)")
        runs[name], skipped[name], where[name] = kept, len(run) - len(kept), path
    return runs, skipped


def plain_collection(qrels_path: str | None, collection: Collection | None) -> Collection:
    """The collection a report of run files reads: the judgments of ``qrels_path`` (else the collection's), the
    collection's documents and query texts where there is one, else ids only."""
    if qrels_path is None and collection is None:
        raise ValueError("give --qrels (the judgments), --collection, or both")
    qrels = load_qrels(qrels_path, warn=True).qrels if qrels_path is not None else collection.qrels
    if collection is None:
        return Collection(Path(qrels_path).name, IdsOnly(), {q: str(q) for q in qrels}, qrels,
                          {"plain_runs": True, "source": str(qrels_path)})
    queries = {q: collection.queries.get(q, str(q)) for q in qrels}
    meta = {k: v for k, v in collection.meta.items() if k in ("answers", "source")}
    return Collection(collection.name, collection.corpus, queries, qrels, meta)
