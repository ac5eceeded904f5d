"""Benchmark BM25 search on KorQuAD: searchgrade against rank_bm25 and bm25s, with the same tokens.

Every query of KorQuAD 1.0 dev (5,774) against its 961 paragraphs, top 100,
after tokenising once with one Korean tokeniser (Kiwi by default; not timed).
Timed (median of ``--repeats`` runs, index already built):

* ``searchgrade batch``      ``retrieval.BM25Okapi.batch_top_k`` (what ``make runs`` uses)
* ``searchgrade per query``  ``retrieval.BM25Okapi.top_k`` called once per query
* ``rank_bm25``              ``rank_bm25.BM25Okapi.get_scores`` per query, then the top 100 by argsort
* ``bm25s``                  ``bm25s.BM25(method="robertson").retrieve`` (numpy backend, one thread)

Before timing, the script checks that searchgrade reproduces rank_bm25 (the
variant it claims): every score of every query equal within 1e-9 and the
same top-100 score lists. bm25s implements a different variant (Robertson's
idf floored at 0 instead of rank_bm25's epsilon rule, and no (k1 + 1)
factor); on the queries whose terms all have a positive idf the two agree up
to that factor, which is checked to float32 precision. A failed check exits
with status 1. No assertion is made about time.

    python benchmarks/bench_bm25.py [--tokeniser ko-kiwi] [--repeats 5] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

import bench_meta


def timed(fn, repeats: int) -> tuple[float, object]:
    """Median wall time of ``fn()`` over ``repeats`` calls, and its last result."""
    times = []
    result = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main(argv=None) -> int:
    """Run the comparison and print a table; exit status 1 if a correctness check fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokeniser", default="ko-kiwi", help="searchgrade.retrieval.korean tokeniser (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per library (default: %(default)s)")
    parser.add_argument("--rank-bm25-repeats", type=int, default=3, help="timed runs for the slow rank_bm25 (default: %(default)s)")
    parser.add_argument("--k", type=int, default=100, help="documents per query (default: %(default)s)")
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    args = parser.parse_args(argv)

    import bm25s
    import rank_bm25

    from searchgrade import collections as collections_ko
    from searchgrade.retrieval import korean
    from searchgrade.retrieval.dense import doc_texts
    from searchgrade.retrieval import BM25Okapi

    k1, b, eps = 1.5, 0.75, 0.25
    load_before = list(os.getloadavg())
    coll = collections_ko.load_korquad()
    tok = korean.get_tokeniser(args.tokeniser)
    t0 = time.perf_counter()
    docs = tok.batch(doc_texts(coll.corpus), desc="documents")
    queries = tok.batch(list(coll.queries.values()), desc="queries")
    tokenise_s = time.perf_counter() - t0
    n, k = len(docs), args.k
    print(f"KorQuAD 1.0 dev: {n} documents, {len(queries)} queries, tokeniser {tok.name} "
          f"({tokenise_s:.1f} s to tokenise, not timed below); top {k}")

    ours = BM25Okapi(docs, k1=k1, b=b, epsilon=eps)
    rb = rank_bm25.BM25Okapi(docs, k1=k1, b=b, epsilon=eps)
    bs = bm25s.BM25(k1=k1, b=b, method="robertson", backend="numpy")
    bs.index(docs, show_progress=False)

    # ---- correctness: searchgrade = rank_bm25
    failures = []
    worst = 0.0
    rb_scores = []
    for qi, q in enumerate(queries):
        mine, theirs = ours.get_scores(q), np.asarray(rb.get_scores(q))
        rb_scores.append(theirs)
        diff = float(np.max(np.abs(mine - theirs)))
        worst = max(worst, diff)
        if diff > 1e-9:
            failures.append(f"query {qi}: scores differ by {diff:.3g}")
    print(f"check searchgrade vs rank_bm25: max |score difference| over {len(queries)} x {n} scores = {worst:.2e}")
    batch = ours.batch_top_k(queries, k)
    for qi, ((idx, scores), theirs) in enumerate(zip(batch, rb_scores)):
        expected = np.sort(theirs)[::-1][:len(idx)]
        if not np.allclose(scores, expected, rtol=0, atol=1e-9):
            failures.append(f"query {qi}: top-{k} score list differs from rank_bm25's")
        single_idx, _ = ours.top_k(queries[qi], k)
        if len(single_idx) != len(idx):
            failures.append(f"query {qi}: batch_top_k returned {len(idx)} documents, top_k {len(single_idx)}")
    print(f"check top-{k} lists (batch = per query = rank_bm25 up to ties): "
          f"{'ok' if not failures else f'{len(failures)} problems'}")

    # ---- bm25s: the Robertson variant agrees up to the (k1 + 1) factor where every raw idf is positive
    # (document frequency below N/2: there rank_bm25's epsilon rule and bm25s's floor at 0 do not apply)
    positive = [qi for qi, q in enumerate(queries)
                if q and all(2 * ours.doc_freq[ours.vocab[t]] < n for t in q if t in ours.vocab)
                and len(set(q)) == len(q)]
    rel = 0.0
    for qi in positive:
        theirs = np.asarray(bs.get_scores(queries[qi]), dtype=np.float64) * (k1 + 1)
        mine = ours.get_scores(queries[qi])
        rel = max(rel, float(np.max(np.abs(mine - theirs) / np.maximum(np.abs(mine), 1.0))))
    bm25s_ok = rel < 1e-5
    if not bm25s_ok:
        failures.append(f"bm25s robertson x (k1+1) differs from searchgrade by {rel:.3g} (relative)")
    print(f"check bm25s (robertson) x (k1+1) = searchgrade on the {len(positive)} queries without repeated terms "
          f"whose terms are each in fewer than half the documents: max relative difference {rel:.1e} "
          f"({'ok' if bm25s_ok else 'FAILED'})")
    bs_docs, _ = bs.retrieve([q if q else [""] for q in queries], k=k, show_progress=False, n_threads=1)
    overlap = statistics.fmean(
        len(set(bs_docs[i][:10].tolist()) & set(batch[i][0][:10].tolist())) / min(10, len(batch[i][0]))
        for i in range(len(queries)) if len(batch[i][0]))
    print(f"bm25s vs searchgrade top-10 overlap (different idf variants): {overlap:.3f}")

    # ---- timing
    rows = []

    def rank_bm25_search():
        return [np.argsort(-np.asarray(rb.get_scores(q)), kind="stable")[:k] for q in queries]

    candidates = [
        ("searchgrade batch", lambda: ours.batch_top_k(queries, k), args.repeats),
        ("searchgrade per query", lambda: [ours.top_k(q, k) for q in queries], args.repeats),
        ("rank_bm25", rank_bm25_search, args.rank_bm25_repeats),
        ("bm25s", lambda: bs.retrieve([q if q else [""] for q in queries], k=k, show_progress=False, n_threads=1),
         args.repeats),
    ]
    for name, fn, repeats in candidates:
        seconds, _ = timed(fn, repeats)
        rows.append({"library": name, "median_s": seconds, "repeats": repeats})
    base = rows[0]["median_s"]
    rb_s = next(r["median_s"] for r in rows if r["library"] == "rank_bm25")
    print(f"\n{'library':24s} {'median s':>10s} {'ms/query':>9s} {'x slower than batch':>20s} {'rank_bm25 / this':>17s}")
    for r in rows:
        r["ratio_to_batch"] = r["median_s"] / base
        r["rank_bm25_speedup"] = rb_s / r["median_s"]
        print(f"{r['library']:24s} {r['median_s']:10.3f} {1000 * r['median_s'] / len(queries):9.3f} "
              f"{r['ratio_to_batch']:20.1f} {r['rank_bm25_speedup']:17.1f}")
    print(f"\nsearchgrade batch is {rb_s / base:.0f}x faster than rank_bm25 with equal scores "
          f"(goal: at least 50x); bm25s (another variant) takes {rows[3]['median_s'] / base:.2f}x the batch time.")
    from importlib.metadata import version

    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"collection": "korquad-dev", "documents": n, "queries": len(queries), "k": k,
                       "tokeniser": tok.name, "rows": rows, "checks_failed": failures,
                       "max_abs_score_diff_vs_rank_bm25": worst, "bm25s_max_relative_diff": rel,
                       "date": time.strftime("%Y-%m-%d"), "load_average_before": load_before,
                       "load_average_after": list(os.getloadavg()),
                       "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
                       "versions": {"rank-bm25": version("rank-bm25"), "bm25s": version("bm25s"),
                                    "numpy": np.__version__, "python": platform.python_version()},
                       "meta": bench_meta.meta(load_before=load_before, measured=[
                           "every time in rows (median of the repeats)", "the score differences"])}, fh, indent=1)
    if failures:
        print("FAILED checks:", *failures[:10], sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
