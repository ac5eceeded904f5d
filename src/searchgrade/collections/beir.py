"""Any BEIR-format folder: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``."""
from __future__ import annotations

import json
from pathlib import Path

from .base import Collection, CollectionFormatError, _PathLike, register

__all__ = ["load_beir", "read_jsonl"]


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


def _beir_loader(data_dir: Path, folder: _PathLike, split: str = "test", name: str | None = None) -> Collection:
    """Registry form of :func:`load_beir`; a relative ``folder`` is looked up under ``data_dir`` first."""
    folder = Path(folder)
    if not folder.is_absolute() and not folder.exists() and (Path(data_dir) / folder).exists():
        folder = Path(data_dir) / folder
    return load_beir(folder, split=split, name=name)


register("beir", _beir_loader)
