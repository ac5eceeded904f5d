"""The labelled sample: reading and checking a label file, drawing a sample, the easy pairs."""
from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..io.jsonl import read_jsonl
from ..io.errors import FormatError
from ..io import trec_order
from .base import GRADES, Pair
from .pooling import _check_depth, _check_runs


LABEL_SOURCES = {
    "a": "gold pair: the question's own (judged relevant) paragraph",
    "b": "random paragraph: drawn uniformly from the paragraphs not judged for the question",
    "c": "top-ranked hole: in a retriever's top k for the question, not in the qrels",
}
_LABEL_KEYS = {"qid", "docid", "source", "label", "note", "retrievers", "rank"}


class LabelFileError(FormatError):
    """A malformed label file; ``str()`` is ``"{path}:{line}: {problem}"`` (a :class:`searchgrade.io.FormatError`)."""


_REQUIRED = ("qid", "docid", "source", "label")


def read_labels(path: str | os.PathLike, collection=None, min_rows: int = 0,
                sources: Iterable[str] = ()) -> pd.DataFrame:
    """Read a JSON Lines label file (qid, docid, source a/b/c, label 0/1/2, optional note) and check its schema.

    Every problem names the file and line: invalid JSON, a missing or unknown key, a
    label outside {0, 1, 2}, an unknown source, a pair labelled twice. With a
    ``collection``: ids must exist in it, source-a pairs must be judged relevant there
    and source-b/c pairs must not be in its qrels. ``min_rows`` and ``sources`` (each
    must occur) check the sample as a whole. Returns a DataFrame in file order with a
    ``line`` column.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such label file")
    rows, seen = [], {}
    for lineno, obj in read_jsonl(path, LabelFileError, required=_REQUIRED):
        _check_label_fields(path, lineno, obj)
        key = (obj["qid"], obj["docid"])
        if key in seen:
            raise LabelFileError(path, lineno, f"pair ({key[0]!r}, {key[1]!r}) is labelled twice "
                                               f"(first on line {seen[key]})")
        seen[key] = lineno
        if collection is not None:
            _check_label_ids(path, lineno, obj, collection)
        rows.append({"line": lineno, "qid": obj["qid"], "docid": obj["docid"], "source": obj["source"],
                     "label": obj["label"], "note": obj.get("note", ""),
                     "retrievers": ",".join(obj.get("retrievers", [])), "rank": obj.get("rank", 0)})
    return _check_sample(path, rows, min_rows, sources)


def _check_label_fields(path: Path, lineno: int, obj: dict) -> None:
    """The keys and values of one label line: known keys, id strings, a grade, a source, note, retrievers, rank."""
    extra = sorted(set(obj) - _LABEL_KEYS)
    if extra:
        raise LabelFileError(path, lineno, f"unknown key(s) {', '.join(extra)}; allowed: "
                                           f"{', '.join(sorted(_LABEL_KEYS))}")
    for key in ("qid", "docid"):
        if not isinstance(obj[key], str) or not obj[key].strip():
            raise LabelFileError(path, lineno, f"{key} must be a non-empty string, got {obj[key]!r}")
    label = obj["label"]
    if isinstance(label, bool) or not isinstance(label, int) or label not in GRADES:
        raise LabelFileError(path, lineno, f"label {label!r} is not one of {GRADES} "
                                           f"(0 unrelated, 1 related, 2 contains the answer)")
    if obj["source"] not in LABEL_SOURCES:
        raise LabelFileError(path, lineno, f"source {obj['source']!r} is not one of "
                                           f"{', '.join(LABEL_SOURCES)}")
    note = obj.get("note", "")
    if not isinstance(note, str):
        raise LabelFileError(path, lineno, f"note must be a string, got {note!r}")
    if "retrievers" in obj and not (isinstance(obj["retrievers"], list)
                                    and all(isinstance(x, str) and x for x in obj["retrievers"])):
        raise LabelFileError(path, lineno, f"retrievers must be a list of run names, got {obj['retrievers']!r}")
    if "rank" in obj and (isinstance(obj["rank"], bool) or not isinstance(obj["rank"], int) or obj["rank"] < 1):
        raise LabelFileError(path, lineno, f"rank must be an integer >= 1, got {obj['rank']!r}")


def _check_sample(path: Path, rows: list[dict], min_rows: int, sources: Iterable[str]) -> pd.DataFrame:
    """The rows as a DataFrame, once the sample as a whole is checked (not empty, large enough, every source)."""
    if not rows:
        raise LabelFileError(path, None, "the label file holds no labels")
    df = pd.DataFrame(rows)
    if len(df) < min_rows:
        raise LabelFileError(path, None, f"{len(df)} labelled pairs; at least {min_rows} are required")
    absent = [s for s in sources if s not in set(df["source"])]
    if absent:
        raise LabelFileError(path, None, f"no pair from source(s) {', '.join(absent)} "
                                         f"({'; '.join(LABEL_SOURCES[s] for s in absent if s in LABEL_SOURCES)})")
    return df


def _check_label_ids(path, lineno: int, obj: dict, collection) -> None:
    """Label ids must exist in the collection; a/b/c must agree with its qrels."""
    qid, docid, source = obj["qid"], obj["docid"], obj["source"]
    if qid not in collection.queries:
        raise LabelFileError(path, lineno, f"question {qid!r} is not in collection {collection.name!r}")
    if docid not in collection.corpus:
        raise LabelFileError(path, lineno, f"document {docid!r} is not in collection {collection.name!r}")
    grade = collection.qrels.get(qid, {}).get(docid)
    if source == "a" and (grade is None or grade <= 0):
        raise LabelFileError(path, lineno, f"source a (gold pair), but ({qid!r}, {docid!r}) is not judged relevant "
                                           f"in {collection.name!r}")
    if source in ("b", "c") and grade is not None:
        raise LabelFileError(path, lineno, f"source {source}, but ({qid!r}, {docid!r}) is already judged "
                                           f"(grade {grade}) in {collection.name!r}")


def _chosen_questions(collection, n: int, rng: np.random.Generator, exclude: Iterable[str] = ()) -> list[str]:
    """``n`` distinct judged questions drawn without replacement (collection order, minus ``exclude``)."""
    excluded = set(exclude)
    pool_q = [q for q in collection.queries if q in collection.qrels and q not in excluded
              and any(g > 0 for g in collection.qrels[q].values())]
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"the number of questions must be >= 1, got {n}")
    if n > len(pool_q):
        raise ValueError(f"{n} questions requested but only {len(pool_q)} judged questions are available")
    return [pool_q[i] for i in rng.choice(len(pool_q), size=n, replace=False)]


def _random_other(collection, qid: str, rng: np.random.Generator, docids: list[str]) -> str:
    """A paragraph drawn uniformly from those not judged for ``qid``."""
    judged = collection.qrels.get(qid, {})
    while True:
        d = docids[int(rng.integers(len(docids)))]
        if d not in judged:
            return d


def draw_label_sample(collection, runs: Mapping[str, Mapping[str, Mapping[str, float]]], n_questions: int,
                      n_top: int, depth: int = 5, seed: int = 0) -> pd.DataFrame:
    """Pairs to label by hand: (a) each drawn question's gold paragraphs, (b) one random paragraph per question,
    (c) ``n_top`` pairs drawn uniformly from the holes in the runs' top ``depth`` for those questions.

    Seeded (numpy ``default_rng(seed)``), so the same inputs draw the same sample.
    Columns: qid, docid, source (a/b/c), retrievers (runs that ranked a source-c pair
    in their top ``depth``), rank (its best rank there).
    """
    depth = _check_depth(depth)
    _check_runs(runs)
    rng = np.random.default_rng(seed)
    chosen = _chosen_questions(collection, n_questions, rng)
    docids = list(collection.corpus)
    rows = []
    for q in chosen:
        for d, g in collection.qrels[q].items():
            if g > 0:
                rows.append({"qid": q, "docid": d, "source": "a", "retrievers": "", "rank": 0})
    for q in chosen:
        rows.append({"qid": q, "docid": _random_other(collection, q, rng, docids), "source": "b",
                     "retrievers": "", "rank": 0})
    found: dict[Pair, dict] = {}
    for q in chosen:
        for name, run in runs.items():
            for rank, d in enumerate(trec_order(run.get(q, {}), depth), 1):
                if d in collection.qrels.get(q, {}):
                    continue
                entry = found.setdefault((q, d), {"retrievers": [], "rank": rank})
                entry["retrievers"].append(name)
                entry["rank"] = min(entry["rank"], rank)
    candidates = list(found)
    if n_top > len(candidates):
        raise ValueError(f"{n_top} top-ranked holes requested but the runs leave only {len(candidates)} "
                         f"in their top {depth} for these {n_questions} questions")
    for i in sorted(rng.choice(len(candidates), size=n_top, replace=False)):
        q, d = candidates[i]
        rows.append({"qid": q, "docid": d, "source": "c", "retrievers": ",".join(found[(q, d)]["retrievers"]),
                     "rank": found[(q, d)]["rank"]})
    return pd.DataFrame(rows)


def easy_pairs(collection, n_questions: int, seed: int = 0, exclude: Iterable[str] = ()) -> pd.DataFrame:
    """The easy test without labels: per drawn question its gold paragraph (expected 2) and one random paragraph (expected 0).

    Questions in ``exclude`` (e.g. those of the labelled sample) are never drawn,
    so a threshold chosen here is not tuned on the labelled pairs. Columns: qid, docid,
    expected.
    """
    rng = np.random.default_rng(seed)
    chosen = _chosen_questions(collection, n_questions, rng, exclude)
    docids = list(collection.corpus)
    rows = []
    for q in chosen:
        gold = [d for d, g in collection.qrels[q].items() if g > 0]
        rows.append({"qid": q, "docid": gold[0], "expected": 2})
        rows.append({"qid": q, "docid": _random_other(collection, q, rng, docids), "expected": 0})
    return pd.DataFrame(rows)
