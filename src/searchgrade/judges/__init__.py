"""Who decides what is relevant: TREC-style pools replayed on complete judgments, and automatic judges for a pool's holes.

To add a judge, subclass :class:`Judge` (:mod:`.base`; its ``_grades(qids, docids)`` gives the grades) in a
module of its own, and name a factory ``f(collection, **options)`` in :data:`JUDGES` (:mod:`.kinds`).

A test collection such as Cranfield judged every document for every query. TREC could
not: it judged only the *pool*, the union of the top ``depth`` documents of every
participating system (Spärck Jones & van Rijsbergen 1975; Harman 1993), and treated the
rest as unjudged. The functions here replay that on complete judgments, so the cost of
pooling can be measured:

* :func:`pool` builds the pool from a set of runs;
* :func:`pooled_qrels` keeps only the judgments a pool would have produced;
* :func:`leave_one_out` rebuilds the pool without one system (Zobel 1998), the test of
  whether a new system would be treated fairly by judgments it did not contribute to;
* :func:`pool_coverage` and :func:`unique_relevant` count what a pool found.

Runs are ``{qid: {docid: score}}`` and qrels ``{qid: {docid: grade}}`` as everywhere in
searchgrade; a set of runs is ``{system_name: run}``. Rankings follow trec_eval's order
(score descending, ties by docid descending), so a pool does not depend on dict order.

Relevance judges fill the holes a pool leaves: automatic assessors behind one interface,
``judge(qid, docid) -> grade`` with the 0/1/2 scale of :data:`RUBRIC` (0 unrelated, 1 related,
2 contains the answer) and a batch method ``judge_many(pairs)``:

* :class:`AnswerJudge` says 2 when one of the question's answer texts occurs in the document
  (KorQuAD keeps each question's answer), else 0; :func:`answer_spread` counts how many
  documents contain each answer, the trap of this judge;
* :class:`EmbeddingJudge` says 2 when the cosine similarity of question and document
  embeddings reaches a threshold (optionally 1 above a lower one), else 0;
  :func:`choose_threshold` picks a threshold on easy pairs (known relevant vs random);
* :func:`make_judge` builds one by name (:data:`JUDGES`);
* :func:`holes` and :func:`fill_holes` find the unjudged top-k documents of runs and give
  them the judge's grade; :func:`agreement` and :func:`validate` compare a judge with
  a labelled sample (:func:`read_labels` checks a label file, :func:`draw_label_sample` draws one).

The package's modules: :mod:`.pooling` (pools), :mod:`.base` (the judge interface),
:mod:`.answer` and :mod:`.embedding` (the two judges), :mod:`.kinds` (judges by name),
:mod:`.holes` (filling qrels), :mod:`.agreement` (a judge against labels) and
:mod:`.labels` (the labelled sample).
"""
from ..io import trec_order
from .agreement import agreement, validate
from .answer import AnswerJudge, answer_spread
from .base import GRADES, RUBRIC, Judge, normalise_text
from .embedding import EmbeddingJudge, choose_threshold
from .holes import add_judgments, fill_holes, holes
from .kinds import JUDGES, make_judge
from .labels import LABEL_SOURCES, LabelFileError, draw_label_sample, easy_pairs, read_labels
from .pooling import leave_one_out, pool, pool_coverage, pooled_qrels, unique_relevant

__all__ = [
    "pool",
    "pooled_qrels",
    "leave_one_out",
    "pool_coverage",
    "unique_relevant",
    "trec_order",
    "RUBRIC",
    "GRADES",
    "Judge",
    "AnswerJudge",
    "EmbeddingJudge",
    "JUDGES",
    "make_judge",
    "normalise_text",
    "answer_spread",
    "choose_threshold",
    "holes",
    "add_judgments",
    "fill_holes",
    "agreement",
    "validate",
    "LabelFileError",
    "LABEL_SOURCES",
    "read_labels",
    "draw_label_sample",
    "easy_pairs",
]
