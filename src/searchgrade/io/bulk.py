"""The fast reader of regular TREC files: numpy columns from blocks of lines, or None.

It reads a file only when every line is a plain data line (6 fields in a run, 4 in qrels;
blank lines only at the end), every score a finite number and every rank and grade a
64-bit integer, no document twice in a query.  On anything else it returns None and the
strict line-by-line reader of :mod:`searchgrade.io.text` reads the text (it defines the rules
and names the line of any error); a text of blank lines only it refuses itself, as the strict
reader would.  Both agree on what both read (``tests/io/test_io_inputs.py``).

The text is read in blocks of about BLOCK bytes, each cut at a line end, so that no block's
parsed table, and no Python object per line, is ever held for the whole file: each block
becomes a few numpy columns (ids as int32 codes into that block's distinct ids) and is
freed; at the end the blocks' distinct ids are numbered once for the whole file (the only
Python objects made are one str per distinct id).  The engine that splits a block is
:mod:`searchgrade.io.fields` (numpy alone: no parser library is imported).
"""
from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from typing import NamedTuple

import numpy as np

from . import fields
from .errors import LineSet, ReadReport, SourceError
from .text import empty

MIN_BYTES = 1 << 15  # below this the line-by-line reader is faster than starting a bulk reader
BLOCK = 1 << 22  # bytes of text parsed at a time (cut at a line end): what the reading holds besides its columns


class _Shape(NamedTuple):
    end: int  # bytes up to the end of the last data line (blank lines may follow); 0: only blank lines
    blank: int  # blank lines after it


class Columns(NamedTuple):
    """A regular file's columns: query and document ids as codes into their distinct values."""

    codes: np.ndarray  # query code of each row
    keys: list  # query id of each code
    doc_codes: np.ndarray  # document code of each row
    doc_keys: list  # docno of each document code
    values: np.ndarray  # score (float64) or grade (int64) of each row
    run_ids: tuple  # distinct run ids in order of first appearance (runs)
    last_run_id: str | None
    doc_fold: np.ndarray | None = None  # fields.fold of each document id (the bulk reader's), else None

    @property
    def docs(self) -> list:
        """The docno of each row (the same str object for the same docno)."""
        return np.array(self.doc_keys, dtype=object)[self.doc_codes].tolist()


