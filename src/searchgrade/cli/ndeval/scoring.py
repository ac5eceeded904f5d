"""The values of a run's topics, a block of topics at a time: :func:`score_topics`.

Each :class:`~.files.TopicBlock` (topics ordered and cut as ndeval does) becomes a ranked context of its
judged documents (:meth:`searchgrade.measures.subtopics.SubtopicIndex.judged_context`) and every measure
is the registry's diversity kernel on it (:func:`searchgrade.measures.engine.kernel_values`): the
kernels ``sg.evaluate`` calls, on the ranking ndeval makes.  A topic without judgments gets zeros.
Only the values are kept (one row of numbers a topic), never a block's lines.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ...measures.engine import kernel_values, plan
from ...measures.options import Options
from ...measures.subtopics import SubtopicIndex
from .files import TopicBlock

__all__ = ["score_topics", "planned"]


def planned(names: list[str]):
    """The measures of ndeval's columns, parsed as the engine parses them (ties as trec_eval breaks them)."""
    return plan(names, Options(ties="trec"))


def score_topics(index: SubtopicIndex, measures: list, blocks: Iterable[TopicBlock]) -> tuple[np.ndarray, np.ndarray]:
    """(the run's topics ascending, their values: one row a topic, one column a measure)."""
    qids = np.sort(np.asarray(index.qids, dtype=np.int64))
    topics, values = [], []
    for block in blocks:
        topics.append(block.topics)
        values.append(_block_values(index, qids, measures, block))
    if not topics:
        return np.zeros(0, dtype=np.int64), np.zeros((0, len(measures)))
    topic, value = np.concatenate(topics), np.concatenate(values)
    order = np.argsort(topic, kind="stable")
    return topic[order], value[order]


def _block_values(index: SubtopicIndex, qids: np.ndarray, measures: list, block: TopicBlock) -> np.ndarray:
    """One block's values (zeros for its topics without judgments)."""
    out = np.zeros((len(block.topics), len(measures)))
    judged = np.isin(block.topics, qids)
    if not judged.any():
        return out
    row = np.cumsum(judged) - 1  # each judged topic's row in the context
    ctx = index.judged_context(block.topics[judged].tolist(), block.lengths[judged], row[block.seg], block.pos,
                               block.doc)
    out[judged] = np.column_stack([kernel_values(m, ctx) for m in measures])
    return out
