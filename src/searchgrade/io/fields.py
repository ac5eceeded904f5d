"""The bulk reader's engine: a block of TREC lines split into numpy columns by numpy alone.

It reads a block only when the block is valid UTF-8 and every line holds exactly its fields
(6 in a run, 4 in qrels), separated by runs of spaces, tabs or the CR of a CRLF line end (C
whitespace as trec_eval splits it; VT, FF and a lone CR never reach it), the line ended by a
newline (the last may have none); ranks and grades are decimal integers and scores decimal
numbers.  On anything else it returns None and the bulk reader hands the file to the strict
line reader, which defines the rules.  The usual layout (one space between fields, LF line
ends) is split as it is; any other is first squeezed to it (:func:`squeezed`, a copy of the
piece).

No Python object is made per line; numbers are read one character column at a time over all
lines.  An id's bytes, padded with NULs to a multiple of 8 bytes, are folded into one 64-bit
key per row: the bytes themselves for ids of at most 7 bytes, else a hash, and every row is
then compared with the first row of its key, so a collision declines the block instead of
merging two ids.  A score with at most 16 digits and no exponent is computed as
``m / 10**k`` (its digits as an integer over a power of ten): when ``m <= 2**53`` and
``k <= 22`` both are exact doubles and the one division rounds correctly, so the value is the
one ``float()`` gives.  Other scores go through ``float()``, one per score.
"""
from __future__ import annotations

from itertools import chain
from typing import NamedTuple

import numpy as np

from .sources import cuts

SPACE, TAB, CR, NEWLINE, DOT, PLUS, MINUS, ZERO = (ord(c) for c in " \t\r\n.+-0")
_MIX = np.uint64(0x9E3779B97F4A7C15)  # an odd constant (the golden ratio's bits) for folding 8-byte words
_POW10 = np.array([float(10**k) for k in range(23)])  # exact doubles
_EXACT = 2**53  # integers up to here are exact doubles
MAX_WIDTH = 256  # bytes in a field: every line's field is padded to the longest one
PIECE = 1 << 20  # bytes split at a time (the arrays of a piece are about 8 times larger and stay in the cache)
NAMES = {"run": ("qid", "iter", "docno", "rank", "score", "runid"), "qrels": ("qid", "iter", "docno", "rel")}
_NUMBER_BYTES = np.zeros(256, dtype=bool)  # what a decimal number's text may hold (and the NUL padding)
_NUMBER_BYTES[[0, DOT, PLUS, MINUS, ord("e"), ord("E"), *range(ZERO, ZERO + 10)]] = True