def _shape(raw: bytes) -> _Shape | None:
    """Where the data lines end, if the engine can split raw into lines and fields as trec_eval does.

    None if raw holds what it would split differently (a lone CR ends a line for a C tokenizer;
    VT and FF separate fields for trec_eval; NUL ends trec_eval's file) or comment lines.
    Single-byte searches only (they run at memory speed), and a look at the last bytes.
    """
    if b"\x00" in raw or b"\x0b" in raw or b"\x0c" in raw or (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n")):
        return None
    if b"#" in raw and (raw.startswith(b"#") or b"\n#" in raw):  # comments: the strict reader reports them
        return None
    end = len(raw)
    while end and raw[end - 1] in b" \t\r\n" and len(raw) - end < 64:
        end -= 1
    end = len(raw.rstrip(b" \t\r\n")) if end and raw[end - 1] in b" \t\r\n" else end  # a long blank tail
    if not end:
        return _Shape(0, raw.count(b"\n") + (not raw.endswith(b"\n")))
    blank = raw.count(b"\n", end) - 1 + (not raw.endswith(b"\n"))
    return _Shape(raw.find(b"\n", end) + 1 or len(raw), blank)


def _number(parts: list, total: int) -> tuple[np.ndarray, list, np.ndarray | None]:
    """(codes, distinct ids, their folds or None) for the whole file from the blocks' parts, ids numbered in
    order of first appearance.

    The parts' distinct ids are numbered once, and each part's codes are mapped through that
    numbering: no object per row.
    """
    out = np.empty(total, dtype=np.int32 if total < 2**31 else np.int64)
    if not parts:
        return out, [], np.zeros(0, dtype=np.uint64)
    numbering, distinct, folds = _number_bytes([keys for _, keys in parts])
    row = first = 0
    for codes, keys in parts:
        out[row:row + len(codes)] = numbering[first:first + len(keys)][codes]
        row, first = row + len(codes), first + len(keys)
    return out, distinct, folds


def _number_bytes(dictionaries: list) -> tuple[np.ndarray, list, np.ndarray | None]:
    """(number of each part's distinct id, distinct ids, their folds or None) of the parts' NUL-padded byte
    matrices."""
    width = max(keys.shape[1] for keys in dictionaries)
    mat = np.zeros((sum(map(len, dictionaries)), width), dtype=np.uint8)
    row = 0
    for keys in dictionaries:
        mat[row:row + len(keys), :keys.shape[1]] = keys
        row += len(keys)
    got = fields.distinct(mat)
    if got is None:  # two ids with one key across blocks: numbered through their text instead
        number: dict[str, int] = {}
        ids = fields.texts(mat)
        numbering = np.fromiter((number.setdefault(i, len(number)) for i in ids), dtype=np.int64, count=len(ids))
        return numbering, list(number), None
    return got[0], fields.texts(got[1]), fields.fold(got[1])


def read_blocks(blocks: Iterable[bytes], source: str, kind: str) -> tuple[Columns, ReadReport] | None:
    """A regular run or qrels text, given in blocks that end at line ends, as ``(columns, report)``; or None.

    A (query, document) pair twice is checked only within a piece of a block (where it makes the
    reader decline at once, without reading on): the caller checks the whole file
    (:func:`has_repeats`) and declines it too, so that the strict reader names both lines.  Blank
    blocks are counted and dropped: blank lines only (64 MB of newlines) cost a block and raise
    "empty file" (SourceError).
    """
    got: list[fields.Block] = []
    rows = blank = 0
    for raw in blocks:
        shape = _shape(raw) if raw else _Shape(0, 0)
        if shape is None or (shape.end and blank):  # data after blank lines: the strict reader reports them
            return None
        if not shape.end:
            blank += shape.blank
            continue
        block = fields.read_block(raw, kind, shape.end)
        del raw
        if block is None:
            return None
        got.append(block)
        rows, blank = rows + len(block.values), shape.blank
    if not rows:
        raise empty(source, kind, LineSet(blank), LineSet(), SourceError)
    return _finish(got, rows, blank, source, kind)


def read_unit(raw: bytes, source: str, first_line: int = 1, twice: bool = False,
              docs: bool = True) -> tuple[Columns, ReadReport] | None:
    """A part of a run (whole lines, its first numbered first_line) as ``(columns, report)``, or None where the
    strict reader must read it (see :func:`read_blocks`); a part of blank lines only is read as no row.

    ``twice=False`` declines a (query, document) pair twice anywhere in the part (the strict reader names
    both lines); ``twice=True`` reads it, for a caller that looks for it itself (the spill files of
    :mod:`searchgrade.io.stream`).  ``docs=False`` checks the lines and reads their queries and scores but
    not their documents (``doc_codes`` None, ``doc_keys`` []), for a caller that only sorts the lines by query.
    """
    shape = _shape(raw) if raw else _Shape(0, 0)
    if shape is None:
        return None
    block = fields.read_block(raw, "run", shape.end, twice, docs) if shape.end else None
    if shape.end and block is None:
        return None
    got = _finish([block] if block else [], len(block.values) if block else 0, shape.blank, source, "run",
                  first_line, docs)
    if got is None or (docs and not twice and has_repeats(got[0])):
        return None
    return got


def _finish(got: list[fields.Block], rows: int, blank: int, source: str, kind: str, first_line: int = 1,
            docs: bool = True) -> tuple[Columns, ReadReport] | None:
    """The blocks as one file's columns and report, or None if an id is empty or a query id starts with '#'
    (first_line: the number of the blocks' first line, in the report's blank line numbers; docs=False: the
    blocks hold no documents, see :func:`read_unit`)."""
    codes, keys, _ = _number([part for block in got for part in block.qids], rows)
    doc_codes, doc_keys, doc_fold = (_number([part for block in got for part in block.docs], rows) if docs
                                     else (None, [], None))
    if "" in doc_keys or any(key.startswith("#") or not key for key in keys):
        return None  # a comment after leading blanks
    values = (np.concatenate([block.values for block in got]) if got  # one array of its own (blocks may be views)
              else np.zeros(0, dtype=np.float64 if kind == "run" else np.int64))
    run_ids = tuple(dict.fromkeys(chain.from_iterable(block.run_ids for block in got)))
    last = got[-1].last_run_id if got else None
    del got
    cols = Columns(codes, keys, doc_codes, doc_keys, values, run_ids, last, doc_fold)
    at = first_line + rows
    report = ReadReport(source, kind, rows + blank, rows, len(keys), blank=LineSet.of(range(at, at + blank)),
                        run_ids=run_ids, last_run_id=last)
    return cols, report


def columns_of(nested: dict, dtype) -> Columns:
    """The columns of nested dicts ``{qid: {docno: value}}``, in their order (values as dtype), without pandas
    (the trec_eval command reads a small file so: importing pandas would be most of its start-up)."""
    lengths = np.fromiter(map(len, nested.values()), dtype=np.int64, count=len(nested))
    codes = np.repeat(np.arange(len(nested), dtype=np.int64), lengths)
    docs = list(chain.from_iterable(nested.values()))
    number = dict(zip(dict.fromkeys(docs), range(len(docs))))  # docno -> code, in order of first appearance
    doc_codes = np.fromiter(map(number.__getitem__, docs), dtype=np.int64, count=len(docs))
    values = np.fromiter(chain.from_iterable(d.values() for d in nested.values()), dtype=dtype, count=len(docs))
    return Columns(codes, list(nested), doc_codes, list(number), values, (), None, folds(list(number)))


def folds(ids: list) -> np.ndarray | None:
    """:func:`searchgrade.io.fields.fold` of str ids (None if one is not a str); the readers' ids hold no NUL."""
    if not all(type(i) is str for i in ids):
        return None
    encoded = [i.encode("utf-8", "surrogatepass") for i in ids]
    width = (max(map(len, encoded), default=0) // 8 + 1) * 8
    mat = np.frombuffer(b"".join(e.ljust(width, b"\0") for e in encoded), dtype=np.uint8).reshape(len(ids), width)
    return fields.fold(mat)


def has_repeats(cols: Columns) -> bool:
    """Whether a (query, document) pair occurs twice."""
    return fields.repeats(cols.codes, len(cols.keys), cols.doc_codes, len(cols.doc_keys))


def nested(cols: Columns) -> dict | None:
    """Columns as ``{qid: {docno: value}}`` in file order, or None if a (query, document) pair repeats."""
    from .frames import nest
    return nest(cols.codes, cols.keys, cols.docs, cols.values.tolist())
