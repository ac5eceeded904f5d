"""The Cranfield collection (Cleverdon, 1960s): 1,400 abstracts, 225 questions, graded judgments.

Cranfield grade convention (``grades="book"``, the default)
-----------------------------------------------------------
``cranqrel`` holds Cleverdon's relevance codes, where *smaller is better*:
1 = complete answer, 2 = high degree of relevance, 3 = useful background,
4 = minimum interest (5 = of no interest is never listed). The file also holds
exactly one line with code -1 for every query (``meta["minus_one"]``, ``{qid: [docid]}``). The data
say what it is: the -1 document is published later than the query's graded
documents (median year 1962 against 1958), BM25 puts it at rank 1 for 43% of
the queries, and several queries share one (225 lines, 128 documents). It is
the question's *source document*, the paper whose author posed the question
and whose references were then judged; Cleverdon's codes do not grade it.
The book converts::

    book grade = 5 - code   for code 1..4   (4 = complete answer ... 1 = minimum interest)
    book grade = 0          for code -1     (kept as judged, counted non-relevant)

so that higher is better, as graded measures such as nDCG require, and every
code 1..4 is relevant at ``rel_level=1``. Because a retriever that finds a
question's source paper should neither be rewarded nor punished for it,
``collection.exclude`` maps each query to its source document; pass it to
``retrieval.search(..., exclude=collection.exclude)`` to leave it out of the
ranking, as the book's chapters do. ``grades="raw"`` returns the codes as they
are in the file; ``collection.raw_codes`` always holds them.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..io.types import Qrels
from .base import Collection, CollectionFormatError, _read_text_lines, _require, register

__all__ = [
    "read_cranfield_docs",
    "read_cranfield_queries",
    "read_cranfield_qrels",
    "cranfield_grade",
    "CRANFIELD_CODES",
    "CRANFIELD_CONVENTION",
]


_DOC_FIELDS = (".T", ".A", ".B", ".W")


def _parse_id(text: str, path: Path, lineno: int) -> str:
    """The number after ``.I``, checked to be a positive decimal integer."""
    parts = text.split()
    if len(parts) != 2 or not parts[1].isascii() or not parts[1].isdigit():
        raise CollectionFormatError(path, lineno, f"expected '.I <number>', got {text!r}")
    return parts[1]


def read_cranfield_docs(path: str | os.PathLike) -> tuple[dict[str, dict[str, str]], list[dict]]:
    """Parse ``cran.all.1400`` (.I .T .A .B .W records) into ``({docid: {...}}, quirks)``.

    Each record must start with ``.I n`` and contain a ``.W`` (abstract) field,
    possibly empty. ``title`` is the .T text and ``text`` the .W text, lines
    joined by single spaces; ``author`` and ``bib`` hold .A and .B. Once ``.W``
    has begun, the rest of the record is abstract: a repeated marker there
    (documents 240, 576 and 578 of the real file) is not a new field; the
    marker line is left out of the text and reported in the returned quirks.
    """
    path = Path(path)
    lines = _read_text_lines(path)
    docs: dict[str, dict[str, str]] = {}
    quirks: list[dict] = []
    record: dict | None = None

    for lineno, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith(".I"):
            _close_record(path, record, docs)
            docid = _parse_id(stripped, path, lineno)
            if docid in docs or (record is not None and record["id"] == docid):
                raise CollectionFormatError(path, lineno, f"document id {docid} occurs twice")
            record = {"id": docid, "line": lineno, "fields": {}, "current": None}
            continue
        if record is None:
            if stripped:
                raise CollectionFormatError(path, lineno, "text before the first '.I' record")
            continue
        if stripped in _DOC_FIELDS:
            if ".W" in record["fields"]:
                quirks.append({"docid": record["id"], "line": lineno, "marker": stripped,
                               "treatment": "marker inside the abstract; its line left out, text kept"})
                continue
            if stripped in record["fields"]:
                raise CollectionFormatError(path, lineno, f"field {stripped} repeated in document {record['id']}")
            record["fields"][stripped] = []
            record["current"] = stripped
            continue
        if stripped.startswith(".") and len(stripped) == 2 and stripped[1].isalpha():
            raise CollectionFormatError(path, lineno, f"unknown field marker {stripped!r}")
        if record["current"] is None:
            if stripped:
                raise CollectionFormatError(path, lineno, f"text outside any field in document {record['id']}")
            continue
        record["fields"][record["current"]].append(stripped)
    _close_record(path, record, docs)
    if not docs:
        raise CollectionFormatError(path, None, "no '.I' records found")
    return docs, quirks


def _close_record(path: Path, rec: dict | None, docs: dict[str, dict[str, str]]) -> None:
    """Store a finished Cranfield record in ``docs`` (fields' lines joined by single spaces); it needs a .W field."""
    if rec is None:
        return
    if ".W" not in rec["fields"]:
        raise CollectionFormatError(path, rec["line"], f"document {rec['id']} has no .W (abstract) field")
    f = rec["fields"]
    docs[rec["id"]] = {
        "title": " ".join(" ".join(f.get(".T", [])).split()),
        "text": " ".join(" ".join(f[".W"]).split()),
        "author": " ".join(" ".join(f.get(".A", [])).split()),
        "bib": " ".join(" ".join(f.get(".B", [])).split()),
    }


def read_cranfield_queries(path: str | os.PathLike) -> tuple[dict[str, str], dict[str, str]]:
    """Parse ``cran.qry`` into ``({qid: text}, {qid: original number})``, renumbering 1..n in file order.

    The file numbers its queries 001..365 with gaps; ``cranqrel`` refers to
    them by position (1..225), so the n-th query in the file gets id ``str(n)``.
    """
    path = Path(path)
    lines = _read_text_lines(path)
    texts: list[list[str]] = []
    original: list[str] = []
    starts: list[int] = []
    in_text = False
    for lineno, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith(".I"):
            if texts and not in_text:
                raise CollectionFormatError(path, starts[-1], f"query {original[-1]} has no .W field")
            number = _parse_id(stripped, path, lineno)
            if number in original:
                raise CollectionFormatError(path, lineno, f"query number {number} occurs twice")
            original.append(number)
            starts.append(lineno)
            texts.append([])
            in_text = False
        elif stripped == ".W":
            if not texts:
                raise CollectionFormatError(path, lineno, ".W before the first '.I' record")
            if in_text:
                raise CollectionFormatError(path, lineno, f".W repeated in query {original[-1]}")
            in_text = True
        elif stripped.startswith(".") and len(stripped) == 2 and stripped[1].isalpha():
            raise CollectionFormatError(path, lineno, f"unknown field marker {stripped!r}")
        elif stripped:
            if not in_text:
                raise CollectionFormatError(path, lineno, "query text outside a .W field")
            texts[-1].append(stripped)
    if texts and not in_text:
        raise CollectionFormatError(path, starts[-1], f"query {original[-1]} has no .W field")
    if not texts:
        raise CollectionFormatError(path, None, "no '.I' records found")
    queries, numbers = {}, {}
    for i, (words, number) in enumerate(zip(texts, original), 1):
        text = " ".join(" ".join(words).split())
        if not text:
            raise CollectionFormatError(path, starts[i - 1], f"query {number} has an empty .W field")
        queries[str(i)] = text
        numbers[str(i)] = number
    return queries, numbers


def read_cranfield_qrels(path: str | os.PathLike) -> tuple[Qrels, int]:
    """Parse ``cranqrel`` (``qid docid code`` per line) into ``({qid: {docid: code}}, number of lines)``.

    Codes must be -1, 1, 2, 3 or 4; a repeated (qid, docid) pair is an error.
    """
    path = Path(path)
    lines = _read_text_lines(path)
    qrels: Qrels = {}
    count = 0
    for lineno, line in enumerate(lines, 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 3:
            raise CollectionFormatError(path, lineno, f"expected 3 fields 'qid docid code', got {len(parts)}")
        qid, docid, code_text = parts
        for what, value in (("query id", qid), ("document id", docid)):
            if not (value.isascii() and value.isdigit()):
                raise CollectionFormatError(path, lineno, f"{what} {value!r} is not a positive integer")
        try:
            code = int(code_text)
        except ValueError:
            raise CollectionFormatError(path, lineno, f"relevance code {code_text!r} is not an integer") from None
        if code not in (-1, 1, 2, 3, 4):
            raise CollectionFormatError(path, lineno, f"relevance code {code} is not one of -1, 1, 2, 3, 4")
        qid, docid = str(int(qid)), str(int(docid))
        row = qrels.setdefault(qid, {})
        if docid in row:
            raise CollectionFormatError(path, lineno, f"query {qid} judges document {docid} twice")
        row[docid] = code
        count += 1
    if count == 0:
        raise CollectionFormatError(path, None, "no judgments found")
    return qrels, count


def cranfield_grade(code: int) -> int:
    """Book grade of a Cleverdon code: 5 - code for 1..4 (higher is better), 0 for -1."""
    if code == -1:
        return 0
    if code in (1, 2, 3, 4):
        return 5 - code
    raise ValueError(f"Cranfield relevance code {code} is not one of -1, 1, 2, 3, 4")


CRANFIELD_CODES = {
    1: "References which are a complete answer to the question.",
    2: "References of a high degree of relevance, the lack of which either would have made the "
       "research impracticable or would have resulted in a considerable amount of extra work.",
    3: "References which were useful, either as general background to the work or as suggesting "
       "methods of tackling certain aspects of the work.",
    4: "References of minimum interest, for example, those that have been included from an "
       "historical viewpoint.",
    5: "References of no interest (never listed in cranqrel).",
}

CRANFIELD_CONVENTION = (
    "cranqrel holds Cleverdon's codes (smaller is better): 1 complete answer, 2 high relevance, "
    "3 useful, 4 minimum interest; 5 (no interest) is never listed. Book grade = 5 - code, so 4 = "
    "complete answer ... 1 = minimum interest (higher is better). Every query also has exactly one "
    "line with code -1: the question's source document (the paper its author wrote; inferred from "
    "the data: later publication years, BM25 rank 1 for 43% of queries); the book keeps it in the "
    "qrels as judged non-relevant, grade 0, and leaves it out of rankings via Collection.exclude. "
    "'Relevant' in binary measures = any code 1..4 = book grade >= 1."
)


def _load_cranfield(data_dir: Path, grades: str = "book") -> Collection:
    """Cranfield II: 1,400 aeronautics abstracts, 225 queries, 1,837 graded judgments."""
    if grades not in ("book", "raw"):
        raise ValueError(f"grades must be 'book' or 'raw', not {grades!r}")
    folder = data_dir / "cranfield"
    files = ["cran.all.1400", "cran.qry", "cranqrel"]
    _require(folder, files, "cranfield")
    corpus, quirks = read_cranfield_docs(folder / "cran.all.1400")
    queries, numbers = read_cranfield_queries(folder / "cran.qry")
    codes, nlines = read_cranfield_qrels(folder / "cranqrel")
    qrels_path = folder / "cranqrel"
    for qid, row in codes.items():
        if qid not in queries:
            raise CollectionFormatError(qrels_path, None, f"query {qid} is judged but not in cran.qry")
        for docid in row:
            if docid not in corpus:
                raise CollectionFormatError(qrels_path, None, f"document {docid} (query {qid}) is not in cran.all.1400")
    if grades == "book":
        qrels = {q: {d: cranfield_grade(c) for d, c in row.items()} for q, row in codes.items()}
    else:
        qrels = {q: dict(row) for q, row in codes.items()}
    minus_one = {q: sorted((d for d, c in row.items() if c == -1), key=int) for q, row in codes.items()}
    minus_one = {q: docs for q, docs in minus_one.items() if docs}
    meta = {
        "source": "Cranfield II collection (Cleverdon, College of Aeronautics, Cranfield, 1960s); "
                  "files cran.all.1400, cran.qry, cranqrel as distributed by the Glasgow IR group, "
                  "copied from lorainemg/information-retrieval-system @ c87a743f",
        "licence": "public research collection, freely redistributed since the 1960s; credit Cleverdon, Cranfield",
        "grades": grades,
        "grade_convention": CRANFIELD_CONVENTION,
        "codes": dict(CRANFIELD_CODES),
        "judgment_lines": nlines,
        "original_query_ids": numbers,
        "minus_one": minus_one,
        "empty_documents": sorted((d for d, v in corpus.items() if not v["text"]), key=int),
        "quirks": quirks,
        "files": {n: str(folder / n) for n in files},
    }
    exclude = {q: set(docs) for q, docs in minus_one.items()}
    return Collection("cranfield", corpus, queries, qrels, meta, raw_codes=codes, exclude=exclude)


register("cranfield", _load_cranfield)
