"""Tables and diagnostics for comparing a line-up of retrievers (chapter 5, reused by later chapters).

Runs are ``{qid: {docid: score}}`` and qrels ``{qid: {docid: grade}}`` as
everywhere in :mod:`searchgrade`; a line-up is ``{retriever: run}`` (for
example :func:`searchgrade.book.runs.get_runs`). Wherever a rank is needed a list
is ordered as trec_eval orders it: score descending, ties by document id
descending. A document counts as relevant when its grade is at least
``rel_level`` (default 1), as in :func:`searchgrade.evaluate`.

- :func:`main_table`: retrievers x measures (means over the qrels' queries,
  an empty ranking scoring 0), in the line-up's order;
- :func:`precision_ceiling`: the best possible P@k, mean of min(1, R_q / k);
- :func:`score_distribution`: queries at exactly 0 and exactly 1, histogram;
- :func:`rank_flips`: pairs of retrievers whose order changes between two measures;
- :func:`candidate_ceiling`: Recall@depth of a first stage and the queries with
  nothing relevant among its candidates (what no second stage can repair);
- :func:`tie_statistics`: how many ranked positions share their score;
- :func:`context_dependent`: questions that open by pointing at something
  they do not name (they need the paragraph they were written on);
- :func:`crosscheck_pytrec_eval`: the same table computed by pytrec_eval,
  as the largest absolute per-query difference.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .. import _registry, metrics
from ..io import trec_order

__all__ = [
    "main_table",
    "precision_ceiling",
    "Ceiling",
    "score_distribution",
    "Distribution",
    "rank_flips",
    "candidate_ceiling",
    "CandidateCeiling",
    "tie_statistics",
    "context_dependent",
    "CONTEXT_WORDS",
    "PYTREC_EVAL_NAMES",
    "pytrec_eval_per_query",
    "crosscheck_pytrec_eval",
]

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]


# ---------------------------------------------------------------------------
# input checks


def _check_qrels(qrels) -> None:
    """Refuse qrels that are not a non-empty {qid: {docid: grade}} mapping."""
    if not isinstance(qrels, Mapping) or not qrels:
        raise ValueError("qrels must be a non-empty mapping {qid: {docid: grade}}")
    for q, docs in qrels.items():
        if not isinstance(docs, Mapping):
            raise ValueError(f"qrels[{q!r}] must be a mapping {{docid: grade}}, not {type(docs).__name__}")


def _check_run(name: str, run, qrels=None) -> None:
    """Refuse a run that is not a non-empty {qid: {docid: score}} mapping, or names queries absent from qrels."""
    if not isinstance(run, Mapping):
        raise ValueError(f"run {name!r} must be a mapping {{qid: {{docid: score}}}}, not {type(run).__name__}")
    if not any(run.values()):
        raise ValueError(f"run {name!r} is empty: it ranks no document for any query")
    for q, docs in run.items():
        if not isinstance(docs, Mapping):
            raise ValueError(f"run {name!r}, query {q!r}: expected {{docid: score}}, got {type(docs).__name__}")
    if qrels is not None:
        unknown = [q for q in run if q not in qrels]
        if unknown:
            raise ValueError(f"run {name!r} has {len(unknown)} queries that are not in the qrels "
                             f"(e.g. {sorted(map(str, unknown))[:3]}); mismatched collection?")


def _check_runs(runs, qrels=None) -> None:
    """Refuse an empty line-up or any bad run in it."""
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError("runs must be a non-empty mapping {retriever: run}")
    for name, run in runs.items():
        _check_run(str(name), run, qrels)


def _positive_int(value, name: str) -> int:
    """``value`` as a positive int, or a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


# ---------------------------------------------------------------------------
# the main table


def main_table(qrels: Qrels, runs: Mapping[str, Run], measures: Sequence[str], *, missing: str = "zero",
               ties: str = "trec", rel_level: int = 1) -> pd.DataFrame:
    """Mean of each measure for each retriever: rows in the line-up's order, one column per measure (as named).

    Means run over every query of ``qrels``; with ``missing="zero"`` (the
    default) a query a retriever returned nothing for scores 0, so every row
    has the same denominator.
    """
    _check_qrels(qrels)
    _check_runs(runs, qrels)
    measures = list(measures)
    if not measures:
        raise ValueError("measures must name at least one measure")
    rows = {}
    for name, run in runs.items():
        df = metrics.evaluate(qrels, run, measures, missing=missing, ties=ties, rel_level=rel_level)
        rows[name] = metrics.aggregate(df)[measures]
    table = pd.DataFrame(rows).T
    table.index.name = "retriever"
    return table


