"""Answers graded by nuggets: TREC RAG 2024's AutoNuggetizer scores from nugget lists and assignments.

A *nugget* is a fact a good answer to a question holds, marked ``vital`` or ``okay``; an
*assignment* says whether one answer supports it (``support``), supports part of it
(``partial_support``) or not (``not_support``). The records are nuggetizer's assignment records,
one per answer, as dicts or a JSON Lines file::

    {"qid": "q1", "run_id": "bm25+llm", "nuggets": [
        {"text": "...", "importance": "vital", "assignment": "support"},
        {"text": "...", "importance": "okay", "assignment": "partial_support"}]}

Scores of one answer (:func:`score`; Pradeep et al., "Initial Nugget Evaluation Results for the
TREC 2024 RAG Track with the AutoNuggetizer Framework", arXiv:2411.09607, 2024), with ``V`` its
topic's vital nuggets, ``A`` all its nuggets, ``s(n)`` = 1 for support, 1/2 for partial support
and 0 for no support, and ``s*(n)`` = 1 for support only::

    strict_vital = sum of s*(n) over V / |V|        vital = sum of s(n) over V / |V|
    strict_all   = sum of s*(n) over A / |A|        all   = sum of s(n) over A / |A|

The four equal ``nuggetizer.core.metrics.calculate_nugget_scores`` of nuggetizer 0.0.5, and their
means over answers (:func:`means`) its ``calculate_global_metrics`` (checked in the tests). A
topic with no vital nugget gets nuggetizer's value, 0, for the two vital scores, with a warning
naming the topics; ``no_vital="drop"`` leaves those answers out instead. An answer with no
nugget at all scores 0 on all four (nuggetizer's value), and is named in the same warning.

Where this differs from nuggetizer on purpose: a record is checked first. An importance other
than vital or okay (nuggetizer counts it as okay), an assignment other than the three labels
(nuggetizer counts it as no support), a nugget without an importance or an assignment (nuggetizer
fails with a KeyError) are errors naming the file, the line and the nugget.

:func:`per_topic` splits the rows into one table per run (index ``qid``), the input form of
:func:`searchgrade.compare` for already scored systems, so that paired tests, corrections and the
report work on answers as they do on rankings::

    scores = nuggets.score("assignments.jsonl")
    sg.compare(None, nuggets.per_topic(scores), ["all", "vital"], baseline="bm25+llm")

Making nuggets and assignments needs a language model; :mod:`searchgrade.rag.nugget_llm` asks
the user's model (a callable) and ships none.
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from ..io.jsonl import read_jsonl

__all__ = ["IMPORTANCE", "ASSIGNMENTS", "SCORES", "NO_VITAL", "NuggetError", "NuggetWarning", "load_records",
           "check_record", "score", "means", "per_topic"]

#: A nugget's importance: needed in a good answer, or good to have.
IMPORTANCE = ("vital", "okay")
#: An assignment's credit in the non-strict scores (the strict ones count support only).
ASSIGNMENTS = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
#: The score columns, TREC RAG 2024's names without nuggetizer's ``_score`` suffix.
SCORES = ("strict_vital", "vital", "strict_all", "all")
#: What :func:`score` does with an answer whose topic has no vital nugget.
NO_VITAL = ("zero", "drop")


class NuggetError(ValueError):
    """A record that is not nuggetizer's assignment record; the message names the file and line, or the index."""


class NuggetWarning(UserWarning):
    """Answers scored by a convention rather than by their nuggets (no vital nugget, no nugget at all)."""


def _id_fields(record: Mapping) -> dict:
    """``qid``, ``run_id`` and every other field whose name ends in ``id`` (answer_id, docid, topic_id)."""
    return {k: v for k, v in record.items() if k == "qid" or k.endswith("id")}


def check_record(record, where: str) -> None:
    """Refuse a record that is not nuggetizer's assignment record; ``where`` names it (``file:line``)."""
    if not isinstance(record, Mapping):
        raise NuggetError(f"{where}: expected an object with 'qid' and 'nuggets', got {type(record).__name__}")
    for key in ("qid", "nuggets"):
        if key not in record:
            raise NuggetError(f"{where}: missing {key!r}")
    if not isinstance(record["nuggets"], list):
        raise NuggetError(f"{where}: 'nuggets' is a {type(record['nuggets']).__name__}, not a list")
    for field, value in _id_fields(record).items():
        if isinstance(value, (dict, list)) or value is None:
            raise NuggetError(f"{where}: {field!r} is not a plain value: {value!r}")
    for i, nugget in enumerate(record["nuggets"], 1):
        _check_nugget(nugget, f"{where}: nugget {i}")


