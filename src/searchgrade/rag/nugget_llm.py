"""Nuggets and assignments from the user's language model: prompts in, JSON lists out, records checked.

searchgrade ships no model. ``llm`` is any callable taking a prompt (a str) and returning the
model's reply (a str): a client call, a local model, a cache, or a deterministic stand-in in
tests. The three steps follow TREC RAG 2024's AutoNuggetizer (Pradeep et al., arXiv:2411.09607):

1. :func:`create_nuggets`: the facts a good answer to a question holds, written from passages
   judged relevant (one call);
2. :func:`label_importance`: each nugget ``vital`` or ``okay`` (one call per ``window`` nuggets);
3. :func:`assign_nuggets`: whether an answer gives ``support``, ``partial_support`` or
   ``not_support`` to each nugget (one call per ``window`` nuggets).

Every reply must hold one JSON list (text around it is ignored): strings for step 1, one label
per nugget for steps 2 and 3. A reply that is not such a list, has the wrong length or an unknown
label is a :class:`searchgrade.rag.nuggets.NuggetError` naming the question and the step; no
reply is repaired or retried here (a callable that retries can be passed instead).
:func:`assess` runs the steps over questions and answers and returns the assignment records
that :func:`searchgrade.rag.nuggets.score` scores.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from ..io.errors import shown
from .nuggets import ASSIGNMENTS, IMPORTANCE, NuggetError, check_record

__all__ = ["LLM", "create_nuggets", "label_importance", "assign_nuggets", "assess", "PROMPTS"]

#: The user's model: a prompt in, the reply out.
LLM = Callable[[str], str]

#: The prompt of each step; ``{...}`` fields are filled by the functions below.
PROMPTS = {
    "create": (
        "Step: nugget creation.\n"
        "List the facts that a complete answer to the question must or may contain, using only the passages. "
        "Write each fact as one short, self-contained sentence, at most {max_nuggets} facts, without repeats.\n"
        "Reply with a JSON list of strings and nothing else.\n\n"
        "Question: {question}\n\nPassages:\n{passages}\n"),
    "importance": (
        "Step: nugget importance.\n"
        "For each numbered fact, say whether an answer to the question is incomplete without it (\"vital\") "
        "or whether it is useful but not required (\"okay\").\n"
        "Reply with a JSON list of {n} labels, one per fact in order, each \"vital\" or \"okay\".\n\n"
        "Question: {question}\n\nFacts:\n{nuggets}\n"),
    "assignment": (
        "Step: nugget assignment.\n"
        "For each numbered fact, say whether the answer states it (\"support\"), states part of it "
        "(\"partial_support\") or does not state it (\"not_support\").\n"
        "Reply with a JSON list of {n} labels, one per fact in order.\n\n"
        "Question: {question}\n\nAnswer: {answer}\n\nFacts:\n{nuggets}\n"),
}


def _numbered(lines: Sequence[str]) -> str:
    return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, 1))


def _reply_list(reply, where: str) -> list:
    """The JSON list a reply holds (from its first ``[`` to its last ``]``)."""
    if not isinstance(reply, str):
        raise NuggetError(f"{where}: the model returned a {type(reply).__name__}, not text")
    start, end = reply.find("["), reply.rfind("]")
    try:
        value = json.loads(reply[start:end + 1]) if 0 <= start < end else None
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, list):
        raise NuggetError(f"{where}: the reply holds no JSON list: {shown(reply, 60)}")
    return value


def _labels(llm: LLM, step: str, allowed: Sequence[str], lines: Sequence[str], window: int, where: str,
            **fields) -> list[str]:
    """One label per line, asked ``window`` lines at a time."""
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive integer, got {window!r}")
    labels: list[str] = []
    for start in range(0, len(lines), window):
        part = lines[start:start + window]
        reply = _reply_list(llm(PROMPTS[step].format(n=len(part), nuggets=_numbered(part), **fields)), where)
        if len(reply) != len(part):
            raise NuggetError(f"{where}: {len(reply)} labels for {len(part)} nuggets")
        bad = [x for x in reply if x not in allowed]
        if bad:
            raise NuggetError(f"{where}: unknown label {bad[0]!r} (expected {', '.join(allowed)})")
        labels.extend(reply)
    return labels


def create_nuggets(llm: LLM, question: str, passages: Sequence[str], *, max_nuggets: int = 30,
                   qid: str = "?") -> list[str]:
    """The nuggets (fact sentences) the model writes from ``passages`` for ``question``, repeats removed."""
    where = f"question {qid!r}, nugget creation"
    text = "\n".join(f"[{i}] {p}" for i, p in enumerate(passages, 1))
    reply = _reply_list(llm(PROMPTS["create"].format(max_nuggets=max_nuggets, question=question,
                                                     passages=text)), where)
    bad = [x for x in reply if not isinstance(x, str) or not x.strip()]
    if bad:
        raise NuggetError(f"{where}: a nugget is not a non-empty string: {bad[0]!r}")
    return list(dict.fromkeys(x.strip() for x in reply))[:max_nuggets]


def label_importance(llm: LLM, question: str, nuggets: Sequence[str], *, window: int = 10,
                     qid: str = "?") -> list[dict]:
    """``[{"text", "importance"}]``: each nugget labelled vital or okay by the model."""
    labels = _labels(llm, "importance", IMPORTANCE, list(nuggets), window, f"question {qid!r}, importance",
                     question=question)
    return [{"text": t, "importance": x} for t, x in zip(nuggets, labels)]


def assign_nuggets(llm: LLM, question: str, answer: str, nuggets: Sequence[Mapping], *, window: int = 10,
                   qid: str = "?") -> list[dict]:
    """The nuggets (``{"text", "importance"}``) with the model's ``assignment`` for ``answer`` added."""
    labels = _labels(llm, "assignment", tuple(ASSIGNMENTS), [n["text"] for n in nuggets], window,
                     f"question {qid!r}, assignment", question=question, answer=answer)
    return [{**n, "assignment": a} for n, a in zip(nuggets, labels)]


def assess(llm: LLM, questions: Mapping[str, str], passages: Mapping[str, Sequence[str]],
           answers: Mapping[str, Mapping[str, str]], *, max_nuggets: int = 30, window: int = 10) -> list[dict]:
    """Assignment records ``{"qid", "run_id", "nuggets"}`` for every answer of every run.

    ``questions``: ``{qid: text}``; ``passages``: ``{qid: [relevant passage texts]}`` to write the
    nuggets from (made once per question, shared by every run); ``answers``: ``{run_id: {qid:
    answer}}``. A run's answer to a question without passages is an error naming both.
    """
    nuggets = {}
    for qid, question in questions.items():
        if qid in passages:
            texts = create_nuggets(llm, question, passages[qid], max_nuggets=max_nuggets, qid=qid)
            nuggets[qid] = label_importance(llm, question, texts, window=window, qid=qid)
    records = []
    for run_id, run_answers in answers.items():
        for qid, answer in run_answers.items():
            if qid not in nuggets:
                raise NuggetError(f"run {run_id!r}: question {qid!r} has no question text or no passages to make "
                                  "nuggets from")
            assigned = assign_nuggets(llm, questions[qid], answer, nuggets[qid], window=window, qid=qid)
            record = {"qid": qid, "run_id": run_id, "nuggets": assigned}
            check_record(record, f"run {run_id!r}, question {qid!r}")
            records.append(record)
    return records
