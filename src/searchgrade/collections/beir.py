"""Any BEIR-format folder: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..io import jsonl as _jsonl
from .base import Collection, CollectionFormatError, _PathLike, register

__all__ = ["load_beir", "read_jsonl"]


def read_jsonl(path: _PathLike, required: tuple[str, ...] = ("_id",)) -> list[tuple[int, dict]]:
    """``(line number, object)`` for each non-blank line of a JSON Lines file; each object must hold ``required`` keys."""
    return _jsonl.read_jsonl(path, CollectionFormatError, required=required)


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
    _require_files(folder, (cpath, qpath, rpath), rpath)
    corpus = _unique_records(cpath, "document", lambda obj, lineno: {
        "title": _beir_text(obj, "title", cpath, lineno, ""), "text": _beir_text(obj, "text", cpath, lineno)})
    all_queries = _unique_records(qpath, "query", lambda obj, lineno: _beir_text(obj, "text", qpath, lineno))
    qrels = _read_beir_qrels(rpath, all_queries, corpus, qpath.name, cpath.name)
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


def _require_files(folder: Path, paths: tuple[Path, ...], rpath: Path) -> None:
    """Fail on the first missing file; a missing qrels split lists the splits the folder has."""
    for p in paths:
        if not p.is_file():
            have = sorted(x.stem for x in (folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []
            hint = f" (qrels splits here: {', '.join(have)})" if p == rpath and have else ""
            raise FileNotFoundError(f"{p}: no such file{hint}")


def _unique_records(path: Path, what: str, convert: Callable[[dict, int], Any]) -> dict[str, Any]:
    """``{id: convert(object, line)}`` of a corpus or queries file (keys _id and text); a repeated id is an error."""
    out: dict[str, Any] = {}
    seen_at: dict[str, int] = {}
    for lineno, obj in read_jsonl(path, ("_id", "text")):
        rid = _beir_id(obj["_id"], path, lineno)
        if rid in seen_at:
            raise CollectionFormatError(path, lineno, f"{what} id {rid!r} duplicated (first on line {seen_at[rid]})")
        seen_at[rid] = lineno
        out[rid] = convert(obj, lineno)
    return out


def _read_beir_qrels(rpath: Path, queries: dict[str, str], corpus: dict, qname: str, cname: str) -> dict[str, dict[str, int]]:
    """The judgments of a BEIR qrels TSV (header first), checked against the queries and the corpus."""
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
        qid, docid, grade = _qrels_fields(rpath, lineno, line, fields)
        if qid not in queries:
            raise CollectionFormatError(rpath, lineno, f"query {qid!r} is not in {qname}")
        if docid not in corpus:
            raise CollectionFormatError(rpath, lineno, f"document {docid!r} is not in {cname}")
        row = qrels.setdefault(qid, {})
        if docid in row:
            raise CollectionFormatError(rpath, lineno, f"query {qid!r} judges document {docid!r} twice")
        row[docid] = grade
    if not header_seen:
        raise CollectionFormatError(rpath, None, "empty qrels file (no header, no judgments)")
    if not qrels:
        raise CollectionFormatError(rpath, None, "no judgments after the header")
    return qrels


def _qrels_fields(rpath: Path, lineno: int, line: str, fields: list[str]) -> tuple[str, str, int]:
    """``(query id, document id, integer grade)`` of one judgment line."""
    if len(fields) != 3:
        raise CollectionFormatError(rpath, lineno, f"expected 3 tab-separated fields 'query-id corpus-id score', "
                                                   f"got {len(fields)}: {line!r}")
    qid, docid, score = fields[0], fields[1], fields[2].strip()
    if not qid or not docid:
        raise CollectionFormatError(rpath, lineno, "empty query-id or corpus-id")
    try:
        return qid, docid, int(score)
    except ValueError:
        raise CollectionFormatError(rpath, lineno, f"score {score!r} is not an integer") from None


def _beir_loader(data_dir: Path, folder: _PathLike, split: str = "test", name: str | None = None) -> Collection:
    """Registry form of :func:`load_beir`; a relative ``folder`` is looked up under ``data_dir`` first."""
    folder = Path(folder)
    if not folder.is_absolute() and not folder.exists() and (Path(data_dir) / folder).exists():
        folder = Path(data_dir) / folder
    return load_beir(folder, split=split, name=name)


register("beir", _beir_loader)