# ---------------------------------------------------------------------------
# ceilings and distributions


@dataclass
class Ceiling:
    """The best possible P@k over a query set: ``value`` = mean of min(1, R_q / k); ``relevant`` = R_q per query."""

    k: int
    value: float
    relevant: pd.Series

    def counts(self) -> pd.Series:
        """How many queries have 1, 2, ... relevant documents."""
        return self.relevant.value_counts().sort_index().rename("queries")


def precision_ceiling(qrels: Qrels, k: int, rel_level: int = 1) -> Ceiling:
    """Best possible P@k: (1/|Q|) * sum_q min(1, R_q / k), R_q = documents with grade >= rel_level.

    A perfect ranking puts all R_q relevant documents first, so its P@k is
    R_q / k when R_q < k and 1 otherwise. Queries with no relevant document
    are counted (with 0), as a mean of P@k over the same queries would.
    """
    _check_qrels(qrels)
    k = _positive_int(k, "k")
    rel = pd.Series({q: sum(1 for g in docs.values() if g >= rel_level) for q, docs in qrels.items()},
                    name="relevant", dtype=int)
    rel.index.name = "qid"
    return Ceiling(k, float(np.minimum(1.0, rel / k).mean()), rel)


@dataclass
class Distribution:
    """Per-query score distribution: ``summary`` (one row per measure) and ``histogram`` (bins x measures)."""

    summary: pd.DataFrame
    histogram: pd.DataFrame


def score_distribution(per_query, bins: int = 10) -> Distribution:
    """Counts of queries at exactly 0 and exactly 1, the mean, and a histogram on [0, 1] in ``bins`` equal bins.

    ``per_query``: a DataFrame (queries x measures, e.g. from
    :func:`searchgrade.evaluate`) or a Series. Bins are [0, 1/b), ...,
    [(b-1)/b, 1]: the last bin is closed, so a perfect query falls in it.
    Values outside [0, 1] or missing are refused (they are not scores of a
    bounded measure).
    """
    if isinstance(per_query, pd.Series):
        per_query = per_query.to_frame(per_query.name if per_query.name is not None else "score")
    if not isinstance(per_query, pd.DataFrame):
        raise TypeError(f"per_query must be a DataFrame or Series of per-query scores, not {type(per_query).__name__}")
    if per_query.empty:
        raise ValueError("per_query has no queries")
    bins = _positive_int(bins, "bins")
    edges = np.linspace(0.0, 1.0, bins + 1)
    labels = [f"[{lo:.2f}, {hi:.2f}{']' if i == bins - 1 else ')'}" for i, (lo, hi) in enumerate(zip(edges, edges[1:]))]
    summary, hist = {}, {}
    for col in per_query.columns:
        v = pd.to_numeric(per_query[col], errors="coerce").to_numpy(dtype=float)
        if np.isnan(v).any():
            raise ValueError(f"column {col!r}: {int(np.isnan(v).sum())} missing or non-numeric scores")
        if (v < 0).any() or (v > 1).any():
            raise ValueError(f"column {col!r}: scores outside [0, 1] (min {v.min():g}, max {v.max():g})")
        counts, _ = np.histogram(v, bins=edges)
        hist[col] = counts
        n = v.size
        summary[col] = {"queries": n, "mean": float(v.mean()), "median": float(np.median(v)),
                        "zero": int((v == 0).sum()), "one": int((v == 1).sum()),
                        "zero_share": float((v == 0).mean()), "one_share": float((v == 1).mean()),
                        "between": int(((v > 0) & (v < 1)).sum())}
    summary_df = pd.DataFrame(summary).T
    for c in ("queries", "zero", "one", "between"):
        summary_df[c] = summary_df[c].astype(int)
    hist_df = pd.DataFrame(hist, index=pd.Index(labels, name="bin"))
    return Distribution(summary_df, hist_df)


