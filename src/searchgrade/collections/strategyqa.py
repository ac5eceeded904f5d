"""Ko-StrategyQA dev rebuilt as MTEB's retrieval set: step queries and judgments (the raw data hold no Korean paragraph texts)."""
from __future__ import annotations

import re
from pathlib import Path

from ..places import data_root
from .base import Collection, CollectionFormatError, _expect, _PathLike, _read_json, register

__all__ = ["load_ko_strategyqa_dev", "back_reference", "back_references"]

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
    path = data_root(data_dir) / "ko_strategyqa" / "ko-strategy-qa_dev.json"
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
        decomposition, evidence = _question_parts(path, where, item)
        annotators[len(evidence)] = annotators.get(len(evidence), 0) + 1
        for s, text in enumerate(decomposition):
            n_steps += 1
            _expect(isinstance(text, str) and text.strip() != "", path, f"{where}: step {s + 1} is not a non-empty string")
            keys, unusable = _step_evidence(path, where, evidence, s)
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
    counts = {"questions": len(data), "decomposition_steps": n_steps, "dropped_steps": dropped,
              "annotators_per_question": annotators}
    return Collection("ko-strategyqa-dev", {}, queries, qrels, _strategyqa_meta(path, qrels, steps, counts))


def _question_parts(path: Path, where: str, item) -> tuple[list, list]:
    """A question's decomposition steps and its annotators' evidence (one list per annotator, one entry per step)."""
    _expect(isinstance(item, dict) and isinstance(item.get("decomposition"), list)
            and isinstance(item.get("evidence"), list), path, f"{where}: expected 'decomposition' and 'evidence' lists")
    decomposition, evidence = item["decomposition"], item["evidence"]
    _expect(len(evidence) > 0, path, f"{where}: no annotator evidence")
    for k, ann in enumerate(evidence):
        _expect(isinstance(ann, list) and len(ann) == len(decomposition), path,
                f"{where}: annotator {k} gives evidence for {len(ann) if isinstance(ann, list) else '?'} steps, "
                f"the decomposition has {len(decomposition)}")
    return decomposition, evidence


def _step_evidence(path: Path, where: str, evidence: list, s: int) -> tuple[list[str], bool]:
    """Every annotator's paragraph keys for step s, and whether one of them marked it no_evidence or operation."""
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
    return keys, unusable


def _strategyqa_meta(path: Path, qrels: dict, steps: dict, counts: dict) -> dict:
    """Where Ko-StrategyQA comes from, the rule that made its queries, and what was counted and dropped."""
    keys = sorted({d for row in qrels.values() for d in row})
    return {
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
        **counts,
        "files": {"dev": str(path)},
    }


register("ko-strategyqa-dev", load_ko_strategyqa_dev)
