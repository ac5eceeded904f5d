"""Evidence-based RAG evaluation: items with verbatim evidence quotes, script-graded retrieval, answer grades.

To add a retrieval measure, compute it in ``scoring._set_scores`` and name it in ``schema.SET_METRICS``:
``ranked_metrics`` then gives it at every k, ``evaluate_items`` as a column and ``breakdown`` per group.

An *evaluation item* is a question with the facts an answer must contain and
the evidence for them, recorded as a document id plus a verbatim quote::

    {"id": "q-012", "user_input": "...", "reference": "...",
     "reference_contexts": ["..."], "must_have": ["fact 1", "fact 2"],
     "evidence": [{"doc_id": "d1", "title": "...", "quote": "...",
                   "role": "bridge", "alt_doc_ids": []}, ...],
     "min_docs": 2, "reasoning": "...", "type": "bridge",
     "tags": ["multi_hop"], "query_style": "natural"}

Items are stored as JSON Lines (:func:`load_items`, :func:`write_items`) and
checked by :func:`validate` against the corpus they quote.

Quotes are matched, not chunk ids: a retrieved chunk *contains* a quote when
``normalise(quote)`` is a substring of ``normalise(chunk text)``, so an
evaluation set survives any change of chunking. ``alt_doc_ids`` lists other
documents that hold the same fact; an evidence document counts as retrieved
when it or one of its alternatives is retrieved.

Retrieval metrics for one item over a ranked list of chunks ``c_1, c_2, ...``
(each ``{"doc_id": ..., "text": ...}``), with evidence *groups*
``G_1..G_m`` (one per distinct evidence ``doc_id``: the id and the
``alt_doc_ids`` of every evidence entry with that id) and quotes ``q_1..q_n``
(quote ``q_j`` may be found only in a chunk of its own documents ``D_j`` =
its ``doc_id`` and ``alt_doc_ids``, unless ``quote_scope="any"``)::

    DocHit@k         = 1 if some c_r (r <= k) has doc in G_1 ∪ ... ∪ G_m
    AllDocs@k        = 1 if every G_i has a document among c_1..c_k
    EvidenceRecall@k = |{j : q_j in some c_r, r <= k, doc(c_r) in D_j}| / n
    AllEvidence@k    = 1 if EvidenceRecall@k = 1
    RR_doc           = 1 / (rank of the first chunk of an evidence document), 0 if none
    RR_evidence      = 1 / (rank of the first chunk containing an evidence quote), 0 if none

Their means over items are Doc Hit@k, All Docs@k, Evidence Recall@k,
All Evidence@k, MRR_doc and MRR_evidence. :func:`set_metrics` computes the
first four without ranks, for the whole set of chunks handed to an answer
writer. :func:`breakdown` averages per-item results over ALL, single,
composite (``min_docs >= 2``), each type and each tag.

Repeated measurement: :func:`run_summary` gives each metric's mean and
min-max over several runs of one condition; :func:`sign_test_runs` pairs two
conditions item by item on their run means.

Answer grading records (one per answer) carry a verdict per must-have fact
(yes = 1, partial = 0.5, no = 0), a correctness label (correct = 1,
partial = 0.5, incorrect = no_answer = 0) and a faithfulness label
(faithful, minor, major); :func:`validate_gradings` checks them against their
items and :func:`aggregate_gradings` gives Must-have Recall, Correctness and
the faithfulness distribution.

Where this module differs from the source article's code (seed 003): a quote
counts as found only in a chunk of one of its own documents (``doc_id`` or
``alt_doc_ids``); the article accepts any chunk, which ``quote_scope="any"``
reproduces. Normalisation also applies Unicode NFC and removes every HTML tag
(the article turns ``<br>`` into ``/``). MRR is computed twice, on the first
evidence document (the article's MRR) and on the first chunk with a quote.

The package's modules: :mod:`.schema` (vocabulary, Problem, EvalSetError), :mod:`.quotes`
(normalisation, gold evidence), :mod:`.items` (checking items), :mod:`.files` (JSON Lines),
:mod:`.scoring` (retrieval metrics), :mod:`.repeats` (repeated measurement) and
:mod:`.grading` (answer grading records), :mod:`.passage_keys`
(answer keys of judged passages, written as quotes, that survive rechunking), :mod:`.nuggets`
(answers graded by nuggets, TREC RAG 2024's scores: ``rag.nuggets.score(records)``) and
:mod:`.nugget_llm` (nuggets and assignments from the user's language model).
"""
from . import nugget_llm, nuggets
from .files import load_items, write_items
from .grading import (GRADING_FIELDS, GRADING_OPTIONAL, aggregate_gradings, check_grading, grading_scores, load_gradings,
                      validate_gradings, write_gradings)
from .items import check_item, complete_alt_doc_ids, item_counts, validate
from .passage_keys import (MATCHES, PassageKey, chunk_grades, evidence_scores, key_matches, passage_keys,
                           redundant_chunks, subtopic_qrels)
from .quotes import Gold, corpus_texts, find_quote, gold, is_composite, min_documents, normalise, quote_in
from .repeats import item_means, run_summary, sign_test_runs
from .schema import (CORRECTNESS_SCORES, EVIDENCE_FIELDS, EVIDENCE_ROLES, FAITHFULNESS_LABELS, ITEM_FIELDS,
                     MAX_UNSUPPORTED_CLAIMS, MUST_HAVE_RANGE, QUERY_STYLES, RANKED_METRICS, SET_METRICS, TYPES,
                     VERDICT_SCORES, EvalSetError, Problem)
from .scoring import breakdown, evaluate_items, evaluate_sets, ranked_metrics, set_metrics

__all__ = [
    "nuggets",
    "nugget_llm",
    "TYPES",
    "QUERY_STYLES",
    "EVIDENCE_ROLES",
    "ITEM_FIELDS",
    "EVIDENCE_FIELDS",
    "VERDICT_SCORES",
    "CORRECTNESS_SCORES",
    "FAITHFULNESS_LABELS",
    "RANKED_METRICS",
    "SET_METRICS",
    "Problem",
    "EvalSetError",
    "normalise",
    "quote_in",
    "find_quote",
    "corpus_texts",
    "Gold",
    "gold",
    "is_composite",
    "min_documents",
    "check_item",
    "validate",
    "complete_alt_doc_ids",
    "item_counts",
    "load_items",
    "write_items",
    "ranked_metrics",
    "set_metrics",
    "evaluate_items",
    "evaluate_sets",
    "breakdown",
    "item_means",
    "run_summary",
    "sign_test_runs",
    "PassageKey",
    "MATCHES",
    "passage_keys",
    "key_matches",
    "chunk_grades",
    "subtopic_qrels",
    "redundant_chunks",
    "evidence_scores",
    "check_grading",
    "validate_gradings",
    "load_gradings",
    "write_gradings",
    "grading_scores",
    "aggregate_gradings",
]