def _check_nugget(nugget, where: str) -> None:
    if not isinstance(nugget, Mapping):
        raise NuggetError(f"{where} is a {type(nugget).__name__}, not an object")
    text = nugget.get("text")
    where = f"{where} ({str(text)[:30]!r})" if text is not None else where
    if "importance" not in nugget:
        raise NuggetError(f"{where} has no importance (vital or okay)")
    if nugget["importance"] not in IMPORTANCE:
        raise NuggetError(f"{where}: unknown importance {nugget['importance']!r} (expected vital or okay)")
    if "assignment" not in nugget:
        raise NuggetError(f"{where} has no assignment (support, partial_support or not_support)")
    if nugget["assignment"] not in ASSIGNMENTS:
        raise NuggetError(f"{where}: unknown assignment {nugget['assignment']!r} (expected "
                           f"{', '.join(ASSIGNMENTS)})")


def load_records(records) -> list[dict]:
    """Checked assignment records from a list of dicts or a JSON Lines path (errors name file and line)."""
    if isinstance(records, (str, os.PathLike)):
        path = Path(records)
        rows = read_jsonl(path)
        for lineno, record in rows:
            check_record(record, f"{path}:{lineno}")
        return [record for _, record in rows]
    if isinstance(records, Mapping) or not isinstance(records, Iterable):
        raise TypeError(f"records must be a list of assignment records or a JSON Lines path, not "
                        f"{type(records).__name__}")
    out = list(records)
    for i, record in enumerate(out):
        check_record(record, f"records[{i}]")
    return out


def _row(record: Mapping) -> dict:
    """One answer's id fields, nugget counts and the four scores."""
    nuggets = record["nuggets"]
    vital = [n for n in nuggets if n["importance"] == "vital"]

    def credit(group, strict: bool) -> float:
        if not group:
            return 0.0
        total = sum(1.0 if n["assignment"] == "support" else 0.0 if strict else ASSIGNMENTS[n["assignment"]]
                    for n in group)
        return total / len(group)

    return {**_id_fields(record), "nuggets": len(nuggets), "vital_nuggets": len(vital),
            "strict_vital": credit(vital, True), "vital": credit(vital, False),
            "strict_all": credit(nuggets, True), "all": credit(nuggets, False)}


def score(records, *, no_vital: str = "zero") -> pd.DataFrame:
    """One row per answer: its id fields (``qid``, ``run_id``, ...), nugget counts and :data:`SCORES`.

    ``records``: assignment records (dicts) or a JSON Lines path, checked by :func:`check_record`.
    ``no_vital``: ``"zero"`` (nuggetizer's 0 for the vital scores, with a warning) or ``"drop"``
    (such answers left out, with a warning).
    """
    if no_vital not in NO_VITAL:
        raise ValueError(f"no_vital must be 'zero' or 'drop', got {no_vital!r}")
    rows = pd.DataFrame([_row(r) for r in load_records(records)])
    if rows.empty:
        raise NuggetError("no assignment records")
    lacking = rows["vital_nuggets"] == 0
    if lacking.any():
        topics = sorted(map(str, rows.loc[lacking, "qid"].unique()))
        shown = ", ".join(repr(t) for t in topics[:8]) + (", ..." if len(topics) > 8 else "")
        action = "left out (no_vital='drop')" if no_vital == "drop" else "scored 0 on strict_vital and vital"
        warnings.warn(f"{int(lacking.sum())} answers to {len(topics)} topics with no vital nugget were {action}: "
                      f"{shown}", NuggetWarning, stacklevel=2)
        if no_vital == "drop":
            rows = rows.loc[~lacking].reset_index(drop=True)
    return rows


def means(scores: pd.DataFrame) -> pd.Series:
    """The mean of each score over the answers (nuggetizer's ``calculate_global_metrics``)."""
    return scores[list(SCORES)].mean()


def per_topic(scores: pd.DataFrame, system: str = "run_id") -> dict[str, pd.DataFrame]:
    """``{run: table}`` with one row per topic (index ``qid``) and the :data:`SCORES` columns, for ``compare``.

    ``system`` names the column that tells the runs apart; without it every answer is one run
    called ``"answers"``. A run with two answers to one topic is an error naming both.
    """
    if system not in scores.columns:
        groups = [("answers", scores)]
    else:
        groups = list(scores.groupby(system, sort=False))
    out = {}
    for name, group in groups:
        repeated = group["qid"][group["qid"].duplicated()]
        if len(repeated):
            raise ValueError(f"run {name!r} answers topic {repeated.iloc[0]!r} more than once")
        out[str(name)] = group.set_index(group["qid"].astype(str).rename("qid"))[list(SCORES)]
    return out
