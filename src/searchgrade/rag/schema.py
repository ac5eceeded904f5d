"""The evaluation set's vocabulary and field schema, and how problems are reported (Problem, EvalSetError)."""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..io.errors import FormatError


#: Question types, by how the evidence has to be combined (seed 003's eight types).
TYPES = ("single", "bridge", "comparison", "aggregation", "numeric", "rule_application", "causal", "temporal")
#: How the question is written: a clean sentence, a sentence with typos, or bare keywords.
QUERY_STYLES = ("natural", "typo", "keywords")
#: What an evidence quote does for the answer.
EVIDENCE_ROLES = ("answer", "bridge", "rule", "support")

#: Item fields and their JSON types (``list`` fields hold strings, except ``evidence``).
ITEM_FIELDS: dict[str, type] = {
    "id": str,
    "user_input": str,
    "reference": str,
    "reference_contexts": list,
    "must_have": list,
    "evidence": list,
    "min_docs": int,
    "reasoning": str,
    "type": str,
    "tags": list,
    "query_style": str,
}
#: Fields of one evidence entry.
EVIDENCE_FIELDS: dict[str, type] = {
    "doc_id": str,
    "title": str,
    "quote": str,
    "role": str,
    "alt_doc_ids": list,
}
#: Allowed number of must-have facts: single items 1-3, composite items 2-5 (seed 003).
MUST_HAVE_RANGE = {"single": (1, 3), "composite": (2, 5)}

#: Must-have verdict scores: yes = 1, partial = 0.5, no = 0 (seed 003).
VERDICT_SCORES = {"yes": 1.0, "partial": 0.5, "no": 0.0}
#: Correctness scores: correct = 1, partial = 0.5, incorrect = no_answer = 0 (seed 003).
CORRECTNESS_SCORES = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0, "no_answer": 0.0}
#: Faithfulness labels, best first (seed 003).
FAITHFULNESS_LABELS = ("faithful", "minor", "major")
#: At most this many unsupported claims are listed per graded answer (seed 003).
MAX_UNSUPPORTED_CLAIMS = 5

#: Per-item ranked metrics, in column order (``@k`` is appended to the first four).
RANKED_METRICS = ("DocHit", "AllDocs", "EvidenceRecall", "AllEvidence", "RR_doc", "RR_evidence")
#: Unranked metrics over an evidence set.
SET_METRICS = ("DocHit", "AllDocs", "EvidenceRecall", "AllEvidence")

_TAG_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _is_str_list(value: Any) -> bool:
    """True for a list of strings."""
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _type_name(t: type) -> str:
    """How a field type is named in messages."""
    return {str: "a string", int: "an integer", list: "a list"}[t]


# ---------------------------------------------------------------------------
# Problems and errors


@dataclass(frozen=True)
class Problem:
    """One problem found in an item or a grading record: the item id, a short code and a message."""

    item_id: str
    code: str
    message: str

    def __str__(self) -> str:
        """``"<item id>: [<code>] <message>"``."""
        return f"{self.item_id}: [{self.code}] {self.message}"


class EvalSetError(FormatError):
    """Bad evaluation-set or grading file (a :class:`searchgrade.io.FormatError`); each of ``errors`` is ``(line, item_id, message)``.

    ``line`` is the line of a single error, else None; ``str()`` lists every error, one per line.
    """

    def __init__(self, path: str | os.PathLike, errors: Sequence[tuple[int | None, str | None, str]]):
        self.path = str(path)
        self.errors = list(errors)
        lines = []
        for line, item_id, message in self.errors:
            where = self.path if line is None else f"{self.path}:{line}"
            who = "" if item_id is None else f" item {item_id!r}:"
            lines.append(f"{where}:{who} {message}")
        head = f"{len(self.errors)} problem(s) in {self.path}" if len(self.errors) > 1 else ""
        single = len(self.errors) == 1
        self.line = self.errors[0][0] if single else None
        self.problem = "\n".join(lines) if not single else \
            (f"item {self.errors[0][1]!r}: " if self.errors[0][1] is not None else "") + self.errors[0][2]
        ValueError.__init__(self, "\n".join([head, *lines]) if head else lines[0] if lines else self.path)

    def __reduce__(self):
        return (type(self), (self.path, self.errors))
