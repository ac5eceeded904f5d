"""Answer grading records: their schema, their check against the items, and Must-have Recall, Correctness, faithfulness."""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from .files import _load_records, _write_jsonl
from .schema import (CORRECTNESS_SCORES, FAITHFULNESS_LABELS, MAX_UNSUPPORTED_CLAIMS, VERDICT_SCORES, Problem,
                     _is_str_list, _type_name)


GRADING_FIELDS: dict[str, type] = {
    "id": str,
    "must_have": list,
    "correctness": str,
    "faithfulness": str,
}
GRADING_OPTIONAL: dict[str, type] = {
    "run": str,
    "answer": str,
    "answer_by": str,
    "graded_by": str,
    "unsupported_claims": list,
    "notes": str,
}


def check_grading(rec: Any) -> list[Problem]:
    """Schema problems of one grading record (fields, verdict labels, internal consistency)."""
    if not isinstance(rec, Mapping):
        return [Problem("?", "not_object", f"a grading record must be a JSON object, got {type(rec).__name__}")]
    rid = rec.get("id") if isinstance(rec.get("id"), str) and rec.get("id") else "?"
    out: list[Problem] = []

    def bad(code: str, message: str) -> None:
        """Record one problem of the current item."""
        out.append(Problem(rid, code, message))

    for name, typ in {**GRADING_FIELDS, **GRADING_OPTIONAL}.items():
        if name not in rec:
            if name in GRADING_FIELDS:
                bad("missing_field", f"missing field {name!r}")
        elif not isinstance(rec[name], typ):
            bad("wrong_type", f"field {name!r} must be {_type_name(typ)}, got {type(rec[name]).__name__}")
    for name in rec:
        if name not in GRADING_FIELDS and name not in GRADING_OPTIONAL:
            bad("unknown_field", f"unknown field {name!r}")
    verdicts = []
    if isinstance(rec.get("must_have"), list):
        if not rec["must_have"]:
            bad("empty_field", "field 'must_have' is an empty list")
        for j, v in enumerate(rec["must_have"]):
            if not isinstance(v, Mapping) or not isinstance(v.get("fact"), str) or "verdict" not in v:
                bad("wrong_type", f"must_have[{j}] must be an object with 'fact' (str) and 'verdict'")
                continue
            extra = set(v) - {"fact", "verdict", "wrong"}
            if extra:
                bad("unknown_field", f"must_have[{j}] has unknown field(s) {sorted(extra)}")
            if "wrong" in v and not isinstance(v["wrong"], str):
                bad("wrong_type", f"must_have[{j}].wrong must be a string")
            if v["verdict"] not in VERDICT_SCORES:
                bad("bad_verdict", f"must_have[{j}].verdict {v['verdict']!r} is not one of {list(VERDICT_SCORES)}")
            else:
                verdicts.append(v["verdict"])
    corr = rec.get("correctness")
    if isinstance(corr, str) and corr not in CORRECTNESS_SCORES:
        bad("bad_correctness", f"correctness {corr!r} is not one of {list(CORRECTNESS_SCORES)}")
    faith = rec.get("faithfulness")
    if isinstance(faith, str) and faith not in FAITHFULNESS_LABELS:
        bad("bad_faithfulness", f"faithfulness {faith!r} is not one of {list(FAITHFULNESS_LABELS)}")
    claims = rec.get("unsupported_claims")
    if isinstance(claims, list):
        if not _is_str_list(claims):
            bad("wrong_type", "field 'unsupported_claims' must be a list of strings")
        elif len(claims) > MAX_UNSUPPORTED_CLAIMS:
            bad("too_many_claims", f"at most {MAX_UNSUPPORTED_CLAIMS} unsupported claims, got {len(claims)}")
        elif claims and faith == "faithful":
            bad("inconsistent", "faithfulness is 'faithful' but unsupported_claims is not empty")
    all_listed = isinstance(rec.get("must_have"), list) and len(verdicts) == len(rec["must_have"])
    if corr == "correct" and all_listed and any(v != "yes" for v in verdicts):
        bad("inconsistent", "correctness is 'correct' but not every must_have verdict is 'yes'")
    return out