# ---------------------------------------------------------------------------
# rank flips


def rank_flips(table: pd.DataFrame, measures: Sequence[str] | None = None, tol: float = 1e-12) -> pd.DataFrame:
    """Retriever pairs ordered one way by measure a and the other way by measure b (both differences beyond ``tol``).

    ``table``: retrievers x measures (:func:`main_table`). One row per flip
    and pair of measures (a before b in ``measures``): ``ahead_on_a`` is the
    retriever with the higher mean on a, ``ahead_on_b`` the other one (higher
    on b), ``diff_a`` and ``diff_b`` the two positive margins. Differences of
    at most ``tol`` are ties, never flips.
    """
    if not isinstance(table, pd.DataFrame) or table.shape[0] < 2:
        raise ValueError("table must be a DataFrame with at least two retrievers (rows)")
    measures = list(table.columns if measures is None else measures)
    missing = [m for m in measures if m not in table.columns]
    if missing:
        raise ValueError(f"measures not in the table: {missing}; it has {list(table.columns)}")
    if len(measures) < 2:
        raise ValueError("rank_flips needs at least two measures")
    if tol < 0:
        raise ValueError(f"tol must be non-negative, got {tol}")
    rows = []
    names = list(table.index)
    for a, b in itertools.combinations(measures, 2):
        for x, y in itertools.combinations(names, 2):
            da = float(table.at[x, a] - table.at[y, a])
            db = float(table.at[x, b] - table.at[y, b])
            if abs(da) > tol and abs(db) > tol and np.sign(da) != np.sign(db):
                first, second = (x, y) if da > 0 else (y, x)
                rows.append({"measure_a": a, "measure_b": b, "ahead_on_a": first, "ahead_on_b": second,
                             "diff_a": abs(da), "diff_b": abs(db)})
    return pd.DataFrame(rows, columns=["measure_a", "measure_b", "ahead_on_a", "ahead_on_b", "diff_a", "diff_b"])


# ---------------------------------------------------------------------------
# second stage


@dataclass
class CandidateCeiling:
    """Recall of a candidate list: ``recall`` = mean Recall@depth, ``per_query``, ``empty`` = queries with none relevant."""

    depth: int
    recall: float
    per_query: pd.Series
    empty: list[str]

    @property
    def empty_share(self) -> float:
        """Share of queries with nothing relevant among the candidates."""
        return len(self.empty) / len(self.per_query)


def candidate_ceiling(first_stage: Run, qrels: Qrels, depth: int, rel_level: int = 1) -> CandidateCeiling:
    """Recall@depth of a first stage over every qrels query (no result = 0) and the queries it gives nothing relevant.

    Recall@depth = |relevant in the top depth| / R_q. A second stage that
    reorders these ``depth`` candidates keeps this value; a query with none
    relevant among them scores 0 on every measure whatever the reordering.
    Queries without any relevant document are refused (their recall is undefined).
    """
    _check_qrels(qrels)
    _check_run("first_stage", first_stage, qrels)
    depth = _positive_int(depth, "depth")
    norel = [q for q, docs in qrels.items() if not any(g >= rel_level for g in docs.values())]
    if norel:
        raise ValueError(f"{len(norel)} queries have no relevant document (e.g. {sorted(map(str, norel))[:3]}); "
                         "recall is undefined for them")
    name = f"R@{depth}"
    per_query = metrics.evaluate(qrels, first_stage, [name], missing="zero", rel_level=rel_level)[name]
    empty = [str(q) for q in per_query.index[per_query == 0]]
    return CandidateCeiling(depth, float(per_query.mean()), per_query.rename(name), empty)


# ---------------------------------------------------------------------------
# ties


