"""Nuggets and assignments from the user's model, tested with a small deterministic stand-in (no model)."""
import json
import re

import pytest

from searchgrade.rag import nugget_llm, nuggets
from searchgrade.rag.nuggets import NuggetError


def stand_in(prompt: str) -> str:
    """A deterministic 'model': facts are the passages' sentences; a fact is vital when it shares a word with the
    question; an answer supports a fact it contains, partly supports one it shares half the words with."""
    question = re.search(r"^Question: (.*)$", prompt, re.M).group(1).lower()
    facts = re.findall(r"^\d+\. (.*)$", prompt, re.M)
    if prompt.startswith("Step: nugget creation."):
        passages = re.findall(r"^\[\d+\] (.*)$", prompt, re.M)
        return "Here they are: " + json.dumps([s.strip() + "." for p in passages for s in p.split(".") if s.strip()])
    if prompt.startswith("Step: nugget importance."):
        return json.dumps(["vital" if set(f.lower().rstrip(".").split()) & set(question.split()) else "okay"
                           for f in facts])
    answer = re.search(r"^Answer: (.*)$", prompt, re.M).group(1).lower()
    labels = []
    for fact in facts:
        words = fact.lower().rstrip(".").split()
        shared = sum(w in answer for w in words)
        labels.append("support" if fact.lower().rstrip(".") in answer else
                      "partial_support" if 2 * shared >= len(words) else "not_support")
    return json.dumps(labels)


QUESTIONS = {"q1": "when was the bridge built"}
PASSAGES = {"q1": ["The bridge was built in 1820. It was painted red.", "Boats pass under it."]}
ANSWERS = {"good": {"q1": "The bridge was built in 1820 and it was painted red."},
           "poor": {"q1": "Boats pass the bridge, which was built long ago."}}


def test_the_steps_with_a_stand_in_model():
    facts = nugget_llm.create_nuggets(stand_in, QUESTIONS["q1"], PASSAGES["q1"])
    assert facts == ["The bridge was built in 1820.", "It was painted red.", "Boats pass under it."]
    labelled = nugget_llm.label_importance(stand_in, QUESTIONS["q1"], facts, window=2)
    assert [n["importance"] for n in labelled] == ["vital", "vital", "okay"]
    records = nugget_llm.assess(stand_in, QUESTIONS, PASSAGES, ANSWERS)
    assert [r["run_id"] for r in records] == ["good", "poor"]
    assert [n["assignment"] for n in records[0]["nuggets"]] == ["support", "support", "not_support"]
    assert [n["assignment"] for n in records[1]["nuggets"]] == ["partial_support", "not_support", "partial_support"]
    table = nuggets.score(records)
    assert table["vital"].tolist() == [1.0, 0.25] and table["all"].tolist() == [pytest.approx(2 / 3), 1 / 3]


@pytest.mark.parametrize("reply, message", [
    ("no list here", "question 'q1', importance: the reply holds no JSON list: 'no list here'"),
    ('["vital"]', "question 'q1', importance: 1 labels for 2 nuggets"),
    ('["vital", "crucial"]', "question 'q1', importance: unknown label 'crucial' (expected vital, okay)"),
])
def test_a_bad_reply_is_one_line(reply, message):
    with pytest.raises(NuggetError) as err:
        nugget_llm.label_importance(lambda prompt: reply, "q", ["a", "b"], qid="q1")
    assert str(err.value) == message


def test_creation_replies_and_missing_passages_are_checked():
    with pytest.raises(NuggetError, match=r"nugget creation: a nugget is not a non-empty string: 3"):
        nugget_llm.create_nuggets(lambda p: "[3]", "q", ["p"], qid="q1")
    with pytest.raises(NuggetError, match="run 'good': question 'q2' has no question text or no passages"):
        nugget_llm.assess(stand_in, QUESTIONS, PASSAGES, {"good": {"q2": "x"}})
    with pytest.raises(ValueError, match="window must be a positive integer"):
        nugget_llm.label_importance(stand_in, "q", ["a"], window=0)
