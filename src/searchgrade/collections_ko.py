"""Korean test collections (KorQuAD 1.0 dev, AutoRAGRetrieval, Ko-StrategyQA dev) and any BEIR folder.

Every loader returns a :class:`searchgrade.datasets.Collection`::

    corpus  = {docid: {"title": str, "text": str, ...}}
    queries = {qid: str}
    qrels   = {qid: {docid: grade}}
    meta    = {"source": ..., "licence": ..., ...}

and reads the unmodified raw files under ``data/raw`` (nothing is written:
KorQuAD's licence, CC BY-ND 2.0 KR, allows only unchanged redistribution, so
the conversion happens in memory on every load). Malformed input raises
:class:`~searchgrade.datasets.CollectionFormatError` naming the file, the line
(where there is one) and the problem.

``LOADERS`` maps collection names to loaders with the calling convention of
``searchgrade.datasets.register`` (``loader(data_dir, **options)``), so the
names ``korquad-dev``, ``autorag``, ``ko-strategyqa-dev`` and ``beir`` can be
registered there; the ``load_*`` functions are usable directly as well.

Document ids are TREC-safe (no whitespace) for KorQuAD and AutoRAG. The
Ko-StrategyQA paragraph keys are kept exactly as the raw file spells them
(``"Blanching (cooking)-1"``, with spaces); :func:`trec_safe_ids` renames them
(and any BEIR ids with whitespace) before writing TREC files.
"""
from __future__ import annotations

import csv
import json
import os
import re
import statistics
from collections.abc import Callable
from pathlib import Path

from .datasets import Collection, CollectionFormatError, data_root

__all__ = [
    "LOADERS",
    "load_korquad",
    "load_autorag",
    "load_ko_strategyqa_dev",
    "load_beir",
    "read_jsonl",
    "trec_safe_ids",
    "back_reference",
    "back_references",
    "korquad_docid",
]

_PathLike = str | os.PathLike


def _root(data_dir: _PathLike | None) -> Path:
    """``data_dir`` or the project's ``data/raw`` (see :func:`searchgrade.datasets.data_root`)."""
    return data_root(data_dir)


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
# KorQuAD 1.0 dev


def korquad_docid(article: int, paragraph: int) -> str:
    """Document id of KorQuAD paragraph ``paragraph`` of article ``article`` (both 0-based): ``korquad-AAA-PP``."""
    return f"korquad-{article:03d}-{paragraph:02d}"


