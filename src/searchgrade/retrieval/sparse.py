"""Analysers ("indexing languages") and sparse retrieval models: BM25, TF-IDF, co-ordination level.

An *analyser* turns text into index terms, ``text -> list[str]``; analysers are
registered by name in :data:`ANALYSERS` (``get_analyser(name)``), so a language
or tokeniser can be added by registering one more function. A *retriever* is
built from the analysed corpus and scores every document for an analysed
query (``get_scores``); ``top_k`` and :func:`search` turn scores into a run
``{qid: {docid: score}}`` that ``searchgrade.evaluate`` grades.

Only documents that contain at least one query term are returned by ``top_k``
and :func:`search`; the order is score descending, then corpus order, so runs
are deterministic.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from itertools import chain, repeat
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = [
    "ANALYSERS",
    "SNOWBALL_ENGLISH_STOP_WORDS",
    "register_analyser",
    "get_analyser",
    "words",
    "words_nostop",
    "stems",
    "stem_pairs",
    "SparseRetriever",
    "BM25Okapi",
    "TfIdf",
    "CoordinationLevel",
    "MODELS",
    "Index",
    "index",
    "search",
]

# ---------------------------------------------------------------------------
# Analysers

# Martin Porter's English stop word list from the Snowball project
# (snowballstem.org, algorithms/english/stop.txt; BSD licence), the list meant to
# be used with the Porter/English stemmer. The contractions of that list
# ("don't", "i'm", ...) are left out: the tokeniser below splits at apostrophes,
# so it never produces them.
SNOWBALL_ENGLISH_STOP_WORDS = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their
    theirs themselves what which who whom this that these those am is are was
    were be been being have has had having do does did doing would should
    could ought cannot a an the and but if or because as until while of at by
    for with about against between into through during before after above
    below to from up down in out on off over under again further then once
    here there when where why how all any both each few more most other some
    such no nor not only own same so than too very
    """.split()
)

_WORD = re.compile(r"[^\W_]+")

ANALYSERS: dict[str, Callable[[str], list[str]]] = {}


