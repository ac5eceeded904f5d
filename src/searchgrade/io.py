"""Strict readers and writers for TREC qrels and run files.

A qrels line is ``qid iter docno rel`` and a run line is
``qid iter docno rank score runid``, fields separated by any whitespace.
Blank lines are skipped (they hold no data); every other malformed line is an
error that names the file, the line and the problem. Nothing is silently dropped.

In memory, qrels are ``{qid: {docno: grade}}`` and runs ``{qid: {docno: score}}``.
A run read from a file keeps the file's order within each query (dict insertion
order), which is the "input" tie order of ``searchgrade.evaluate``.

The writers put query ids in plain string order ("10" sorts before "9") and a
run's documents in trec_eval's order (score descending, ties by docno
descending). Scores are written with ``repr``, the shortest text that reads
back as the identical float, so write-then-read round trips are exact.
"""
from __future__ import annotations

import math
import operator
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = [
    "FormatError",
    "trec_order",
    "parse_qrels",
    "read_qrels",
    "parse_run",
    "read_run",
    "write_run",
    "write_qrels",
]

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]

_QRELS_FORMAT = "'qid iter docno rel'"
_RUN_FORMAT = "'qid iter docno rank score runid'"


class FormatError(ValueError):
    """A malformed qrels or run file: ``str()`` is ``"{path}:{line}: {problem}"``."""

    def __init__(self, path: str, line: int | None, problem: str):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.problem))


def _as_lines(lines: Iterable[str] | str) -> list[str]:
    """A list of lines; a single string is split at newlines (not at other Unicode breaks)."""
    if isinstance(lines, str):
        return lines.split("\n")
    return lines if isinstance(lines, list) else list(lines)


def _read_lines(path: str | os.PathLike) -> list[str]:
    """The lines of a UTF-8 file (a leading byte-order mark is skipped); bad bytes raise FormatError."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise FormatError(str(path), line, f"not valid UTF-8 ({err.reason})") from None
    return text.split("\n")


def _int(text: str, what: str, source: str, lineno: int) -> int:
    """Parse an ASCII decimal integer such as '-1' or '+3' (no underscores, no other digits)."""
    try:
        if text.isascii() and "_" not in text:
            return int(text)
    except ValueError:
        pass
    raise FormatError(source, lineno, f"{what} {text!r} is not an integer")


def _first_line(lines: list[str], stop: int, nfields: int, qid: str, docno: str) -> int:
    """1-based number of the first line before index stop that holds (qid, docno)."""
    for i in range(stop):
        f = lines[i].split()
        if len(f) == nfields and f[0] == qid and f[2] == docno:
            return i + 1
    raise AssertionError("duplicate without a first occurrence")  # pragma: no cover


def parse_qrels(lines: Iterable[str] | str, source: str = "<string>") -> Qrels:
    """Parse qrels lines ``qid iter docno rel`` into ``{qid: {docno: grade}}`` (grade: any integer)."""
    lines = _as_lines(lines)
    qrels: Qrels = {}
    for lineno, line in enumerate(lines, 1):
        f = line.split()
        if len(f) != 4:
            if not f:
                continue
            raise FormatError(source, lineno, f"expected 4 fields {_QRELS_FORMAT}, found {len(f)}")
        qid, _, docno, rel = f
        grade = _int(rel, "relevance grade", source, lineno)
        docs = qrels.get(qid)
        if docs is None:
            docs = qrels[qid] = {}
        elif docno in docs:
            first = _first_line(lines, lineno - 1, 4, qid, docno)
            raise FormatError(
                source, lineno, f"duplicate judgment: query {qid} document {docno} is already on line {first}"
            )
        docs[docno] = grade
    if not qrels:
        raise FormatError(source, None, "empty file: no qrels lines")
    return qrels


def read_qrels(path: str | os.PathLike) -> Qrels:
    """Read a TREC qrels file (UTF-8) into ``{qid: {docno: grade}}``."""
    return parse_qrels(_read_lines(path), source=str(path))


def parse_run(
    lines: Iterable[str] | str, source: str = "<string>", with_name: bool = False
) -> Run | tuple[Run, str]:
    """Parse run lines ``qid iter docno rank score runid`` into ``{qid: {docno: score}}``, in file order."""
    lines = _as_lines(lines)
    run: Run = {}
    name = None
    isfinite = math.isfinite
    for lineno, line in enumerate(lines, 1):
        f = line.split()
        if len(f) != 6:
            if not f:
                continue
            raise FormatError(source, lineno, f"expected 6 fields {_RUN_FORMAT}, found {len(f)}")
        qid, _, docno, rank, score_text, runid = f
        if not (rank.isdecimal() and rank.isascii()):  # fast path for the usual 1, 2, 3, ...
            _int(rank, "rank", source, lineno)
        try:
            if "_" in score_text or not score_text.isascii():  # Python-only spellings such as 1_000
                raise ValueError
            score = float(score_text)
        except ValueError:
            raise FormatError(source, lineno, f"score {score_text!r} is not a number") from None
        if not isfinite(score):
            raise FormatError(source, lineno, f"score {score_text!r} is not finite")
        if name is None:
            name = runid
        docs = run.get(qid)
        if docs is None:
            docs = run[qid] = {}
        elif docno in docs:
            first = _first_line(lines, lineno - 1, 6, qid, docno)
            raise FormatError(
                source, lineno, f"duplicate document: query {qid} document {docno} is already on line {first}"
            )
        docs[docno] = score
    if not run:
        raise FormatError(source, None, "empty file: no run lines")
    return (run, name) if with_name else run


def read_run(path: str | os.PathLike, with_name: bool = False) -> Run | tuple[Run, str]:
    """Read a TREC run file (UTF-8); with_name=True also returns the runid of its first line."""
    return parse_run(_read_lines(path), source=str(path), with_name=with_name)


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
        # trec_eval's order (see trec_order): score descending, ties broken by docno descending.
        ranked = sorted(zip(scores, docnos), reverse=True)[:depth]
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
