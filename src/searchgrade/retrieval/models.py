"""The tokenisers, encoders and scorers a line-up's retrievers use: one instance per settings in this process.

A model is loaded once per process and shared by every run that names it with the same settings
(the book's notebooks compute many runs in one kernel). Each instance's ``settings()`` is what a
run's cache key records of it (:func:`searchgrade.retrieval.runs.settings`).
"""
from __future__ import annotations

import json
from collections.abc import Mapping

from . import dense, korean

__all__ = ["Analyser", "tokeniser", "encoder", "cross_encoder", "bi_encoder_scorer", "loaded"]

_MODELS: dict[str, object] = {}  # encoders, cross-encoders and analysers of this process, by their settings


class Analyser(korean.Tokeniser):
    """An analyser of :mod:`.sparse` (``words``, ``stems``, ...) used as a BM25 tokeniser."""

    def __init__(self, name: str):
        from . import sparse

        self.name, self._fn = name, sparse.get_analyser(name)

    def __call__(self, text: str) -> list[str]:
        """Terms of one text."""
        return self._fn(text)

    def settings(self) -> dict:
        """Its name and the stemmer's version (the code is in the run key's fingerprint)."""
        return {"name": self.name, "analyser": "searchgrade.retrieval.sparse",
                "snowballstemmer": dense.package_version("snowballstemmer")}


def loaded(key: str, make) -> object:
    """The instance stored under ``key`` in this process, made by ``make()`` the first time."""
    if key not in _MODELS:
        _MODELS[key] = make()
    return _MODELS[key]


def tokeniser(name: str) -> korean.Tokeniser:
    """A Korean tokeniser or a sparse analyser by name."""
    if name in korean.TOKENISERS:
        return korean.get_tokeniser(name)
    return loaded(f"analyser {name}", lambda: Analyser(name))


def encoder(p: Mapping) -> dense.Encoder:
    """The bi-encoder of a dense retriever or bi-encoder scorer (one instance per settings in this process)."""
    if p["model"] in dense.ENCODERS:
        return loaded(f"encoder {p['model']}", lambda: dense.get_encoder(p["model"]))
    options = {k: p.get(k, d) for k, d in (("query_prefix", ""), ("document_prefix", ""), ("batch_size", 32),
                                           ("max_seq_length", None), ("device", "cpu"), ("trust_remote_code", False))}
    key = "st " + json.dumps([p["model"], options], sort_keys=True)
    return loaded(key, lambda: dense.SentenceTransformerEncoder(p["model"], **options))


def cross_encoder(p: Mapping) -> dense.CrossEncoderScorer:
    """The cross-encoder of a rerank stage (one instance per settings in this process)."""
    options = {"batch_size": p.get("batch_size", 32), "max_length": p.get("max_length"), "device": p.get("device", "cpu")}
    key = "cross " + json.dumps([p["model"], options], sort_keys=True)
    return loaded(key, lambda: dense.CrossEncoderScorer(p["model"], **options))


def bi_encoder_scorer(p: Mapping) -> bool:
    """Does this rerank stage score with a bi-encoder (else a cross-encoder)?"""
    return p.get("scorer", "cross-encoder") == "bi-encoder"
