"""MIRACL-ko: the MIRACL Korean dev set's judged pools (213 questions, 2,835 passages, 3,057 human judgments).

The raw folder ``data/raw/miracl_ko/`` holds ``corpus.jsonl`` (``docid``, ``title``, ``text``),
``queries_clean.jsonl`` (``qid``, ``text``), ``qrels.tsv`` (TREC qrels, ``qid 0 docid grade``)
and ``perturbations/<axis>.jsonl`` (``qid``, ``axis``, ``text``), the query variants that the
redistributor made by program and nobody reviewed. ``load("miracl-ko")`` reads the questions as
written; ``load("miracl-ko", queries="spacing")`` (or the registered name ``"miracl-ko-spacing"``,
likewise ``josa`` and ``jamo``) gives the same corpus and judgments with the variant questions.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

from ..io import FormatError, load_qrels
from ..places import data_root
from .base import Collection, CollectionFormatError, _PathLike, _require, register
from .beir import read_jsonl

__all__ = ["load_miracl_ko", "MIRACL_VARIANTS"]

#: The query variants in ``perturbations/``: what each one changes in a question.
MIRACL_VARIANTS = {
    "spacing": "every space removed",
    "josa": "one particle (조사) swapped for another",
    "jamo": "one jamo of one syllable changed (a typo)",
}

_SOURCE = ("MIRACL v1.0 Korean dev set (Zhang et al., TACL 2023) as its judged pools, extracted by "
           "CocoRoF/geny-memory-adaptor @ 382c708a, eval/data/ (eval/build_corpus.py)")


def _string(obj: dict, key: str, path: Path, lineno: int, id_like: bool = False) -> str:
    """A non-empty string field of one JSON line; an id may not contain whitespace (TREC files cannot hold it)."""
    value = obj[key]
    if not isinstance(value, str) or not value.strip():
        raise CollectionFormatError(path, lineno, f"{key!r} is not a non-empty string: {value!r}")
    if id_like and any(c.isspace() for c in value):
        raise CollectionFormatError(path, lineno, f"{key} {value!r} contains whitespace")
    return value


def _read_records(path: Path, key: str, fields: tuple[str, ...]) -> dict[str, tuple[int, dict]]:
    """``{id: (line, object)}`` of a JSON-lines file whose ``key`` field is a unique id; every field a non-empty string."""
    out: dict[str, tuple[int, dict]] = {}
    for lineno, obj in read_jsonl(path, (key, *fields)):
        ident = _string(obj, key, path, lineno, id_like=True)
        for name in fields:
            _string(obj, name, path, lineno)
        if ident in out:
            raise CollectionFormatError(path, lineno, f"{key} {ident!r} duplicated (first on line {out[ident][0]})")
        out[ident] = (lineno, obj)
    if not out:
        raise CollectionFormatError(path, None, "no records (the file is empty)")
    return out


def _line_of(path: Path, qid: str, docid: str) -> int | None:
    """The line of ``path`` that judges (qid, docid), for an error message."""
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split()
        if len(fields) == 4 and fields[0] == qid and fields[2] == docid:
            return lineno
    return None


def _read_qrels(path: Path, queries: dict, corpus: dict) -> dict[str, dict[str, int]]:
    """The judgments, every grade 0 or 1, every query and passage known; errors name the file and line."""
    try:
        qrels, report = load_qrels(path)
    except FormatError as err:
        raise CollectionFormatError(err.path, err.line, err.problem) from None
    if report.comments:
        raise CollectionFormatError(path, report.comments.first[0], "a comment line; this file has none")
    for qid, row in qrels.items():
        for docid, grade in row.items():
            problem = (f"query {qid!r} is not in queries_clean.jsonl" if qid not in queries
                       else f"passage {docid!r} is not in corpus.jsonl" if docid not in corpus
                       else f"grade {grade} is not 0 or 1" if grade not in (0, 1) else None)
            if problem:
                raise CollectionFormatError(path, _line_of(path, qid, docid), problem)
    return qrels


def _read_variants(path: Path, axis: str, queries: dict[str, str]) -> dict[str, str]:
    """``{qid: variant text}`` of one perturbation file; each line's qid must be a question and its axis ``axis``."""
    out: dict[str, str] = {}
    for qid, (lineno, obj) in _read_records(path, "qid", ("axis", "text")).items():
        if qid not in queries:
            raise CollectionFormatError(path, lineno, f"qid {qid!r} is not in queries_clean.jsonl")
        if obj["axis"] != axis:
            raise CollectionFormatError(path, lineno, f"axis {obj['axis']!r} in the {axis} file")
        out[qid] = obj["text"]
    return out