def load_korquad(data_dir: _PathLike | None = None) -> Collection:
    """KorQuAD 1.0 dev as a retrieval collection: 961 distinct paragraphs, 5,774 questions, one gold paragraph each.

    Article ``a`` paragraph ``p`` (0-based positions in the file) is document
    ``korquad-{a:03d}-{p:02d}``. A paragraph whose context is identical to an
    earlier one is not a new document: its questions are judged against the
    first occurrence's id (``meta["duplicates"]`` lists the three such
    paragraphs). Each question id is a query id; its gold paragraph gets grade 1.
    ``meta["answers"]`` holds each question's answer texts, ``meta["answer_starts"]``
    their character offsets in the gold paragraph, ``meta["gold"]`` the
    (article, paragraph) position the question was asked on.
    """
    path = _root(data_dir) / "korquad" / "KorQuAD_v1.0_dev.json"
    data = _read_json(path)
    _expect(isinstance(data, dict) and isinstance(data.get("data"), list), path,
            "expected an object with a 'data' list of articles (SQuAD format)")
    corpus: dict[str, dict[str, str]] = {}
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    answers: dict[str, list[str]] = {}
    starts: dict[str, list[int]] = {}
    gold: dict[str, tuple[int, int]] = {}
    first_id: dict[str, str] = {}
    duplicates: list[dict] = []
    n_paragraphs = 0
    for a, article in enumerate(data["data"]):
        where = f"data[{a}]"
        _expect(isinstance(article, dict) and isinstance(article.get("paragraphs"), list)
                and isinstance(article.get("title"), str), path, f"{where}: expected 'title' and a 'paragraphs' list")
        for p, par in enumerate(article["paragraphs"]):
            pwhere = f"{where}.paragraphs[{p}]"
            _expect(p < 100, path, f"{pwhere}: more than 100 paragraphs; the id scheme has two digits")
            _expect(isinstance(par, dict) and isinstance(par.get("context"), str) and isinstance(par.get("qas"), list),
                    path, f"{pwhere}: expected 'context' (string) and 'qas' (list)")
            n_paragraphs += 1
            context = par["context"]
            docid = korquad_docid(a, p)
            if context in first_id:
                duplicates.append({"docid": docid, "same_as": first_id[context], "article": a, "paragraph": p,
                                   "questions": len(par["qas"])})
                docid = first_id[context]
            else:
                first_id[context] = docid
                corpus[docid] = {"title": article["title"], "text": context}
            for i, qa in enumerate(par["qas"]):
                qwhere = f"{pwhere}.qas[{i}]"
                _expect(isinstance(qa, dict) and isinstance(qa.get("id"), str) and isinstance(qa.get("question"), str)
                        and isinstance(qa.get("answers"), list), path,
                        f"{qwhere}: expected 'id', 'question' and 'answers'")
                qid = qa["id"]
                _expect(bool(qid) and not any(ch.isspace() for ch in qid), path,
                        f"{qwhere}: question id {qid!r} is empty or contains whitespace")
                _expect(qid not in queries, path, f"{qwhere}: question id {qid} occurs twice")
                _expect(bool(qa["question"].strip()), path, f"{qwhere}: question {qid} is empty")
                _expect(len(qa["answers"]) > 0, path, f"{qwhere}: question {qid} has no answer")
                queries[qid] = qa["question"]
                qrels[qid] = {docid: 1}
                answers[qid] = [ans["text"] for ans in qa["answers"]]
                starts[qid] = [ans["answer_start"] for ans in qa["answers"]]
                gold[qid] = (a, p)
    meta = {
        "source": "KorQuAD 1.0 dev set (Lim et al. 2019), korquad/korquad.github.io @ 61d7d668, "
                  "dataset/KorQuAD_v1.0_dev.json",
        "licence": "CC BY-ND 2.0 KR: redistributed unchanged with credit; converted in memory at load time, "
                   "never stored in converted form",
        "credit": "KorQuAD, LG CNS",
        "grades": "1 = the paragraph the question was written on (the only judged document per question)",
        "docid_scheme": "korquad-{article:03d}-{paragraph:02d}, 0-based positions in data[]; a repeated context "
                        "maps to its first occurrence",
        "articles": len(data["data"]),
        "paragraphs": n_paragraphs,
        "duplicates": duplicates,
        "answers": answers,
        "answer_starts": starts,
        "gold": gold,
        "files": {"dev": str(path)},
    }
    return Collection("korquad-dev", corpus, queries, qrels, meta)


# ---------------------------------------------------------------------------
# AutoRAGRetrieval


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

    folder = _root(data_dir) / "autorag"
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
    by_original = {o: d for d, o in original.items()}
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
            _expect(orig in by_original, qpath, f"row {row}: query {qid} names chunk {orig!r}, which is not in {cpath.name}")
            row_qrels[by_original[orig]] = 1
        queries[qid] = text
        qrels[qid] = row_qrels
        answers[qid] = [str(a) for a in _as_list(gen)]
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


# ---------------------------------------------------------------------------
# Ko-StrategyQA dev (queries and judgments only)

# How the Korean translation writes StrategyQA's "#1" (the answer of step 1):
# "#1", "1번" (not "1번째", "first"), "1위" (DeepL's reading of "#1" as a rank),
# or a bare number with a particle glued to it ("1은", "2는", "1에").
_PARTICLES = "은|는|이|가|에|의|을|를|과|와|로|으로|도|만"
_BACK_REFERENCE = re.compile(
    rf"#\s*(\d+)|(?<![\w.])(\d+)\s*번(?!째)|(?<![\w.])(\d+)위|(?<![\w.])(\d+)(?={_PARTICLES})"
)


def back_references(text: str, step: int | None = None) -> list[int]:
    """Step numbers a decomposition step refers back to (``#1``, ``1번``, ``1위``, ``2는`` -> 1, 1, 1, 2).

    With ``step`` (1-based number of this step), only numbers smaller than it
    count: a reference must point to an earlier answer, which rules out
    numbers such as the "4" of "플레이스테이션 4는" in a second step.
    """
    found = [int(next(g for g in m.groups() if g)) for m in _BACK_REFERENCE.finditer(text)]
    if step is not None:
        found = [k for k in found if 1 <= k < step]
    return list(dict.fromkeys(found))