def field_bounds(a: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(starts, lengths) of each line's n fields, arrays of shape (lines, n); None unless every line
    has exactly n non-empty fields of at most MAX_WIDTH bytes, separated by single spaces."""
    seps = np.flatnonzero((a == SPACE) | (a == NEWLINE))
    newline = a[seps] == NEWLINE
    if not len(a) or a[-1] != NEWLINE:  # the last line without its newline
        seps, newline = np.append(seps, len(a)), np.append(newline, True)
    if len(seps) % n:
        return None
    newline = newline.reshape(-1, n)
    if newline[:, :-1].any() or not newline[:, -1].all():
        return None
    starts = np.empty(len(seps), dtype=seps.dtype)
    starts[0] = 0
    starts[1:] = seps[:-1] + 1
    lengths = seps - starts
    if not lengths.all() or lengths.max() > MAX_WIDTH:  # an empty field: two spaces in a row, a blank
        return None  # line, a space at an end; a field so long that padding every line to it would cost
    return starts.reshape(-1, n), lengths.reshape(-1, n)


def _column(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray, j: int) -> np.ndarray:
    """The j-th byte of a field on every line (0 past the field's end)."""
    column = np.take(a, starts + j, mode="clip")
    column[lengths <= j] = 0
    return column


def field_bytes(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A field of every line as a (lines, width) uint8 matrix, NUL-padded; width a multiple of 8
    above the longest field (so each row ends with at least one NUL)."""
    width = (int(lengths.max(initial=0)) // 8 + 1) * 8
    out = np.zeros((len(starts), width), dtype=np.uint8)
    for j in range(int(lengths.max(initial=0))):
        out[:, j] = _column(a, starts, lengths, j)
    return out


def _keys(words: np.ndarray) -> np.ndarray:
    """One 64-bit key per row of 8-byte words: the word itself for one word, else a fold of the words."""
    key = words[:, 0].copy()
    for j in range(1, words.shape[1]):
        key ^= words[:, j]
        key *= _MIX
    return key


def fold(mat: np.ndarray) -> np.ndarray:
    """One 64-bit number per row of a NUL-padded byte matrix of ids (width a multiple of 8), the same for the
    same id whatever the matrix's width (a word of NULs, past an id's end, leaves it as it is): equal ids,
    equal numbers, so that two files' ids can be screened against each other without their text."""
    words = mat.view(np.uint64)
    key = words[:, 0].copy()
    for j in range(1, words.shape[1]):
        more = words[:, j] != 0
        key[more] = (key[more] ^ words[more, j]) * _MIX
    return key


def _numbered(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code of each key, numbered in order of first appearance; the first position of each code)."""
    dtype = np.int32 if len(keys) < 2**31 else np.int64
    if not len(keys):
        return np.zeros(0, dtype=dtype), np.zeros(0, dtype=np.intp)
    perm = np.argsort(keys)
    in_order = keys[perm]
    head = np.empty(len(keys), dtype=bool)
    head[0] = True
    np.not_equal(in_order[1:], in_order[:-1], out=head[1:])
    heads = np.flatnonzero(head)
    first = np.minimum.reduceat(perm, heads)
    order = np.argsort(first)
    number = np.empty(len(heads), dtype=dtype)
    number[order] = np.arange(len(heads), dtype=dtype)
    codes = np.empty(len(keys), dtype=dtype)
    codes[perm] = number[np.cumsum(head) - 1]
    return codes, first[order]


def distinct(mat: np.ndarray, grouped: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
    """(code of each row, distinct rows in order of first appearance) of a NUL-padded byte matrix, or
    None on a hash collision.  grouped: equal rows mostly come together (query ids, run ids), so only
    the first row of each group is sorted."""
    words = mat.view(np.uint64)
    keys = _keys(words)
    if grouped and len(keys):
        heads = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
        codes, first = _numbered(keys[heads])
        codes, first = np.repeat(codes, np.diff(np.append(heads, len(keys)))), heads[first]
    else:
        codes, first = _numbered(keys)
    if words.shape[1] > 1 and not (words == words[first][codes]).all():
        return None  # two ids with one key: the block goes to another engine
    return codes, mat[first]


def texts(mat: np.ndarray) -> list[str]:
    """The rows of a NUL-padded matrix of UTF-8 bytes as str (each row ends with a NUL)."""
    if not len(mat):
        return []
    marked = mat.copy()
    marked[np.arange(len(mat)), np.count_nonzero(mat, axis=1)] = NEWLINE
    return marked[marked != 0].tobytes().decode("utf-8").split("\n")[:-1]


def _digits(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple:
    """Column by column over a numeric field: (its digits as an integer (exact up to 18 digits), digits,
    digits after a dot, dots, whether it starts with a sign, whether it starts with a minus)."""
    rows = len(starts)
    value, n_digits = np.zeros(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64)
    after, dots = np.zeros(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64)
    first = np.take(a, starts)
    minus = first == MINUS
    for j in range(int(lengths.max(initial=0))):
        column = _column(a, starts, lengths, j)
        digit = column - ZERO
        is_digit = digit < 10
        np.copyto(value, value * 10 + digit, where=is_digit)
        dots += column == DOT
        n_digits += is_digit
        after += is_digit & (dots > 0)
    return value, n_digits, after, dots, minus | (first == PLUS), minus


def are_integers(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> bool:
    """Whether every field is a decimal integer (an optional sign, then digits), whatever its size."""
    first = np.take(a, starts)
    signed = (first == PLUS) | (first == MINUS)
    ok = ((first - ZERO) < 10) | (signed & (lengths > 1))
    for j in range(1, int(lengths.max(initial=0))):
        ok &= ((np.take(a, starts + j, mode="clip") - ZERO) < 10) | (lengths <= j)
    return bool(ok.all())


def integers(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """A field of decimal integers (an optional sign, digits) as int64, or None if one is not such an
    integer or is outside 64 bits."""
    value, n_digits, _, _, signed, minus = _digits(a, starts, lengths)
    if not n_digits.all() or (n_digits + signed != lengths).any():
        return None
    if int(n_digits.max(initial=0)) > 18:  # beyond what the int64 accumulator holds exactly
        try:
            return _as_text(field_bytes(a, starts, lengths)).astype(np.int64)
        except (ValueError, OverflowError):
            return None
    value[minus] *= -1
    return value


def decimals(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """A field of decimal numbers as float64, as ``float()`` reads them; None if one holds a byte no
    decimal number has or ``float()`` refuses it."""
    value, n_digits, after, dots, signed, minus = _digits(a, starts, lengths)
    plain = (n_digits + dots + signed == lengths) & (dots <= 1) & (n_digits >= 1) & (n_digits <= 16) \
        & (value <= _EXACT) & (after <= 22)
    number = value / _POW10[np.minimum(after, 22)]
    number[minus] *= -1
    if not plain.all():  # exponents, many digits, or not a number: float() decides
        rest = ~plain
        mat = field_bytes(a, starts[rest], lengths[rest])
        if not _NUMBER_BYTES[mat].all():
            return None
        try:
            number[rest] = _as_text(mat).astype(np.float64)
        except ValueError:
            return None
    return number


def _as_text(mat: np.ndarray) -> np.ndarray:
    """A NUL-padded byte matrix as a numpy bytes array, one element per row."""
    return mat.view(f"S{mat.shape[1]}").ravel()


# --------------------------------------------------------------------------------- a block of lines
class Block(NamedTuple):
    """One block's columns: ids as parts (codes, that part's distinct ids as a NUL-padded uint8 matrix),
    numbered for the whole file by the bulk reader."""

    qids: list  # [(codes, distinct ids)], one part per piece
    docs: list
    values: np.ndarray  # scores (float64) or grades (int64)
    run_ids: tuple  # in order of first appearance in the block
    last_run_id: str | None


def read_block(raw: bytes, kind: str, end: int, twice: bool = False, docs: bool = True) -> Block | None:
    """The data lines ``raw[:end]`` of a run or qrels block (cut at line ends) as columns, or None where this
    engine declines (see the module's docstring).

    The block is split in pieces of about PIECE bytes (views of raw, not copies).  ``twice=True`` reads a
    (query, document) pair twice too (the caller looks for it and names its lines); ``docs=False`` (which
    implies twice) checks the lines without numbering their documents (the block's ``docs`` are then []).
    """
    spaced = raw.find(b"\t", 0, end) < 0 and raw.find(b"\r", 0, end) < 0  # else pieces are squeezed first
    pieces = [_piece(np.frombuffer(raw, dtype=np.uint8, count=stop - start, offset=start), kind, spaced, twice,
                     docs) for start, stop in cuts(raw, PIECE, end)]
    if not pieces or any(piece is None for piece in pieces):
        return None
    values = pieces[0].values if len(pieces) == 1 else np.concatenate([piece.values for piece in pieces])
    if kind == "run" and not np.isfinite(values).all():
        return None
    run_ids = tuple(dict.fromkeys(chain.from_iterable(piece.run_ids for piece in pieces)))
    return Block([part for piece in pieces for part in piece.qids], [part for piece in pieces for part in piece.docs],
                 values, run_ids, pieces[-1].last_run_id)


def _piece(a: np.ndarray, kind: str, spaced: bool, twice: bool = False, with_docs: bool = True) -> Block | None:
    """Lines of bytes as a block's columns, or None (see read_block); spaced: no tab or CR in them."""
    if not _utf8(a):
        return None
    names = NAMES[kind]
    if (split := split_fields(a, len(names), spaced)) is None:
        return None
    a, bounds = split
    field = {name: (a, bounds[0][:, i], bounds[1][:, i]) for i, name in enumerate(names)}
    qids = distinct(field_bytes(*field["qid"]), grouped=True)
    docs = distinct(field_bytes(*field["docno"])) if with_docs else ()
    if qids is None or docs is None or (with_docs and not twice and repeats(qids[0], len(qids[1]), docs[0],
                                                                             len(docs[1]))):
        return None  # a document twice in a query: declined at once (the strict reader names both lines)
    run_ids, last = (), None
    if kind == "run":
        values = decimals(*field["score"])
        if values is None or not are_integers(*field["rank"]):
            return None
        run_ids, last = _run_ids(*field["runid"])
        if last is None:
            return None
    else:
        values = integers(*field["rel"])
        if values is None:
            return None
    return Block([qids], [docs] if with_docs else [], values, run_ids, last)


def split_fields(a: np.ndarray, n: int, spaced: bool = True):
    """(the lines, (starts, lengths)) of lines of bytes with n fields each: as they are when fields are split by
    single spaces (``spaced``: no tab or CR to squeeze), else squeezed first (:func:`squeezed`); None unless
    every line then has exactly n fields (see :func:`field_bounds`)."""
    bounds = field_bounds(a, n) if spaced else None
    if bounds is None and (a := squeezed(a)) is not None:
        bounds = field_bounds(a, n)
    return None if bounds is None else (a, bounds)


def squeezed(a: np.ndarray) -> np.ndarray | None:
    """A copy of lines of bytes in the usual layout: each run of spaces, tabs and CRs within a line one space,
    none at a line's start or end (fields as C whitespace splits them); None if a has nothing to squeeze."""
    gap = (a == SPACE) | (a == TAB) | (a == CR)
    edges = np.flatnonzero(np.diff(gap.view(np.int8), prepend=0, append=0))
    starts, ends = edges[0::2], edges[1::2]  # each run of separators is a[start:end]
    inside = (starts > 0) & (ends < len(a))
    inside[inside] = (a[starts[inside] - 1] != NEWLINE) & (a[ends[inside]] != NEWLINE)
    if inside.all() and (ends - starts == 1).all() and not (a[starts] != SPACE).any():
        return None  # one space between fields already: field_bounds declined for another reason
    keep = ~gap
    keep[starts[inside]] = True  # the first separator of a run between two fields stands for the run
    out = a[keep]
    out[(out == TAB) | (out == CR)] = SPACE
    return out


def _utf8(a: np.ndarray) -> bool:
    """Whether bytes are valid UTF-8 (ASCII at a glance; else decoded once and dropped)."""
    if a.max(initial=0) < 128:
        return True
    try:
        a.tobytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _run_ids(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[tuple, str | None]:
    """(distinct run ids in order of first appearance, the last line's), or ((), None) on a hash collision."""
    ids = distinct(field_bytes(a, starts, lengths), grouped=True)
    if ids is None:
        return (), None
    names = texts(ids[1])
    return tuple(names), names[ids[0][-1]]


def repeats(codes: np.ndarray, n_codes: int, doc_codes: np.ndarray, n_docs: int) -> bool:
    """Whether a (query code, document code) pair occurs twice.

    One key per row; marked in a table of every pair where that table takes at most about
    8 bytes a row (ten times faster than sorting 2,000,000 keys), else sorted in place.
    """
    n_docs = max(n_docs, 1)
    n_keys = max(n_codes, 1) * n_docs
    key = codes.astype(np.int32 if n_keys < 2**31 else np.int64)
    key *= n_docs
    key += doc_codes
    if n_keys <= 8 * len(key) + (1 << 20):
        seen = np.zeros(n_keys, dtype=bool)
        seen[key] = True
        return int(np.count_nonzero(seen)) != len(key)
    key.sort()
    return bool((key[1:] == key[:-1]).any())