def load_miracl_ko(data_dir: _PathLike | None = None, queries: str = "clean") -> Collection:
    """MIRACL-ko: 2,835 passages, 213 questions (or a variant of them), 3,057 human judgments (547 relevant).

    ``queries`` is ``"clean"`` (the questions as their writers wrote them) or a
    key of :data:`MIRACL_VARIANTS`. A variant collection is named
    ``miracl-ko-<axis>``, holds only the questions that have a variant (the
    others are listed in ``meta["without_variant"]``) and their judgments, and
    keeps the written questions in ``meta["clean_queries"]``. Grade 1 is
    relevant; grade 0 marks a passage the annotators read and judged not
    relevant (kept as a judgment, as in the raw file). A passage judged for one
    question is unjudged for every other.
    """
    if queries != "clean" and queries not in MIRACL_VARIANTS:
        raise ValueError(f"queries={queries!r}: expected 'clean' or one of {', '.join(MIRACL_VARIANTS)}")
    folder = data_root(data_dir) / "miracl_ko"
    names = ["corpus.jsonl", "queries_clean.jsonl", "qrels.tsv"]
    variant_file = f"perturbations/{queries}.jsonl"
    _require(folder, names + ([variant_file] if queries != "clean" else []), "MIRACL-ko")
    corpus = {d: {"title": obj["title"], "text": obj["text"]}
              for d, (_, obj) in _read_records(folder / names[0], "docid", ("title", "text")).items()}
    clean = {q: obj["text"] for q, (_, obj) in _read_records(folder / names[1], "qid", ("text",)).items()}
    qrels = _read_qrels(folder / names[2], clean, corpus)
    meta = {
        "source": _SOURCE,
        "licence": "Apache-2.0 (MIRACL's topics and judgments; data/raw/miracl_ko/LICENSE); passage text from "
                   "Korean Wikipedia, CC BY-SA",
        "credit": "MIRACL (Zhang, Thakur, Ogundepo, Kamalloo, Alfonso-Hermelo, Li, Liu, Rezagholizadeh and Lin, "
                  "TACL 2023); Korean Wikipedia contributors; CocoRoF/geny-memory-adaptor (the extract)",
        "judges": "people: MIRACL's native-speaker annotators wrote the questions and judged the passages",
        "grades": "1 = relevant; 0 = read by an annotator and judged not relevant (a hard negative that "
                  "retrievers ranked high); a passage judged for another question is unjudged",
        "corpus_note": "the union of the 213 judged pools, not MIRACL's full Korean Wikipedia corpus; judged "
                       "pools favour the systems that made them",
        "queries": queries,
        "files": {"corpus": str(folder / names[0]), "queries": str(folder / names[1]),
                  "qrels": str(folder / names[2])},
    }
    name = "miracl-ko"
    if queries != "clean":
        variants = _read_variants(folder / variant_file, queries, clean)
        name = f"miracl-ko-{queries}"
        meta.update({
            "variant": f"{queries}: {MIRACL_VARIANTS[queries]}",
            "variant_note": "made by a program (the redistributor's eval/perturb.py); nobody reviewed them",
            "without_variant": [q for q in clean if q not in variants],
            "clean_queries": {q: clean[q] for q in variants},
        })
        meta["files"]["variants"] = str(folder / variant_file)
        qrels = {q: qrels[q] for q in variants if q in qrels}
        clean = {q: variants[q] for q in clean if q in variants}
    return Collection(name, corpus, clean, qrels, meta)


register("miracl-ko", load_miracl_ko)
for _axis in MIRACL_VARIANTS:
    register(f"miracl-ko-{_axis}", partial(load_miracl_ko, queries=_axis))
