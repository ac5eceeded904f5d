"""Items and grading records as JSON Lines files: reading (every problem named by file, line and id) and writing."""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..io.jsonl import read_jsonl
from .items import check_item
from .schema import EVIDENCE_FIELDS, ITEM_FIELDS, EvalSetError, Problem


def _load_records(path, check: Callable[[Any], list[Problem]], key: Callable[[Mapping], Any], what: str) -> list:
    """The records of a JSON Lines file; every problem (of any line) is gathered into one EvalSetError."""
    bad_lines: list[tuple[int, str]] = []
    rows = read_jsonl(path, EvalSetError, problems=bad_lines)
    errors: list[tuple[int | None, str | None, str]] = [(line, None, problem) for line, problem in bad_lines]
    first_line: dict[Any, int] = {}
    records = []
    for lineno, obj in rows:
        if not isinstance(obj, dict):
            errors.append((lineno, None, f"each line must hold one {what} as a JSON object, got {type(obj).__name__}"))
            continue
        rid = obj.get("id") if isinstance(obj.get("id"), str) and obj.get("id") else None
        for prob in check(obj):
            errors.append((lineno, rid, f"[{prob.code}] {prob.message}"))
        if rid is not None:
            k = key(obj)
            if k in first_line:
                errors.append((lineno, rid, f"[duplicate_id] {what} already defined on line {first_line[k]}"))
            else:
                first_line[k] = lineno
        records.append(obj)
    if errors:
        raise EvalSetError(path, sorted(errors, key=lambda e: (e[0] or 0)))
    return records


def load_items(path: str | os.PathLike) -> list[dict]:
    """Read items from JSON Lines, one per line; every schema problem raises, naming file, line and id."""
    return _load_records(path, check_item, lambda o: o["id"], "item")


def _write_jsonl(records: Iterable[Mapping], path: str | os.PathLike) -> None:
    """One record per line, UTF-8, non-ASCII kept."""
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def write_items(items: Iterable[Mapping], path: str | os.PathLike) -> None:
    """Write items as UTF-8 JSON Lines with fields in schema order; refuses items with schema problems."""
    items = list(items)
    problems = [p for it in items for p in check_item(it)]
    if problems:
        raise ValueError("refusing to write invalid items:\n" + "\n".join(map(str, problems)))
    ordered = [{name: it[name] for name in ITEM_FIELDS} for it in items]
    for it in ordered:
        it["evidence"] = [{name: ev[name] for name in EVIDENCE_FIELDS} for ev in it["evidence"]]
    _write_jsonl(ordered, path)