def tie_statistics(run: Run) -> dict:
    """How tied a run is: ranked positions sharing their score with another document of the same query, and more.

    Returns ``queries`` (with at least one document), ``positions`` (ranked
    entries), ``tied_positions`` and ``tied_share`` (= tied / positions),
    ``queries_with_ties``, ``top_tied`` (queries whose first place is shared,
    so the tie-break decides what ranks first) and ``largest_group`` (the most
    documents sharing one score in one list). Scores are compared exactly, as
    trec_eval does.
    """
    _check_run("run", run)
    positions = tied = with_ties = largest = queries = top = 0
    for docs in run.values():
        if not docs:
            continue
        queries += 1
        scores = np.fromiter((float(s) for s in docs.values()), dtype=float, count=len(docs))
        values, counts = np.unique(scores, return_counts=True)
        top += int(counts[-1] > 1)
        positions += len(docs)
        t = int(counts[counts > 1].sum())
        tied += t
        with_ties += t > 0
        largest = max(largest, int(counts.max()))
    return {"queries": queries, "positions": positions, "tied_positions": tied,
            "tied_share": tied / positions, "queries_with_ties": with_ties, "top_tied": top, "largest_group": largest}


# ---------------------------------------------------------------------------
# questions that need their paragraph

#: Eojeols that, opening a question, point at something the question does not name.
CONTEXT_WORDS = {
    "determiners": ("이", "그", "저", "해당", "위의", "상기", "이러한", "그러한", "이런", "그런"),
    "pronouns": ("그", "그녀", "그들", "이들", "이곳", "그곳", "저곳", "이것", "그것", "저것", "이때", "그때"),
}
_PARTICLES = ("가", "는", "은", "이", "의", "를", "을", "에게", "에서", "와", "과", "도", "로", "으로", "에", "만")


