"""Tables and diagnostics for comparing a line-up of retrievers (chapter 5, reused by later chapters).

Runs are ``{qid: {docid: score}}`` and qrels ``{qid: {docid: grade}}`` as
everywhere in :mod:`searchgrade`; a line-up is ``{retriever: run}`` (for
example :func:`searchgrade.book.korean_runs.get_runs`). Wherever a rank is needed a list
is ordered as trec_eval orders it: score descending, ties by document id
descending. A document counts as relevant when its grade is at least
``rel_level`` (default 1), as in :func:`searchgrade.evaluate`.

- :func:`main_table`: retrievers x measures (:func:`searchgrade.mean`'s means: a
  query without results left out, or scoring 0 with ``missing="zero"``, as
  chapter 5 asks), in the line-up's order;
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

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from .. import metrics
from ..measures import registry
from ..io import trec_order
from ..report.analyses import (  # noqa: F401  (re-exported: the report's analyses, used by the chapters)
    CandidateCeiling,
    Ceiling,
    Distribution,
    Qrels,
    Run,
    candidate_ceiling,
    check_qrels,
    check_run,
    check_runs,
    main_table,
    precision_ceiling,
    rank_flips,
    score_distribution,
)

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
    check_run("run", run)
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

#: Families crosschecked against pytrec_eval here (its names come from the registry, searchgrade.measures.registry).
_CROSSCHECKED = ("P", "R", "Hit", "nDCG", "AP", "RR")


def _pytrec_templates() -> tuple[dict, dict]:
    """(family -> pytrec_eval name with a cutoff, e.g. "P_{k}"; family -> its name without one, e.g. "map")."""
    cut, uncut = {}, {}
    for fam in _CROSSCHECKED:
        for spec in registry.FAMILIES[fam].trec:
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
    fam = registry.FAMILIES[m.family]
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

    check_qrels(qrels)
    check_run("run", run, qrels)
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
    check_qrels(qrels)
    check_runs(runs, qrels)
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
