"""What every collection shares: the :class:`Collection` record, its format error, the registry.

A collection is plain dictionaries::

    corpus  = {docid: {"title": str, "text": str}}
    queries = {qid: str}
    qrels   = {qid: {docid: grade}}      # grade <= 0 is non-relevant (trec_eval)
    meta    = {"source": ..., "licence": ..., "grades": ..., ...}

Every loader is registered by name (:func:`register`); :func:`load` finds it,
or reads any BEIR-format folder given by its path. Loaders read the unmodified
raw files under ``data/raw`` and are strict: a malformed line raises
:class:`CollectionFormatError` naming the file, the line and the problem.
Nothing is silently dropped; where the raw files have known oddities that can
be read unambiguously, they are listed in ``meta["quirks"]``.
"""
from __future__ import annotations

import json
import os
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..io import FormatError
from ..io.types import Qrels
from ..places import data_root

__all__ = [
    "Collection",
    "CollectionFormatError",
    "LOADERS",
    "load",
    "register",
    "trec_safe_ids",
    "qrels_statistics",
]

_PathLike = str | os.PathLike


class CollectionFormatError(FormatError):
    """A malformed collection file; ``str()`` is ``"{path}:{line}: {problem}"`` (an :class:`searchgrade.io.FormatError`)."""


@dataclass
class Collection:
    """A test collection: corpus, queries, qrels, and where they came from (``meta``)."""

    name: str
    corpus: dict[str, dict[str, str]]
    queries: dict[str, str]
    qrels: Qrels
    meta: dict = field(default_factory=dict)
    raw_codes: Qrels | None = None
    exclude: dict[str, set[str]] = field(default_factory=dict)

    def __repr__(self) -> str:
        """Short summary instead of the full dictionaries."""
        njudg = sum(len(v) for v in self.qrels.values())
        return (
            f"Collection({self.name!r}: {len(self.corpus)} docs, {len(self.queries)} queries, "
            f"{njudg} judgments)"
        )


# ---------------------------------------------------------------------------
# Locating and reading the raw data

def _require(folder: Path, names: list[str], collection: str) -> None:
    """Fail with one clear message listing every missing file of a collection."""
    missing = [n for n in names if not (folder / n).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{collection}: missing {', '.join(missing)} in {folder}. Pass data_dir= (the folder "
            f"that holds '{folder.name}/') or set SEARCHGRADE_DATA; the raw files are listed in "
            f"data/raw/SHA256SUMS."
        )


def _read_text_lines(path: Path) -> list[str]:
    """Lines of an ASCII/UTF-8 text file, CRLF or LF, without line terminators."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise CollectionFormatError(path, line, f"not valid UTF-8 ({err.reason})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the terminator of the last line, not an empty line
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def _read_json(path: Path):
    """Parse a JSON file; a syntax error names the file and the line."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file (pass data_dir= or set SEARCHGRADE_DATA)")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise CollectionFormatError(path, None, f"not valid UTF-8 ({err.reason})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise CollectionFormatError(path, err.lineno, f"invalid JSON: {err.msg} (column {err.colno})") from None


def _expect(cond: bool, path: Path, problem: str) -> None:
    """Raise a CollectionFormatError (no line: the JSON value is deep inside one document) unless ``cond``."""
    if not cond:
        raise CollectionFormatError(path, None, problem)


# ---------------------------------------------------------------------------
# Helpers

def trec_safe_ids(collection: Collection, replacement: str = "_") -> tuple[Collection, dict[str, str]]:
    """A copy with each whitespace run in document and query ids replaced; returns ``(copy, {new id: old id})``.

    Refuses (ValueError) if two ids would become equal.
    """
    mapping: dict[str, str] = {}

    def rename(value: str, what: str) -> str:
        new = re.sub(r"\s+", replacement, value.strip())
        old = mapping.setdefault((what, new), value)
        if old != value:
            raise ValueError(f"{what} ids {old!r} and {value!r} both become {new!r}")
        return new

    ids: set[str] = set(collection.corpus) | {d for row in collection.qrels.values() for d in row}
    doc = {d: rename(d, "document") for d in sorted(ids)}
    qry = {q: rename(q, "query") for q in collection.queries}
    corpus = {doc[d]: dict(v) for d, v in collection.corpus.items()}
    queries = {qry[q]: t for q, t in collection.queries.items()}
    qrels = {qry.get(q, q): {doc[d]: g for d, g in row.items()} for q, row in collection.qrels.items()}
    meta = dict(collection.meta)
    meta["renamed_ids"] = {new: old for (_, new), old in mapping.items() if new != old}
    copy = Collection(collection.name, corpus, queries, qrels, meta)
    return copy, meta["renamed_ids"]


def qrels_statistics(collection: Collection) -> dict[str, float]:
    """Counts of a collection: queries, judgments, distinct relevant docs, relevant per query and query length (min/mean/max)."""
    rel = [sum(1 for g in row.values() if g > 0) for row in collection.qrels.values()]
    lengths = [len(t) for t in collection.queries.values()]
    return {
        "queries": len(collection.queries),
        "distinct_query_texts": len(set(collection.queries.values())),
        "judgments": sum(len(row) for row in collection.qrels.values()),
        "relevant_docs": len({d for row in collection.qrels.values() for d, g in row.items() if g > 0}),
        "relevant_min": min(rel),
        "relevant_mean": statistics.fmean(rel),
        "relevant_max": max(rel),
        "query_chars_min": min(lengths),
        "query_chars_mean": statistics.fmean(lengths),
        "query_chars_max": max(lengths),
        "documents": len(collection.corpus),
    }


# ---------------------------------------------------------------------------
# Registry

LOADERS: dict[str, Callable[..., Collection]] = {}


def register(name: str, loader: Callable[..., Collection]) -> None:
    """Register ``loader(data_dir: Path, **options) -> Collection`` under ``name``."""
    if name in LOADERS:
        raise ValueError(f"a loader named {name!r} is already registered")
    LOADERS[name] = loader


def load(name: str | os.PathLike, data_dir: str | os.PathLike | None = None, **options) -> Collection:
    """Load a registered collection by name, or a BEIR-format folder by its path; ``options`` go to the loader.

    ``load("cranfield")``, ``load("korquad-dev")``, ``load("autorag")``,
    ``load("ko-strategyqa-dev")``; ``load("path/to/folder", split="dev")``
    for any folder with ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/``.
    """
    if isinstance(name, os.PathLike) or (name not in LOADERS and Path(name).is_dir()):
        return LOADERS["beir"](data_root(data_dir), folder=name, **options)
    if name not in LOADERS:
        raise ValueError(f"unknown collection {name!r} (and no folder of that name); "
                         f"known: {', '.join(sorted(LOADERS))}, or the path of a BEIR-format folder")
    return LOADERS[name](data_root(data_dir), **options)
