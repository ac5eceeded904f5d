"""Writing TREC qrels and runs, and trec_eval's order of a run's documents.

The writers put query ids in plain string order ("10" sorts before "9") and a run's documents in
trec_eval's order (:func:`trec_order`: score descending, ties by docno descending).  Scores are
written with ``repr``, the shortest text that reads back as the identical float, so write-then-read
round trips are exact.
"""
from __future__ import annotations

import math
import operator
import os
from collections.abc import Iterable, Mapping

__all__ = ["trec_order", "write_run", "write_qrels"]


def _check_token(value, what: str) -> str:
    """A qid, docno or run name must be a non-empty str without whitespace to survive a round trip."""
    if not isinstance(value, str):
        raise TypeError(f"{what} {value!r} must be a str, not {type(value).__name__}")
    if value.split() != [value]:
        raise ValueError(f"{what} {value!r} must be non-empty and contain no whitespace")
    return value


def _check_tokens(values: Iterable, what: str) -> list[str]:
    """_check_token on many values at once: one join and split in C, the slow path only on failure."""
    values = list(values)
    try:
        if " ".join(values).split() == values:
            return values
    except TypeError:
        pass
    for value in values:
        _check_token(value, what)
    raise AssertionError("unreachable")  # pragma: no cover


def _write_lines(path: str | os.PathLike, lines: list[str]) -> None:
    """Write lines (UTF-8, '\\n' endings), creating the parent folder if needed."""
    from pathlib import Path  # here: pathlib (and urllib, ipaddress) would cost trec_eval's start-up 10 ms

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(lines)


def trec_order(docs: Mapping[str, float], depth: int | None = None) -> list[str]:
    """Document ids in trec_eval's order: score descending, ties broken by docid descending (strcmp)."""
    ranked = sorted(((float(score), docid) for docid, score in docs.items()), reverse=True)
    return [docid for _, docid in ranked[:depth]]


def write_run(
    run: Mapping[str, Mapping[str, float]],
    path: str | os.PathLike,
    name: str = "searchgrade",
    depth: int | None = None,
) -> None:
    """Write ``qid Q0 docno rank score name`` lines in trec_eval order; queries in sorted (str) order."""
    _check_token(name, "run name")
    if depth is not None and (isinstance(depth, bool) or operator.index(depth) < 1):
        raise ValueError(f"depth must be a positive integer or None, not {depth!r}")
    out: list[str] = []
    for qid in sorted(_check_tokens(run, "query id")):
        docs = run[qid]
        docnos = _check_tokens(docs, f"query {qid}: document id")
        try:
            scores = [float(score) for score in docs.values()]
        except (TypeError, ValueError):
            bad = next((d, s) for d, s in docs.items() if not _is_number(s))
            raise ValueError(f"query {qid} document {bad[0]}: score {bad[1]!r} is not a number") from None
        if not all(map(math.isfinite, scores)):
            bad = next((d, s) for d, s in zip(docnos, scores) if not math.isfinite(s))
            raise ValueError(f"query {qid} document {bad[0]}: score {bad[1]!r} is not finite")
        floats = dict(zip(docnos, scores))
        ranked = [(floats[docno], docno) for docno in trec_order(floats, depth)]
        # repr() is the shortest text that float() reads back as the identical double.
        out.extend(
            f"{qid} Q0 {docno} {rank} {score!r} {name}\n" for rank, (score, docno) in enumerate(ranked, 1)
        )
    if not out:
        raise ValueError(f"run has no documents; {path} would be an empty, unreadable run file")
    _write_lines(path, out)


def _is_number(value) -> bool:
    """True if float(value) works."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def write_qrels(qrels: Mapping[str, Mapping[str, int]], path: str | os.PathLike) -> None:
    """Write ``qid 0 docno grade`` lines; queries in sorted (str) order, documents in dict order."""
    out: list[str] = []
    for qid in sorted(_check_tokens(qrels, "query id")):
        _check_tokens(qrels[qid], f"query {qid}: document id")
        for docno, grade in qrels[qid].items():
            try:
                if isinstance(grade, bool):
                    raise TypeError
                value = operator.index(grade)
            except TypeError:
                raise ValueError(f"query {qid} document {docno}: grade {grade!r} is not an integer") from None
            out.append(f"{qid} 0 {docno} {value}\n")
    if not out:
        raise ValueError(f"qrels have no judgments; {path} would be an empty, unreadable qrels file")
    _write_lines(path, out)