def validate_gradings(records: Sequence[Mapping], items: Sequence[Mapping]) -> list[Problem]:
    """Problems of grading records against their items: unknown id, facts not the item's (same text, order, count)."""
    by_id = {it["id"]: it for it in items}
    problems: list[Problem] = []
    keys: Counter = Counter()
    for rec in records:
        problems.extend(check_grading(rec))
        if not isinstance(rec, Mapping) or not isinstance(rec.get("id"), str):
            continue
        rid = rec["id"]
        keys[(rec.get("run"), rid)] += 1
        if keys[(rec.get("run"), rid)] == 2:
            problems.append(Problem(rid, "duplicate_id", f"item graded more than once in run {rec.get('run')!r}"))
        if rid not in by_id:
            problems.append(Problem(rid, "unknown_item", f"no item with id {rid!r}"))
            continue
        facts = by_id[rid]["must_have"]
        graded = rec.get("must_have")
        if not isinstance(graded, list):
            continue
        got = [v.get("fact") if isinstance(v, Mapping) else None for v in graded]
        if len(got) != len(facts):
            problems.append(Problem(rid, "fact_count", f"{len(got)} must_have verdicts for {len(facts)} facts"))
        elif got != facts:
            if sorted(map(str, got)) == sorted(facts):
                problems.append(Problem(rid, "fact_order", "must_have verdicts are not in the item's fact order"))
            else:
                diff = [j for j, (a, b) in enumerate(zip(got, facts)) if a != b]
                problems.append(Problem(rid, "fact_mismatch",
                                        f"must_have[{diff[0]}] fact {got[diff[0]]!r} is not the item's "
                                        f"{facts[diff[0]]!r}"))
    return problems


def load_gradings(path: str | os.PathLike) -> list[dict]:
    """Read grading records from JSON Lines; schema problems raise, naming file, line and item id."""
    return _load_records(path, check_grading, lambda o: (o.get("run"), o["id"]), "grading record")


def write_gradings(records: Iterable[Mapping], path: str | os.PathLike) -> None:
    """Write grading records as UTF-8 JSON Lines; refuses records with schema problems."""
    records = list(records)
    problems = [p for r in records for p in check_grading(r)]
    if problems:
        raise ValueError("refusing to write invalid grading records:\n" + "\n".join(map(str, problems)))
    _write_jsonl(records, path)


def grading_scores(records: Sequence[Mapping], items: Sequence[Mapping] | None = None) -> pd.DataFrame:
    """Per record: run, id, must-have recall ``(1/M) sum_j s_j`` (yes 1, partial 0.5, no 0), correctness score, labels.

    With ``items``, records are first validated against them and any problem raises.
    """
    problems = validate_gradings(records, items) if items is not None else \
        [p for r in records for p in check_grading(r)]
    if problems:
        raise ValueError("invalid grading records:\n" + "\n".join(map(str, problems)))
    rows = []
    for r in records:
        scores = [VERDICT_SCORES[v["verdict"]] for v in r["must_have"]]
        rows.append({
            "run": r.get("run", ""),
            "item_id": r["id"],
            "must_have_recall": sum(scores) / len(scores),
            "correctness": CORRECTNESS_SCORES[r["correctness"]],
            "correctness_label": r["correctness"],
            "faithfulness": r["faithfulness"],
        })
    return pd.DataFrame(rows, columns=["run", "item_id", "must_have_recall", "correctness",
                                       "correctness_label", "faithfulness"])


def aggregate_gradings(records: Sequence[Mapping], items: Sequence[Mapping] | None = None) -> pd.Series:
    """``n``, Must-have Recall ``(1/N) sum_i (1/M_i) sum_j s_ij``, mean Correctness, share of each faithfulness label."""
    df = grading_scores(records, items)
    if df.empty:
        raise ValueError("no grading records to aggregate")
    out = {"n": len(df), "MustHaveRecall": df["must_have_recall"].mean(), "Correctness": df["correctness"].mean()}
    for label in FAITHFULNESS_LABELS:
        out[f"faithfulness:{label}"] = float((df["faithfulness"] == label).mean())
    return pd.Series(out, dtype=object)
