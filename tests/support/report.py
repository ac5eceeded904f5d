"""What the report tests share: a line-up, a toy encoder and a KorQuAD slice, and the runs and report built on them.

Used by tests/report/test_page.py (the page read as text) and tests/browser/test_report.py (the page in
Chromium), so both look at the same report.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from searchgrade import collections as ck
from searchgrade import report
from searchgrade.collections import Collection, collection_hash
from searchgrade.retrieval import dense
from searchgrade.retrieval import lineup as L
from searchgrade.retrieval import runs as engine
from searchgrade.retrieval import models
from searchgrade.io.runfolder import read_runs

from tests.support.lineup import lineup_toml
from tests.support.webfont import FONT_CACHE

LINEUP = lineup_toml(header="depth = 50")        # the second stage reranks the top 10 of bm25-bigram


class ToyEncoder(dense.Encoder):
    """Hashed character-bigram counts: a weak but real bag-of-bigrams encoder, no model."""

    name, batch_size = "toy-report", 64

    def settings(self):
        return {"encoder": "toy-report", "dims": 64}

    def _embed(self, texts, side):
        out = np.zeros((len(texts), 64))
        for i, t in enumerate(texts):
            for a, b in zip(t, t[1:]):
                out[i, (ord(a) * 31 + ord(b)) % 64] += 1
        return out + 0.01


"""One web-font cache for every test session (content-addressed: a new TTF or fontTools converts anew)."""


def korquad_slice(n_docs: int = 60) -> Collection:
    """The first paragraphs of KorQuAD 1.0 dev with every question whose answer paragraph is among them."""
    kq = ck.load("korquad-dev")
    docs = list(kq.corpus)[:n_docs]
    keep = {q for q, rel in kq.qrels.items() if set(rel) <= set(docs)}
    queries = {q: t for q, t in kq.queries.items() if q in keep}
    return Collection("korquad-slice", {d: kq.corpus[d] for d in docs}, queries, {q: kq.qrels[q] for q in queries},
                      {"answers": {q: kq.meta["answers"][q] for q in queries}})


def build(root: Path, n_perm: int = 2000):
    """(collection, run folder, report text): the slice's runs under LINEUP, written, read back and reported."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(dense.ENCODERS, "toy", ToyEncoder)
        mp.setenv("SEARCHGRADE_CACHE", str(root / "cache"))
        models._MODELS.clear()
        coll = korquad_slice()
        engine.make_runs(coll, L.parse_lineup(LINEUP, "report.toml"), root / "runs", progress=False)
        folder = read_runs(root / "runs", collection_hash(coll), collection_name=coll.name)
        text = report.build_report(coll, folder.runs, folder.infos, n_perm=n_perm, font_cache=FONT_CACHE)
        models._MODELS.clear()
    return coll, folder, text
