"""Test collections as plain dictionaries: one base module, one module per source, one front door.

To add a collection: a loader module here, ``load_x(data_dir, **options) -> Collection``, ending with
``register("x", load_x)`` (:func:`register`), and imported below; ``load("x")`` then finds it.

``load(name)`` returns a :class:`Collection` (corpus, queries, qrels, meta) for
``"cranfield"``, ``"korquad-dev"``, ``"autorag"``, ``"ko-strategyqa-dev"``,
``"miracl-ko"`` (and its query variants ``"miracl-ko-spacing"``, ``-josa``, ``-jamo``), or
any BEIR-format folder given by its path. :func:`load_collection` is the front door of the
commands and the run engine: a registered name, a pinned hub collection, or a BEIR folder.

========================  ============================================================
module                    what it reads
========================  ============================================================
:mod:`.base`              the :class:`Collection` record, errors, registry
:mod:`.cranfield`         Cranfield (1,400 abstracts, 225 questions, graded)
:mod:`.korquad`           KorQuAD 1.0 dev as retrieval (961 paragraphs, 5,774 questions)
:mod:`.autorag`           AutoRAGRetrieval (720 chunks, 114 questions)
:mod:`.strategyqa`        Ko-StrategyQA dev (queries and judgments)
:mod:`.miracl`            MIRACL-ko dev, judged pools (2,835 passages, 213 questions, human judgments)
:mod:`.beir`              any BEIR folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels/*.tsv``)
:mod:`.resolve`           :func:`load_collection` (names, the hub, BEIR folders), :func:`with_queries`,
                          :func:`collection_hash`, hub collections, JSON-lines qrels as TSV
========================  ============================================================

The loaders need only the core's numpy and pandas, except AutoRAG, which reads
parquet (the ``collections`` extra: pyarrow).
"""
from __future__ import annotations

from ..places import data_root  # where the raw files are (searchgrade.places)
from . import autorag, beir, cranfield, korquad, miracl, strategyqa  # noqa: F401  (each registers its loader)
from .autorag import load_autorag
from .base import (
    LOADERS,
    Collection,
    CollectionFormatError,
    load,
    qrels_statistics,
    register,
    trec_safe_ids,
)
from .beir import load_beir, read_jsonl
from .cranfield import (
    CRANFIELD_CODES,
    CRANFIELD_CONVENTION,
    cranfield_grade,
    read_cranfield_docs,
    read_cranfield_qrels,
    read_cranfield_queries,
)
from .korquad import korquad_docid, load_korquad
from .miracl import MIRACL_VARIANTS, load_miracl_ko
from .resolve import (
    HUB_COLLECTIONS,
    collection_hash,
    dropped_note,
    load_collection,
    load_hub_collection,
    with_queries,
)
from .strategyqa import back_reference, back_references, load_ko_strategyqa_dev

__all__ = [
    "Collection",
    "CollectionFormatError",
    "LOADERS",
    "load",
    "register",
    "load_collection",
    "with_queries",
    "collection_hash",
    "dropped_note",
    "HUB_COLLECTIONS",
    "load_hub_collection",
    "data_root",
    "trec_safe_ids",
    "qrels_statistics",
    "load_korquad",
    "korquad_docid",
    "load_autorag",
    "load_ko_strategyqa_dev",
    "load_miracl_ko",
    "MIRACL_VARIANTS",
    "back_reference",
    "back_references",
    "load_beir",
    "read_jsonl",
    "read_cranfield_docs",
    "read_cranfield_queries",
    "read_cranfield_qrels",
    "cranfield_grade",
    "CRANFIELD_CODES",
    "CRANFIELD_CONVENTION",
]