def back_reference(text: str, step: int | None = None) -> bool:
    """True if the step points back to an earlier step's answer (see :func:`back_references`)."""
    return bool(back_references(text, step))


def load_ko_strategyqa_dev(data_dir: _PathLike | None = None) -> Collection:
    """Ko-StrategyQA dev rebuilt as MTEB's retrieval set: 592 step queries, 1,145 judgments; empty corpus.

    One query per Korean decomposition step of each dev question; a step is
    kept only if none of the annotators' evidence for it contains
    ``no_evidence`` or ``operation``; its relevant documents are the union of
    all annotators' paragraph keys for that step (grade 1). Query id:
    ``{question id}-{step}``, step counted from 1 as the decomposition's own
    ``#1``/``1번`` references count. The Korean paragraph texts are not
    available, so ``corpus`` is empty; the judged paragraph keys (e.g.
    ``"Tomato-89"``, spaces kept) are the document ids of ``qrels``.
    ``meta["steps"]`` gives, per query, the question id, the step number, the
    original question and ``refers_to``, the earlier steps whose answer the
    step needs (:func:`back_references`; non-empty for 71 of the 592 queries).
    """
    path = _root(data_dir) / "ko_strategyqa" / "ko-strategy-qa_dev.json"
    data = _read_json(path)
    _expect(isinstance(data, dict), path, "expected an object {question id: question record}")
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    steps: dict[str, dict] = {}
    dropped: dict[str, int] = {"no_evidence or operation": 0}
    n_steps = 0
    annotators: dict[int, int] = {}
    for question_id, item in data.items():
        where = f"question {question_id}"
        _expect(isinstance(item, dict) and isinstance(item.get("decomposition"), list)
                and isinstance(item.get("evidence"), list), path, f"{where}: expected 'decomposition' and 'evidence' lists")
        decomposition, evidence = item["decomposition"], item["evidence"]
        annotators[len(evidence)] = annotators.get(len(evidence), 0) + 1
        _expect(len(evidence) > 0, path, f"{where}: no annotator evidence")
        for k, ann in enumerate(evidence):
            _expect(isinstance(ann, list) and len(ann) == len(decomposition), path,
                    f"{where}: annotator {k} gives evidence for {len(ann) if isinstance(ann, list) else '?'} steps, "
                    f"the decomposition has {len(decomposition)}")
        for s, text in enumerate(decomposition):
            n_steps += 1
            _expect(isinstance(text, str) and text.strip() != "", path, f"{where}: step {s + 1} is not a non-empty string")
            keys: list[str] = []
            unusable = False
            for k, ann in enumerate(evidence):
                step_ev = ann[s]
                _expect(isinstance(step_ev, list), path, f"{where}: annotator {k} step {s + 1}: evidence is not a list")
                for entry in step_ev:
                    if isinstance(entry, str):
                        _expect(entry in ("no_evidence", "operation"), path,
                                f"{where}: annotator {k} step {s + 1}: unknown marker {entry!r}")
                        unusable = True
                    elif isinstance(entry, list) and all(isinstance(x, str) and x for x in entry):
                        keys.extend(entry)
                    else:
                        raise CollectionFormatError(path, None, f"{where}: annotator {k} step {s + 1}: evidence entry "
                                                                f"{entry!r} is neither a marker nor a list of paragraph keys")
            if unusable:
                dropped["no_evidence or operation"] += 1
                continue
            _expect(len(keys) > 0, path, f"{where}: step {s + 1} has no marker and no paragraph key")
            qid = f"{question_id}-{s + 1}"
            _expect(qid not in queries, path, f"{where}: query id {qid} occurs twice")
            queries[qid] = text
            qrels[qid] = {key: 1 for key in dict.fromkeys(keys)}
            steps[qid] = {"question_id": question_id, "step": s + 1, "steps": len(decomposition),
                          "question": item.get("question", ""),
                           "refers_to": back_references(text, s + 1)}
    keys = sorted({d for row in qrels.values() for d in row})
    meta = {
        "source": "Ko-StrategyQA (NomaDamas; Korean DeepL translation of StrategyQA, Geva et al. 2021), "
                  "vkehfdl1/adaptive-retrieval @ 9102d13e, data/ko-strategyqa/ko-strategy-qa_dev.json",
        "licence": "StrategyQA is MIT per third parties; the translation's licence is not stated; credit NomaDamas "
                   "and Geva et al. 2021",
        "grades": "1 = a paragraph some annotator gave as evidence for the step",
        "rule": "one query per decomposition step; keep a step only if no annotator's evidence for it contains "
                "'no_evidence' or 'operation'; relevant = union of all annotators' paragraph keys, grade 1",
        "corpus_note": "corpus is empty: the Korean text of the 9,251 Wikipedia paragraphs (MTEB Ko-StrategyQA) is "
                       "not available here; qrels name the paragraphs by their keys ('Title-N'). Load a BEIR folder "
                       "of the full set with load_beir to run retrievers on it.",
        "relevant_paragraphs": keys,
        "steps": steps,
        "questions": len(data),
        "decomposition_steps": n_steps,
        "dropped_steps": dropped,
        "annotators_per_question": annotators,
        "files": {"dev": str(path)},
    }
    return Collection("ko-strategyqa-dev", {}, queries, qrels, meta)


