"""AutoRAGRetrieval (the Korean AutoRAG embedding benchmark): 720 chunks of PDF text, 114 questions."""
from __future__ import annotations

import re
from pathlib import Path

from ..places import data_root
from .base import Collection, CollectionFormatError, _expect, _PathLike, register

__all__ = ["load_autorag"]


def _autorag_docid(original: str) -> str:
    """TREC-safe id of an AutoRAG chunk: each whitespace run becomes ``_`` (``'law - a b.pdf - 4'`` -> ``law_-_a_b.pdf_-_4``)."""
    return re.sub(r"\s+", "_", original.strip())


def _as_list(value) -> list:
    """A parquet list cell (numpy array or list) as a Python list."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return list(value)
    raise TypeError(type(value).__name__)


def load_autorag(data_dir: _PathLike | None = None) -> Collection:
    """AutoRAGRetrieval (Marker-Inc-Korea): 720 OCR'd PDF chunks, 114 questions, one relevant chunk each.

    Corpus from ``ocr_corpus_v3.parquet`` (columns ``doc_id``, ``contents``,
    ``metadata``), queries from ``qa_v4.parquet`` (``qid``, ``query``,
    ``generation_gt``, ``retrieval_gt``). The original chunk ids
    (``'finance - <file>.pdf - 4'``) contain spaces, which TREC files cannot
    hold, so each whitespace run becomes ``_``; the original id is kept in
    ``corpus[docid]["source"]``. The title is left empty (the file name is
    metadata, not text of the chunk). ``retrieval_gt`` is a list of lists of
    chunk ids; every id in it gets grade 1. ``meta["answers"]`` holds the
    reference answers (``generation_gt``).
    """
    import pandas as pd

    folder = data_root(data_dir) / "autorag"
    cpath, qpath = folder / "ocr_corpus_v3.parquet", folder / "qa_v4.parquet"
    for p in (cpath, qpath):
        if not p.is_file():
            raise FileNotFoundError(f"{p}: no such file (pass data_dir= or set SEARCHGRADE_DATA)")
    docs = pd.read_parquet(cpath)
    qa = pd.read_parquet(qpath)
    for path, frame, cols in ((cpath, docs, ("doc_id", "contents")),
                              (qpath, qa, ("qid", "query", "retrieval_gt", "generation_gt"))):
        missing = [c for c in cols if c not in frame.columns]
        _expect(not missing, path, f"missing column(s) {', '.join(missing)}; has {', '.join(map(str, frame.columns))}")
    corpus, original = _autorag_corpus(cpath, docs)
    queries, qrels, answers = _autorag_questions(qpath, qa, {o: d for d, o in original.items()}, cpath.name)
    meta = {
        "source": "AutoRAGRetrieval (MTEB Korean retrieval task), Marker-Inc-Korea/"
                  "AutoRAG-example-korean-embedding-benchmark @ 9a0ba3c3, data/ocr_corpus_v3.parquet, data/qa_v4.parquet",
        "licence": "not specified by its authors (MTEB lists it as not specified); credit Marker-Inc-Korea",
        "grades": "1 = the chunk named in retrieval_gt",
        "docid_scheme": "original doc_id with each whitespace run replaced by '_'; original in corpus[d]['source']",
        "original_ids": original,
        "domains": sorted({o.split(" - ")[0] for o in original.values()}),
        "answers": answers,
        "files": {"corpus": str(cpath), "qa": str(qpath)},
    }
    return Collection("autorag", corpus, queries, qrels, meta)


def _autorag_corpus(cpath: Path, docs) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """The chunks as ``{docid: {title, text, source}}`` and ``{docid: original id}``; ids checked unique both ways."""
    corpus: dict[str, dict[str, str]] = {}
    original: dict[str, str] = {}
    seen: set[str] = set()
    for row, (orig, text) in enumerate(zip(docs["doc_id"], docs["contents"])):
        _expect(isinstance(orig, str) and orig.strip() != "", cpath, f"row {row}: doc_id {orig!r} is not a non-empty string")
        _expect(isinstance(text, str), cpath, f"row {row}: contents of {orig!r} is not a string")
        docid = _autorag_docid(orig)
        _expect(orig not in seen, cpath, f"row {row}: doc_id {orig!r} occurs twice")
        seen.add(orig)
        _expect(docid not in corpus, cpath, f"row {row}: doc_id {orig!r} collides with {original.get(docid)!r} "
                                            f"once whitespace becomes '_'")
        corpus[docid] = {"title": "", "text": text, "source": orig}
        original[docid] = orig
    return corpus, original


def _autorag_questions(qpath: Path, qa, by_original: dict[str, str], corpus_name: str) -> tuple[dict, dict, dict]:
    """Queries, qrels (every chunk of retrieval_gt at grade 1) and reference answers of the QA table."""
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    answers: dict[str, list[str]] = {}
    for row, (qid, text, gt, gen) in enumerate(zip(qa["qid"], qa["query"], qa["retrieval_gt"], qa["generation_gt"])):
        _expect(isinstance(qid, str) and qid != "" and not any(c.isspace() for c in qid), qpath,
                f"row {row}: qid {qid!r} is empty or contains whitespace")
        _expect(qid not in queries, qpath, f"row {row}: qid {qid} occurs twice")
        _expect(isinstance(text, str) and text.strip() != "", qpath, f"row {row}: query {qid} is empty")
        try:
            groups = [_as_list(g) for g in _as_list(gt)]
        except TypeError as err:
            raise CollectionFormatError(qpath, None, f"row {row}: retrieval_gt of {qid} is not a list of lists ({err})") from None
        relevant = [d for g in groups for d in g]
        _expect(len(relevant) > 0, qpath, f"row {row}: query {qid} has an empty retrieval_gt")
        row_qrels: dict[str, int] = {}
        for orig in relevant:
            _expect(orig in by_original, qpath, f"row {row}: query {qid} names chunk {orig!r}, which is not in {corpus_name}")
            row_qrels[by_original[orig]] = 1
        queries[qid] = text
        qrels[qid] = row_qrels
        answers[qid] = [str(a) for a in _as_list(gen)]
    return queries, qrels, answers


register("autorag", load_autorag)
