"""What the runs of one collection share in a process: document texts, token lists, dense indexes, finished runs.

A :class:`Workspace` is memoised per collection content (:func:`workspace`), so a notebook that
asks for ten runs of one collection tokenises and embeds its corpus once. Token lists of the
corpus are also cached on disk (:mod:`.tokens`) and embeddings too (:mod:`.encoders`), so a new
output folder or a new process recomputes neither.
"""
from __future__ import annotations

import json
from collections.abc import Sequence

from ..collections import Collection, collection_hash
from ..io.types import Run
from . import dense
from .tokens import tokenise

__all__ = ["Workspace", "workspace"]


class Workspace:
    """Per-collection memo: document texts, token lists, dense indexes and finished runs."""

    def __init__(self, collection: Collection, progress: bool):
        if not collection.corpus:
            note = collection.meta.get("corpus_note", "")
            raise ValueError(f"collection {collection.name!r} has no documents; no run can be made. {note}".strip())
        spaced = [i for i in list(collection.corpus) + list(collection.queries) if any(c.isspace() for c in i)]
        if spaced:
            raise ValueError(f"collection {collection.name!r}: {len(spaced)} ids contain whitespace (e.g. {spaced[0]!r}), "
                             f"which TREC run files cannot hold; rename them with searchgrade.collections.trec_safe_ids")
        self.collection, self.progress = collection, progress
        self.hash = collection_hash(collection)
        self.docids = list(collection.corpus)
        self.tokens: dict[tuple, list[list[str]]] = {}
        self.dense: dict[tuple, dense.DenseIndex] = {}
        self.runs: dict[tuple[str, str], Run] = {}

    def doc_texts(self, fields: Sequence[str]) -> list[str]:
        """Document texts (fields joined by a newline), in corpus order."""
        return dense.doc_texts(self.collection.corpus, fields)

    def doc_tokens(self, tokeniser, fields: Sequence[str]) -> list[list[str]]:
        """The (memoised, disk-cached) token lists of the documents, in corpus order."""
        key = (tokeniser.name, tuple(fields))
        if key not in self.tokens:
            self.tokens[key] = tokenise(tokeniser, self.doc_texts(fields), progress=self.progress,
                                        desc=f"{tokeniser.name} documents")
        return self.tokens[key]

    def dense_index(self, encoder: dense.Encoder, fields: Sequence[str]) -> dense.DenseIndex:
        """The (memoised) dense index of this collection for an encoder."""
        key = (json.dumps(encoder.settings(), sort_keys=True), tuple(fields))
        if key not in self.dense:
            self.dense[key] = dense.DenseIndex(encoder, self.collection.corpus, fields, progress=self.progress)
        return self.dense[key]


_WORKSPACES: dict[str, Workspace] = {}


def workspace(collection: Collection, progress: bool) -> Workspace:
    """A memoised workspace per collection content (so notebooks reuse token lists and embeddings)."""
    h = collection_hash(collection)
    ws = _WORKSPACES.get(h)
    if ws is None or ws.collection.name != collection.name:
        ws = _WORKSPACES[h] = Workspace(collection, progress)
    ws.progress = progress
    return ws