# ---------------------------------------------------------------------------
# BEIR folders


def read_jsonl(path: _PathLike, required: tuple[str, ...] = ("_id",)) -> list[tuple[int, dict]]:
    """``(line number, object)`` for each non-blank line of a JSON Lines file; each object must hold ``required`` keys."""
    path = Path(path)
    out: list[tuple[int, dict]] = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise CollectionFormatError(path, lineno, f"not valid UTF-8 ({err.reason})") from None
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise CollectionFormatError(path, lineno, f"invalid JSON: {err.msg} (column {err.colno})") from None
            if not isinstance(obj, dict):
                raise CollectionFormatError(path, lineno, f"expected a JSON object, got {type(obj).__name__}")
            for key in required:
                if key not in obj:
                    raise CollectionFormatError(path, lineno, f"missing key {key!r}")
            out.append((lineno, obj))
    return out


def _beir_id(value, path: Path, lineno: int) -> str:
    """An ``_id`` as a non-empty string (JSON integers are accepted and converted)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise CollectionFormatError(path, lineno, f"_id {value!r} is not a string")
    value = str(value)
    if not value.strip():
        raise CollectionFormatError(path, lineno, "_id is empty")
    return value


def _beir_text(obj: dict, key: str, path: Path, lineno: int, default: str | None = None) -> str:
    """A string field (``None`` or missing -> ``default`` when one is given)."""
    value = obj.get(key, default)
    if value is None and default is not None:
        value = default
    if not isinstance(value, str):
        raise CollectionFormatError(path, lineno, f"{key!r} is not a string: {value!r}")
    return value


def load_beir(folder: _PathLike, split: str = "test", name: str | None = None) -> Collection:
    """Any BEIR-format folder: ``corpus.jsonl`` (_id, title, text), ``queries.jsonl`` (_id, text), ``qrels/<split>.tsv``.

    The qrels file has a header ``query-id  corpus-id  score`` and one
    tab-separated judgment per line; scores must be integers. Errors name the
    file and line: invalid JSON, a missing key, a duplicated id, a malformed
    qrels line, a (query, document) pair judged twice, a judgment that points
    at a missing document or query. As BEIR's own loader does, only queries
    judged in ``split`` are kept; how many were left out is in
    ``meta["queries_not_in_split"]``. Ids with whitespace are kept (counted in
    ``meta["ids_with_whitespace"]``; see :func:`trec_safe_ids`).
    """
    folder = Path(folder)
    cpath, qpath, rpath = folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels" / f"{split}.tsv"
    for p in (cpath, qpath, rpath):
        if not p.is_file():
            have = sorted(x.stem for x in (folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []
            hint = f" (qrels splits here: {', '.join(have)})" if p == rpath and have else ""
            raise FileNotFoundError(f"{p}: no such file{hint}")
    corpus: dict[str, dict[str, str]] = {}
    seen_at: dict[str, int] = {}
    for lineno, obj in read_jsonl(cpath, ("_id", "text")):
        docid = _beir_id(obj["_id"], cpath, lineno)
        if docid in seen_at:
            raise CollectionFormatError(cpath, lineno, f"document id {docid!r} duplicated (first on line {seen_at[docid]})")
        seen_at[docid] = lineno
        corpus[docid] = {"title": _beir_text(obj, "title", cpath, lineno, ""), "text": _beir_text(obj, "text", cpath, lineno)}
    all_queries: dict[str, str] = {}
    seen_at = {}
    for lineno, obj in read_jsonl(qpath, ("_id", "text")):
        qid = _beir_id(obj["_id"], qpath, lineno)
        if qid in seen_at:
            raise CollectionFormatError(qpath, lineno, f"query id {qid!r} duplicated (first on line {seen_at[qid]})")
        seen_at[qid] = lineno
        all_queries[qid] = _beir_text(obj, "text", qpath, lineno)
    qrels: dict[str, dict[str, int]] = {}
    with open(rpath, encoding="utf-8", newline="") as fh:
        lines = fh.read().split("\n")
    header_seen = False
    for lineno, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        if not header_seen:
            header_seen = True
            if [f.strip() for f in fields] != ["query-id", "corpus-id", "score"]:
                raise CollectionFormatError(rpath, lineno, f"expected the header 'query-id<TAB>corpus-id<TAB>score', got {line!r}")
            continue
        if len(fields) != 3:
            raise CollectionFormatError(rpath, lineno, f"expected 3 tab-separated fields 'query-id corpus-id score', "
                                                       f"got {len(fields)}: {line!r}")
        qid, docid, score = fields[0], fields[1], fields[2].strip()
        if not qid or not docid:
            raise CollectionFormatError(rpath, lineno, "empty query-id or corpus-id")
        try:
            grade = int(score)
        except ValueError:
            raise CollectionFormatError(rpath, lineno, f"score {score!r} is not an integer") from None
        if qid not in all_queries:
            raise CollectionFormatError(rpath, lineno, f"query {qid!r} is not in {qpath.name}")
        if docid not in corpus:
            raise CollectionFormatError(rpath, lineno, f"document {docid!r} is not in {cpath.name}")
        row = qrels.setdefault(qid, {})
        if docid in row:
            raise CollectionFormatError(rpath, lineno, f"query {qid!r} judges document {docid!r} twice")
        row[docid] = grade
    if not header_seen:
        raise CollectionFormatError(rpath, None, "empty qrels file (no header, no judgments)")
    if not qrels:
        raise CollectionFormatError(rpath, None, "no judgments after the header")
    queries = {q: t for q, t in all_queries.items() if q in qrels}
    spaced = sum(1 for i in list(corpus) + list(queries) if any(c.isspace() for c in i))
    meta = {
        "source": f"BEIR folder {folder}",
        "split": split,
        "queries_not_in_split": len(all_queries) - len(queries),
        "ids_with_whitespace": spaced,
        "files": {"corpus": str(cpath), "queries": str(qpath), "qrels": str(rpath)},
    }
    return Collection(name or folder.name, corpus, queries, qrels, meta)


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


__all__.append("qrels_statistics")


def _beir_loader(data_dir: Path, folder: _PathLike, split: str = "test", name: str | None = None) -> Collection:
    """Registry form of :func:`load_beir`; a relative ``folder`` is looked up under ``data_dir`` first."""
    folder = Path(folder)
    if not folder.is_absolute() and not folder.exists() and (Path(data_dir) / folder).exists():
        folder = Path(data_dir) / folder
    return load_beir(folder, split=split, name=name)


LOADERS: dict[str, Callable[..., Collection]] = {
    "korquad-dev": load_korquad,
    "autorag": load_autorag,
    "ko-strategyqa-dev": load_ko_strategyqa_dev,
    "beir": _beir_loader,
}


def load(name: str, data_dir: _PathLike | None = None, **options) -> Collection:
    """Load one of :data:`LOADERS` by name (``load("beir", folder=...)``); same convention as ``datasets.load``."""
    if name not in LOADERS:
        raise ValueError(f"unknown Korean collection {name!r}; known: {', '.join(sorted(LOADERS))}")
    return LOADERS[name](_root(data_dir), **options)


__all__.append("load")