def register_analyser(name: str, analyser: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """Register ``analyser`` (``text -> list[str]``) under ``name``; returns it."""
    if name in ANALYSERS:
        raise ValueError(f"an analyser named {name!r} is already registered")
    ANALYSERS[name] = analyser
    return analyser


def get_analyser(name_or_callable: str | Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """The analyser registered under a name, or a Korean tokeniser (``ko-ws``, ``ko-bigram``, ``ko-kiwi``, ``ko-mecab``).

    A callable is returned unchanged. The Korean tokenisers of
    :mod:`searchgrade.retrieval.korean` are looked up only when asked for, so English
    retrieval never imports Kiwi or MeCab.
    """
    if callable(name_or_callable):
        return name_or_callable
    if name_or_callable in ANALYSERS:
        return ANALYSERS[name_or_callable]
    from . import korean

    if name_or_callable in korean.TOKENISERS:
        return korean.get_tokeniser(name_or_callable)
    raise ValueError(
        f"unknown analyser {name_or_callable!r}; known: {', '.join(sorted(ANALYSERS) + list(korean.TOKENISERS))}"
    )


def words(text: str) -> list[str]:
    """Single words: lowercased runs of letters and digits (``'Boundary-layer'`` -> boundary, layer)."""
    return _WORD.findall(text.lower())


def words_nostop(text: str) -> list[str]:
    """Single words minus the Snowball English stop list (:data:`SNOWBALL_ENGLISH_STOP_WORDS`)."""
    return [w for w in words(text) if w not in SNOWBALL_ENGLISH_STOP_WORDS]


_PORTER = None
_STEM_CACHE: dict[str, str] = {}


def _stem(word: str) -> str:
    """Porter (1980) stem of one word, via snowballstemmer's ``porter`` algorithm, memoised."""
    global _PORTER
    stem = _STEM_CACHE.get(word)
    if stem is None:
        if _PORTER is None:
            import snowballstemmer

            _PORTER = snowballstemmer.stemmer("porter")
        stem = _STEM_CACHE[word] = _PORTER.stemWord(word)
    return stem


def stems(text: str) -> list[str]:
    """Porter stems of the non-stop words (``'flows past plates'`` -> flow, past, plate)."""
    return [_stem(w) for w in words_nostop(text)]


def stem_pairs(text: str) -> list[str]:
    """Stems plus each adjacent pair of stems as one extra term ``'a_b'`` (a crude phrase language).

    Pairs are formed after stop-word removal, so ``'heat transfer in slabs'``
    gives heat, transfer, slab, heat_transfer, transfer_slab.
    """
    terms = stems(text)
    return terms + [f"{a}_{b}" for a, b in zip(terms, terms[1:])]


for _name, _fn in (("words", words), ("words_nostop", words_nostop), ("stems", stems), ("stem_pairs", stem_pairs)):
    register_analyser(_name, _fn)


# ---------------------------------------------------------------------------
# Retrievers


def _term_matrix(corpus_tokens: Sequence[Sequence[str]]) -> tuple[sp.csr_matrix, dict[str, int]]:
    """Documents x terms matrix of term frequencies, and the term -> column map (first-seen order)."""
    vocab: dict[str, int] = {}
    indptr = [0]
    indices: list[int] = []
    data: list[int] = []
    for doc in corpus_tokens:
        if isinstance(doc, str):
            raise TypeError("corpus_tokens must be a list of token lists, not of strings; analyse the text first")
        counts = Counter(doc)
        for term, tf in counts.items():
            indices.append(vocab.setdefault(term, len(vocab)))
            data.append(tf)
        indptr.append(len(indices))
    shape = (len(indptr) - 1, len(vocab))
    matrix = sp.csr_matrix(
        (np.asarray(data, dtype=np.float64), np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
        shape=shape,
    )
    return matrix, vocab


class SparseRetriever:
    """Base class: a documents x terms weight matrix ``W``; score(d, q) = sum over query terms of W[d, t] * qweight(t)."""

    def __init__(self, corpus_tokens: Sequence[Sequence[str]]):
        corpus_tokens = list(corpus_tokens)
        if not corpus_tokens:
            raise ValueError("cannot index an empty corpus (no documents)")
        self.tf, self.vocab = _term_matrix(corpus_tokens)
        if not self.vocab:
            raise ValueError(f"cannot index a corpus whose {len(corpus_tokens)} documents have no terms at all")
        self.corpus_size = self.tf.shape[0]
        self.doc_len = np.asarray(self.tf.sum(axis=1)).ravel()
        self.doc_freq = np.diff(self.tf.tocsc().indptr)
        self.presence = self.tf.copy()
        self.presence.data[:] = 1.0
        self.presence = self.presence.tocsc()
        self.weights = self._weights().tocsc()

    def _weights(self) -> sp.spmatrix:
        """The document-term weight matrix; subclasses define it."""
        raise NotImplementedError

    def _query_vector(self, query_tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(column ids, weights) of the query terms in the vocabulary; unknown terms are ignored."""
        counts = Counter(query_tokens)
        ids = [self.vocab[t] for t in counts if t in self.vocab]
        return np.asarray(ids, dtype=np.int64), np.asarray([counts[t] for t in counts if t in self.vocab], dtype=np.float64)

    def _check_query(self, query_tokens) -> None:
        """Reject a bare string (a common slip: it would be read as characters)."""
        if isinstance(query_tokens, str):
            raise TypeError("query_tokens must be a list of tokens, not a string; analyse the query first")

    def get_scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """Score of every document for the query, in corpus order (length ``corpus_size``)."""
        self._check_query(query_tokens)
        ids, qw = self._query_vector(query_tokens)
        if len(ids) == 0:
            return np.zeros(self.corpus_size)
        return np.asarray(self.weights[:, ids] @ qw).ravel()

    def matched(self, query_tokens: Sequence[str]) -> np.ndarray:
        """Number of distinct query terms each document contains (its co-ordination level)."""
        self._check_query(query_tokens)
        ids = [self.vocab[t] for t in set(query_tokens) if t in self.vocab]
        if not ids:
            return np.zeros(self.corpus_size)
        return np.asarray(self.presence[:, ids].sum(axis=1)).ravel()

    def top_k(self, query_tokens: Sequence[str], k: int, exclude: Iterable[int] = ()) -> tuple[np.ndarray, np.ndarray]:
        """Indices and scores of the k best documents that match at least one query term.

        Order: score descending, then corpus position ascending (deterministic).
        Corpus positions in ``exclude`` are never returned.
        """
        if k <= 0:
            raise ValueError(f"k must be positive, got {k}")
        scores = self.get_scores(query_tokens)
        keep = self.matched(query_tokens) > 0
        skip = np.fromiter(exclude, dtype=np.int64)
        if skip.size:
            if skip.min() < 0 or skip.max() >= self.corpus_size:
                raise IndexError(f"exclude holds positions outside 0..{self.corpus_size - 1}")
            keep[skip] = False
        candidates = np.flatnonzero(keep)
        order = np.lexsort((candidates, -scores[candidates]))[:k]
        chosen = candidates[order]
        return chosen, scores[chosen]

    def batch_top_k(self, queries_tokens: Iterable[Sequence[str]], k: int, chunk: int = 256,
                    progress: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
        """``top_k(q, k)`` for many queries at once, by sparse matrix products (same documents, order and scores).

        The query term counts Q (queries x terms) times the document weights
        W^T give every score, Q_binary x presence^T tells which documents
        share a term with the query (only those are returned, as ``top_k``
        does), and each row's k best are chosen by score descending, then
        corpus position ascending. Retrievers whose query weights are not raw
        term counts (TF-IDF, co-ordination level) fall back to ``top_k`` per
        query.
        """
        from tqdm.auto import tqdm

        if k <= 0:
            raise ValueError(f"k must be positive, got {k}")
        queries_tokens = list(queries_tokens)
        if any(isinstance(t, str) for t in queries_tokens):
            raise TypeError("queries_tokens must be token lists, not strings")
        if type(self)._query_vector is not SparseRetriever._query_vector:
            # TF-IDF, co-ordination level: query weights are not raw counts, so use their own top_k per query
            return [self.top_k(list(t), k) for t in queries_tokens]
        q = self._count_matrix(queries_tokens)
        wt = self.weights.T.tocsr()
        # With every stored weight positive (BM25 whenever no idf is exactly 0), a document shares a term with
        # the query exactly when its score is positive; otherwise the presence matrix decides.
        positive = bool(np.all(wt.data > 0))
        if not positive:
            qb = q.copy()
            qb.data[:] = 1.0
            pt = self.presence.T.tocsr()
        kk = min(k, self.corpus_size)
        out: list[tuple[np.ndarray, np.ndarray]] = []
        for start in tqdm(range(0, q.shape[0], chunk), desc="BM25 batches", disable=not progress, leave=False):
            scores = (q[start:start + chunk] @ wt).toarray()
            # neg = -score for documents that share a term with the query, and larger than any of those otherwise
            # (0 on the fast path, where matched scores are > 0; +inf in general)
            if positive:
                neg = -scores
            else:
                neg = np.where((qb[start:start + chunk] @ pt).toarray() > 0, -scores, np.inf)
            out.extend(_best_per_row(scores, neg, kk, positive))
        return out

    def _count_matrix(self, queries_tokens: list[Sequence[str]]) -> sp.csr_matrix:
        """Queries x terms matrix of query term counts (terms outside the vocabulary left out)."""
        lengths = np.fromiter((len(t) for t in queries_tokens), dtype=np.int64, count=len(queries_tokens))
        total = int(lengths.sum())
        ids = np.fromiter(map(self.vocab.get, chain.from_iterable(queries_tokens), repeat(-1, total)), dtype=np.int64,
                          count=total)
        rows = np.repeat(np.arange(len(queries_tokens), dtype=np.int64), lengths)
        known = ids >= 0
        # repeated query terms add up (coo -> csr sums duplicates): the weight of a term is its count in the query
        return sp.coo_matrix((np.ones(int(known.sum())), (rows[known], ids[known])),
                             shape=(len(queries_tokens), len(self.vocab))).tocsr()


def _best_per_row(scores: np.ndarray, neg: np.ndarray, kk: int, positive: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each row's ``kk`` best matching documents (positions, scores): score descending, then position ascending.

    ``neg`` is -score where a document matches and larger than any match (0 or +inf) where it does not;
    ``positive`` says matches are exactly the negative entries (else the finite ones).
    """
    n = scores.shape[1]
    if kk < n:
        part = np.argpartition(neg, kk - 1, axis=1)[:, :kk]
    else:
        part = np.tile(np.arange(n), (len(neg), 1))
    top = np.take_along_axis(neg, part, axis=1)
    order = np.lexsort((part, top), axis=-1)  # score descending, then position ascending
    part = np.take_along_axis(part, order, axis=1)
    top = np.take_along_axis(top, order, axis=1)
    found = np.count_nonzero(top < 0 if positive else np.isfinite(top), axis=1)
    kth = top[:, -1]
    # rows where documents tied with the k-th score were left out by argpartition: redo them exactly
    redo = (found == kk) & (np.count_nonzero(neg <= kth[:, None], axis=1) > kk)
    values = np.take_along_axis(scores, part, axis=1)
    out = [(p[:f], v[:f]) for p, v, f in zip(part, values, found.tolist())]
    for r in np.flatnonzero(redo).tolist():
        row = neg[r]
        cand = np.flatnonzero(row <= kth[r])
        chosen = cand[np.lexsort((cand, row[cand]))[:kk]]
        out[r] = (chosen, scores[r, chosen])
    return out


class BM25Okapi(SparseRetriever):
    """Okapi BM25 exactly as ``rank_bm25.BM25Okapi`` 0.2.2 computes it (Robertson & Zaragoza 2009).

    idf(t) = ln((N - n_t + 0.5) / (n_t + 0.5)); an idf below 0 is replaced by
    epsilon * (mean idf over the vocabulary). For a document d of length ``|d|``,

        score(d, q) = sum over query tokens t (repeats count) of
                      ``idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))``.
    """

    def __init__(self, corpus_tokens: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25):
        self.k1, self.b, self.epsilon = float(k1), float(b), float(epsilon)
        super().__init__(corpus_tokens)

    def _weights(self) -> sp.spmatrix:
        """``W[d, t] = idf(t) * tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))``."""
        n = self.doc_freq.astype(np.float64)
        idf = np.log(self.corpus_size - n + 0.5) - np.log(n + 0.5)
        self.average_idf = float(idf.sum() / len(idf))
        idf = np.where(idf < 0, self.epsilon * self.average_idf, idf)
        self.idf_values = idf
        self.avgdl = float(self.doc_len.sum() / self.corpus_size)
        tf = self.tf.tocoo()
        norm = self.k1 * (1.0 - self.b + self.b * self.doc_len[tf.row] / self.avgdl)
        values = idf[tf.col] * (tf.data * (self.k1 + 1.0) / (tf.data + norm))
        return sp.csr_matrix((values, (tf.row, tf.col)), shape=tf.shape)

    @property
    def idf(self) -> dict[str, float]:
        """idf per term (after the epsilon floor), like ``rank_bm25``'s ``idf`` dict."""
        return {t: float(self.idf_values[i]) for t, i in self.vocab.items()}


class TfIdf(SparseRetriever):
    """Cosine similarity of log-tf x idf vectors (SMART ``ltc.ltc``).

    w(t, x) = (1 + ln tf(t, x)) * ln(N / n_t) for tf > 0, for documents and
    queries alike; ``score(d, q) = w_d . w_q / (|w_d| |w_q|)``. A term in every
    document gets idf 0; a document or query whose vector is zero scores 0.
    """

    def _weights(self) -> sp.spmatrix:
        """L2-normalised (1 + ln tf) * idf rows."""
        self.idf_values = np.log(self.corpus_size / self.doc_freq.astype(np.float64))
        w = self.tf.tocsr(copy=True)
        w.data = (1.0 + np.log(w.data)) * self.idf_values[w.indices]
        norms = np.sqrt(np.asarray(w.multiply(w).sum(axis=1)).ravel())
        inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        return sp.diags(inv) @ w

    def _query_vector(self, query_tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Query term ids and their normalised (1 + ln qtf) * idf weights."""
        ids, counts = super()._query_vector(query_tokens)
        if len(ids) == 0:
            return ids, counts
        w = (1.0 + np.log(counts)) * self.idf_values[ids]
        norm = math.sqrt(float(w @ w))
        return ids, (w / norm if norm > 0 else w)


class CoordinationLevel(SparseRetriever):
    """Cleverdon's co-ordination level: score = number of distinct query terms the document contains.

    Retrieving every document with score >= m is a set retrieval; lowering m
    from the number of query terms to 1 trades precision for recall.
    """

    def _weights(self) -> sp.spmatrix:
        """Binary presence matrix."""
        return self.presence

    def _query_vector(self, query_tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Distinct query terms, weight 1 each."""
        ids = np.asarray(sorted({self.vocab[t] for t in query_tokens if t in self.vocab}), dtype=np.int64)
        return ids, np.ones(len(ids))

    def retrieve_at_level(self, query_tokens: Sequence[str], level: int) -> np.ndarray:
        """Corpus indices of the documents sharing at least ``level`` distinct terms with the query."""
        if level < 1:
            raise ValueError(f"co-ordination level must be at least 1, got {level}")
        return np.flatnonzero(self.get_scores(query_tokens) >= level)


MODELS: dict[str, type[SparseRetriever]] = {
    "bm25": BM25Okapi,
    "tfidf": TfIdf,
    "coordination": CoordinationLevel,
}


class Index:
    """A retriever together with its document ids and analyser, so queries can be given as text."""

    def __init__(self, docids: Sequence[str], retriever: SparseRetriever, analyser: Callable[[str], list[str]]):
        if len(docids) != retriever.corpus_size:
            raise ValueError(f"{len(docids)} document ids for a retriever over {retriever.corpus_size} documents")
        self.docids = list(docids)
        self.retriever = retriever
        self.analyser = analyser

    def search(self, queries: Mapping[str, str], k: int = 100,
               exclude: Mapping[str, Iterable[str]] | None = None) -> dict[str, dict[str, float]]:
        """Run ``{qid: text}`` through the analyser and retriever: ``{qid: {docid: score}}``, top k each."""
        return search(self.retriever, queries, self.analyser, k=k, docids=self.docids, exclude=exclude)

    def at_level(self, queries: Mapping[str, str], level: int,
                 exclude: Mapping[str, Iterable[str]] | None = None) -> dict[str, dict[str, float]]:
        """Set retrieval: every document sharing >= ``level`` distinct terms with the query, with its score.

        With the ``coordination`` model this is Cleverdon's retrieval at one
        co-ordination level; a query with fewer terms than ``level`` retrieves
        nothing (an empty ranking, kept in the run).
        """
        if level < 1:
            raise ValueError(f"co-ordination level must be at least 1, got {level}")
        run: dict[str, dict[str, float]] = {}
        for qid, text in queries.items():
            tokens = self.analyser(text)
            scores = self.retriever.get_scores(tokens)
            hits = np.flatnonzero(self.retriever.matched(tokens) >= level)
            skip = set((exclude or {}).get(qid, ()))
            order = hits[np.lexsort((hits, -scores[hits]))]
            run[qid] = {self.docids[i]: float(scores[i]) for i in order if self.docids[i] not in skip}
        return run


def index(collection, analyser: str | Callable[[str], list[str]] = "words", model: str = "bm25",
          fields: Sequence[str] = ("text",), **params) -> Index:
    """Index a collection's corpus (``fields`` joined by spaces) with an analyser and a model name."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; known: {', '.join(sorted(MODELS))}")
    analyse = get_analyser(analyser)
    corpus = collection.corpus if hasattr(collection, "corpus") else collection
    docids = list(corpus)
    tokens = [analyse(" ".join(corpus[d].get(f, "") for f in fields)) for d in docids]
    return Index(docids, MODELS[model](tokens, **params), analyse)


def search(retriever: SparseRetriever, queries: Mapping[str, str], analyser: str | Callable[[str], list[str]],
           k: int = 100, docids: Sequence[str] | None = None,
           exclude: Mapping[str, Iterable[str]] | None = None) -> dict[str, dict[str, float]]:
    """Top-k run ``{qid: {docid: score}}`` for each query text; docids default to "0", "1", ... (corpus positions).

    ``exclude`` maps a qid to document ids left out of that query's ranking
    (e.g. ``Collection.exclude``: Cranfield's source documents); an id that is
    not in the corpus is an error.
    """
    analyse = get_analyser(analyser)
    if docids is None:
        docids = [str(i) for i in range(retriever.corpus_size)]
    elif len(docids) != retriever.corpus_size:
        raise ValueError(f"{len(docids)} document ids for a retriever over {retriever.corpus_size} documents")
    position = {d: i for i, d in enumerate(docids)} if exclude else {}
    if len(position) != len(docids) and exclude:
        raise ValueError("document ids must be unique")
    run: dict[str, dict[str, float]] = {}
    for qid, text in queries.items():
        skip = []
        for d in (exclude or {}).get(qid, ()):
            if d not in position:
                raise KeyError(f"exclude[{qid!r}] names document {d!r}, which is not in the corpus")
            skip.append(position[d])
        idx, scores = retriever.top_k(analyse(text), k, exclude=skip)
        run[qid] = {docids[i]: float(s) for i, s in zip(idx, scores)}
    return run
