"""How much of a question's wording its judged paragraph already holds, and retrievers compared by that overlap.

A question written by someone looking at a paragraph tends to borrow the
paragraph's words, and a term-matching retriever such as BM25 is then at home.
This module measures that per question and compares two retrievers inside
groups of questions with similar overlap (chapter 5):

- :func:`token_overlap`: per question, the share of its distinct content
  tokens that also occur in a judged-relevant document (the best one, when
  there are several);
- :func:`overlap_buckets`: the questions grouped by intervals of that share;
- :func:`compare_by_bucket`: two retrievers' per-query scores compared inside
  each group with the paired permutation test of :mod:`searchgrade.stats`,
  Holm-adjusted over the groups.

Tokens come from a tokeniser of :mod:`searchgrade.retrieval.korean` (by name,
e.g. ``"ko-kiwi"``, whose content morphemes are what ``bm25-kiwi`` indexes)
or from any ``text -> list[str]`` callable. A document is read as its fields
joined by a newline (title and text, as the book's retrievers read it).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .. import stats
from ..io.types import QrelsLike as Qrels

__all__ = ["token_overlap", "overlap_buckets", "bucket_labels", "compare_by_bucket"]


def _tokeniser(tokeniser) -> Callable[[str], Sequence[str]]:
    """A ``text -> tokens`` callable from a tokeniser name of searchgrade.retrieval.korean or a callable."""
    if callable(tokeniser):
        return tokeniser
    from ..retrieval import korean

    return korean.get_tokeniser(tokeniser)


def _doc_text(doc: Mapping[str, str], fields: Sequence[str]) -> str:
    """The document's fields joined by a newline (missing fields skipped)."""
    return "\n".join(str(doc[f]) for f in fields if doc.get(f))


def token_overlap(queries: Mapping[str, str], corpus: Mapping[str, Mapping[str, str]], qrels: Qrels, *,
                  tokeniser="ko-kiwi", fields: Sequence[str] = ("title", "text"),
                  rel_level: int = 1) -> pd.Series:
    """Per query: |distinct query tokens found in a relevant document| / |distinct query tokens|, best relevant document.

    Queries without a relevant document (grade >= ``rel_level``) in ``qrels``
    are left out; a query with no content token at all gets NaN. A relevant
    document missing from ``corpus`` is an error. The index follows ``queries``.
    """
    tokenise = _tokeniser(tokeniser)
    doc_tokens: dict[str, frozenset[str]] = {}
    out = {}
    for qid, text in queries.items():
        relevant = [d for d, g in qrels.get(qid, {}).items() if g >= rel_level]
        if not relevant:
            continue
        q_tokens = set(tokenise(text))
        if not q_tokens:
            out[qid] = np.nan
            continue
        best = 0
        for d in relevant:
            if d not in corpus:
                raise KeyError(f"query {qid!r}: relevant document {d!r} is not in the corpus")
            if d not in doc_tokens:
                doc_tokens[d] = frozenset(tokenise(_doc_text(corpus[d], fields)))
            best = max(best, len(q_tokens & doc_tokens[d]))
        out[qid] = best / len(q_tokens)
    return pd.Series(out, dtype=float, name="overlap")


def bucket_labels(edges: Sequence[float], separate_top: bool = False) -> list[str]:
    """Labels of the buckets [e0, e1), ..., [e_{n-2}, e_{n-1}] as 'a–b' (two decimals), then 'e_{n-1}' if separate_top."""
    labels = [f"{a:.2f}–{b:.2f}" for a, b in zip(edges[:-1], edges[1:])]
    return [*labels, f"{edges[-1]:.2f}"] if separate_top else labels


def overlap_buckets(overlap: pd.Series, edges: Sequence[float] = (0.0, 0.5, 0.75, 1.0), *,
                    separate_top: bool = False) -> pd.Series:
    """Bucket label per query: half-open intervals [e_i, e_{i+1}), the last one closed; NaN overlaps dropped.

    ``edges`` must increase strictly and cover every value (values outside
    [edges[0], edges[-1]] are an error). With ``separate_top`` the values equal
    to ``edges[-1]`` (e.g. every content token found) get a bucket of their own
    after the intervals, and the last interval becomes half-open too. The result
    is an ordered categorical Series with the labels of :func:`bucket_labels`.
    """
    edges = [float(e) for e in edges]
    if len(edges) < 2 or any(b <= a for a, b in zip(edges[:-1], edges[1:])):
        raise ValueError(f"edges must be at least two strictly increasing numbers, got {edges}")
    values = overlap.dropna()
    outside = values[(values < edges[0]) | (values > edges[-1])]
    if len(outside):
        raise ValueError(f"{len(outside)} overlap value(s) outside [{edges[0]}, {edges[-1]}], "
                         f"e.g. {outside.index[0]!r} = {outside.iloc[0]}")
    labels = bucket_labels(edges, separate_top=separate_top)
    position = np.searchsorted(edges, values.to_numpy(), side="right") - 1
    position = np.minimum(position, len(labels) - 1)          # the top edge: the last interval, or its own bucket
    categories = pd.CategoricalDtype(labels, ordered=True)
    return pd.Series(pd.Categorical.from_codes(position, dtype=categories), index=values.index, name="bucket")


def compare_by_bucket(scores_a: pd.Series, scores_b: pd.Series, buckets: pd.Series, *, n_perm: int = 10_000,
                      seed=stats.DEFAULT_SEED, alpha: float = 0.05) -> pd.DataFrame:
    """One row per bucket: n, mean_a, mean_b, mean_diff = mean(a - b), permutation p_value, p_holm over the buckets.

    ``scores_a`` and ``scores_b`` are per-query scores (Series indexed by qid)
    covering every query of ``buckets``; ``significant`` is ``p_holm <= alpha``.
    An empty bucket is kept with n = 0 and NaN statistics (and takes no part in
    the correction).
    """
    missing = buckets.index.difference(scores_a.index).union(buckets.index.difference(scores_b.index))
    if len(missing):
        raise KeyError(f"{len(missing)} bucketed queries have no score in a or b, e.g. {missing[0]!r}")
    rows = []
    for label in buckets.cat.categories:
        ids = buckets.index[buckets == label]
        row = {"bucket": label, "n": len(ids), "mean_a": np.nan, "mean_b": np.nan, "mean_diff": np.nan,
               "p_value": np.nan}
        if len(ids):
            a, b = scores_a.loc[ids], scores_b.loc[ids]
            test = stats.permutation_test(a, b, n_perm=n_perm, seed=seed)
            row.update(mean_a=float(a.mean()), mean_b=float(b.mean()), mean_diff=test.mean_diff,
                       p_value=test.p_value)
        rows.append(row)
    out = pd.DataFrame(rows).set_index("bucket")
    tested = out["p_value"].notna()
    out["p_holm"] = np.nan
    out.loc[tested, "p_holm"] = stats.holm(out.loc[tested, "p_value"].to_numpy())
    out["significant"] = out["p_holm"] <= alpha
    return out