def _alternation(words) -> str:
    """A regex alternation of the words, longest first (so 그녀 is tried before 그)."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_OPENING = re.compile(
    rf"(?:{_alternation(CONTEXT_WORDS['determiners'])})(?=\s)"
    rf"|(?:{_alternation(CONTEXT_WORDS['pronouns'])})(?:{_alternation(_PARTICLES)})?(?=[\s?,.!]|$)"
)


def context_dependent(questions: Mapping[str, str], anywhere: bool = False) -> dict[str, str]:
    """Questions that cannot be understood without their paragraph: {qid: the eojeol that points outside}.

    Rule: the question *opens* with (a) a demonstrative or determiner standing
    alone before a noun -- 이, 그, 저, 해당, 위의, 상기, 이러한, 그러한, 이런,
    그런 ("이 경기에서 ...", "해당 국회의원들이 ...") -- or (b) a pronoun,
    bare or with one particle -- 그, 그녀, 그들, 이들, 이곳, 그곳, 저곳, 이것,
    그것, 저것, 이때, 그때 ("그는 ...", "그의 ...", "이것은 ..."). Whatever such
    an opening points at can only be in the paragraph the question was
    written on. With ``anywhere=True`` the same words count at any eojeol
    boundary, which also catches references resolved inside the question
    ("김영삼의 ... 그의 ...") and so over-counts.

    Limits: a question with no pointing word that still omits its subject
    ("이름은?" about an unnamed person) is missed; the surname 이 before a
    title ("이 대통령은") matches although it names a person (in KorQuAD it
    still leaves open which Lee); 이들 also ends relative phrases ("...한 이들은");
    with ``anywhere=True`` the verb form 그은 ("drew") reads as 그 + 은.
    """
    if not isinstance(questions, Mapping):
        raise TypeError(f"questions must be a mapping {{qid: text}}, not {type(questions).__name__}")
    out: dict[str, str] = {}
    for qid, text in questions.items():
        if not isinstance(text, str):
            raise TypeError(f"question {qid!r}: text must be a string, not {type(text).__name__}")
        words = text.split()
        starts = range(len(words)) if anywhere else range(min(1, len(words)))
        for i in starts:
            rest = " ".join(words[i:])
            m = _OPENING.match(rest)
            if m:
                out[qid] = words[i]
                break
    return out


# ---------------------------------------------------------------------------
# cross-check with pytrec_eval

#: Families crosschecked against pytrec_eval here (its names come from the registry, searchgrade._registry).
_CROSSCHECKED = ("P", "R", "Hit", "nDCG", "AP", "RR")


def _pytrec_templates() -> tuple[dict, dict]:
    """(family -> pytrec_eval name with a cutoff, e.g. "P_{k}"; family -> its name without one, e.g. "map")."""
    cut, uncut = {}, {}
    for fam in _CROSSCHECKED:
        for spec in _registry.FAMILIES[fam].trec:
            if spec.pytrec_eval and spec.style == "cut":
                cut[fam] = spec.root + "_{k}"
            elif spec.pytrec_eval and spec.style in ("plain", "pairs"):
                uncut[fam] = spec.root
    return cut, uncut


#: searchgrade family -> pytrec_eval measure ("RR@k" is recip_rank on the run cut to depth k), from the registry.
PYTREC_EVAL_NAMES, _UNCUT = _pytrec_templates()
PYTREC_EVAL_NAMES["RR"] = _UNCUT["RR"]


def _pytrec_name(measure: str) -> tuple[str, int | None]:
    """(pytrec_eval measure, depth to cut the run to or None) for a searchgrade measure name."""
    m = metrics.parse_measure(measure)
    fam = _registry.FAMILIES[m.family]
    if "(" in m.canonical:
        raise ValueError(f"measure {measure!r}: parameters have no pytrec_eval counterpart here")
    if m.family == "RR" and m.cutoff is not None:  # pytrec_eval has no RR@k: recip_rank of the cut run
        return fam.pytrec_eval_name(replace(m, cutoff=None)), m.cutoff
    if m.family in _CROSSCHECKED:
        return fam.pytrec_eval_name(m), None
    raise ValueError(f"measure {measure!r} has no pytrec_eval counterpart in crosscheck_pytrec_eval; "
                     f"supported: P@k, R@k, Hit@k, nDCG@k, nDCG, AP@k, AP, RR, RR@k")


def pytrec_eval_per_query(qrels: Qrels, run: Run, measures: Sequence[str]) -> pd.DataFrame:
    """Per-query scores computed by pytrec_eval (queries x measures, searchgrade names); absent queries score 0.

    Every qrels query gets a row: pytrec_eval reports only queries the run
    ranks documents for, so the others are filled with 0 (trec_eval -c).
    ``RR@k`` is pytrec_eval's recip_rank on the run cut to its top k in
    trec_eval order (score descending, docid descending).
    """
    import pytrec_eval

    _check_qrels(qrels)
    _check_run("run", run, qrels)
    plan: dict[int | None, list[tuple[str, str]]] = {}
    for m in measures:
        name, cut = _pytrec_name(m)
        plan.setdefault(cut, []).append((m, name))
    pq = {str(q): {str(d): int(g) for d, g in docs.items()} for q, docs in qrels.items()}
    out = pd.DataFrame(0.0, index=pd.Index([str(q) for q in qrels], name="qid"), columns=list(measures))
    for cut, pairs in plan.items():
        prun = {}
        for q, docs in run.items():
            if not docs:
                continue
            ranked = trec_order(docs, cut)
            prun[str(q)] = {str(d): float(docs[d]) for d in ranked}
        ev = pytrec_eval.RelevanceEvaluator(pq, {name for _, name in pairs})
        res = ev.evaluate(prun)
        for m, name in pairs:
            col = pd.Series({q: v[name] for q, v in res.items()}, dtype=float)
            out.loc[col.index, m] = col.to_numpy()
    return out


def crosscheck_pytrec_eval(qrels: Qrels, runs: Mapping[str, Run], measures: Sequence[str], *,
                           return_tables: bool = False):
    """Largest |searchgrade - pytrec_eval| over queries, per retriever x measure (ties="trec", missing="zero").

    With ``return_tables=True`` returns (differences, searchgrade's main
    table, pytrec_eval's main table), the tables being means over all qrels queries.
    """
    _check_qrels(qrels)
    _check_runs(runs, qrels)
    measures = list(measures)
    diffs, ours_t, theirs_t = {}, {}, {}
    for name, run in runs.items():
        ours = metrics.evaluate(qrels, run, measures, missing="zero", ties="trec")
        theirs = pytrec_eval_per_query(qrels, run, measures).reindex(ours.index.astype(str))
        ours.index = ours.index.astype(str)
        diffs[name] = (ours[measures] - theirs[measures]).abs().max()
        ours_t[name], theirs_t[name] = ours[measures].mean(), theirs[measures].mean()
    table = pd.DataFrame(diffs).T
    table.index.name = "retriever"
    if not return_tables:
        return table
    return table, pd.DataFrame(ours_t).T.rename_axis("retriever"), pd.DataFrame(theirs_t).T.rename_axis("retriever")
