"""A trec_eval-compatible command line: ``python -m searchgrade.trec_eval [options] QRELS RUN``.

Prints what trec_eval 10.0 prints, in its format (``%-22s\\t%s\\t%.4f``; counts
as integers; ``runid`` and ``num_q`` in the summary only; ``relstring`` per
query only), for the measures of its ``official``, ``set`` and ``all_trec``
sets.  Options::

    -q            also print every query's values
    -c            average over all qrels queries (missing ones scored on an empty ranking)
    -n            no summary ("all") lines
    -M N          evaluate only the first N documents of each query (after sorting)
    -l L          relevance level for binary measures
    -J            judged documents only (condensed lists)
    -m MEASURE    a measure, a measure with parameters (P.5,10  relstring.20  rbp.p=0.95),
                  or a set name (official, set, all_trec); may be repeated

Known, documented differences from trec_eval 10.0:

* ``rbp`` on graded qrels: trec_eval's m_rbp.c rescales gains with ``min`` and
  ``max`` variables it never initialises (undefined behaviour).  searchgrade
  uses gain = grade / (largest grade in the query's qrels), Moffat & Zobel's
  graded RBP; on binary qrels the two agree.
* ``rbp_resid`` reproduces trec_eval, including its quirk of printing 0 when
  the run retrieves no unjudged document (the residual p^n of a short run is
  then dropped); the Python measure ``RBP_resid`` keeps that term.
* Preference (``-R prefs``), judgment-group and z-score modes are not supported.
"""
from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass

import numpy as np

from .io import read_qrels, read_run
from .metrics import Evaluator

__all__ = ["main", "run_trec_eval", "TREC_MEASURES"]


@dataclass(frozen=True)
class _Spec:
    """One trec_eval measure: its parameter style, default parameters and how it is printed."""

    kind: str  # "long": counts; "float"; "cut": a list of cutoffs; "string": relstring; "runid"/"num_q"
    default: tuple = ()
    per_query: bool = True
    summary: bool = True
    agg: str = "mean"  # "mean", "sum", "gmean"


_CUT = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: trec_eval 10.0's measures, in the order it prints them (measures.c).
TREC_MEASURES: dict[str, _Spec] = {
    "runid": _Spec("runid", per_query=False),
    "num_q": _Spec("num_q", per_query=False),
    "num_ret": _Spec("long", agg="sum"),
    "num_rel": _Spec("long", agg="sum"),
    "num_rel_ret": _Spec("long", agg="sum"),
    "map": _Spec("float"),
    "gm_map": _Spec("float", per_query=False, agg="gmean"),
    "Rprec": _Spec("float"),
    "bpref": _Spec("float"),
    "recip_rank": _Spec("float"),
    "iprec_at_recall": _Spec("cut", _RECALL),
    "P": _Spec("cut", _CUT),
    "relstring": _Spec("string", (10,), summary=False),
    "recall": _Spec("cut", _CUT),
    "infAP": _Spec("float"),
    "gm_bpref": _Spec("float", per_query=False, agg="gmean"),
    "Rprec_mult": _Spec("cut", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    "utility": _Spec("float"),
    "11pt_avg": _Spec("float"),
    "binG": _Spec("float"),
    "G": _Spec("float"),
    "ndcg": _Spec("float"),
    "ndcg_rel": _Spec("float"),
    "Rndcg": _Spec("float"),
    "ndcg_cut": _Spec("cut", _CUT),
    "map_cut": _Spec("cut", _CUT),
    "relative_P": _Spec("cut", _CUT),
    "success": _Spec("cut", (1, 5, 10)),
    "set_P": _Spec("float"),
    "set_relative_P": _Spec("float"),
    "set_recall": _Spec("float"),
    "set_map": _Spec("float"),
    "set_F": _Spec("float"),
    "num_nonrel_judged_ret": _Spec("long", agg="sum"),
    "rbp": _Spec("float"),
    "rbp_resid": _Spec("float"),
    "unj": _Spec("cut", (5, 10, 20)),
}

_SETS = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"],
    "all_trec": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid",
                 "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
                 "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"],
}

# searchgrade measure name for one trec_eval value name
_CUT_NAME = {
    "P": "P({rel})@{c}", "recall": "R({rel})@{c}", "ndcg_cut": "nDCG@{c}", "map_cut": "AP({rel})@{c}",
    "relative_P": "RelP({rel})@{c}", "success": "Hit({rel})@{c}", "unj": "Unj@{c}",
    "iprec_at_recall": "IPrec({rel})@{c}", "Rprec_mult": "RprecMult({rel},m={c})",
}
_FLOAT_NAME = {
    "num_ret": "NumRet", "num_rel": "NumRel({rel})", "num_rel_ret": "NumRelRet({rel})", "map": "AP({rel})",
    "gm_map": "GMAP({rel})", "Rprec": "Rprec({rel})", "bpref": "Bpref({rel})", "recip_rank": "RR({rel})",
    "infAP": "infAP({rel})", "gm_bpref": "GMBpref({rel})", "utility": "Utility({rel})",
    "11pt_avg": "11pt({rel})", "binG": "binG({rel})", "G": "G", "ndcg": "nDCG", "ndcg_rel": "nDCG_rel",
    "Rndcg": "RnDCG({rel})", "set_P": "SetP({rel})", "set_relative_P": "SetRelP({rel})",
    "set_recall": "SetR({rel})", "set_map": "SetAP({rel})", "set_F": "SetF({rel},beta={beta})",
    "num_nonrel_judged_ret": "NumNonRelJudgedRet({rel})", "rbp": "RBP(p={p})", "rbp_resid": "RBP_resid(p={p})",
}


class UsageError(ValueError):
    """A bad command line."""


def _parse_params(root: str, text: str):
    """Parameters given as ``-m root.params``: a list of cutoffs, a length, or key=value pairs."""
    spec = TREC_MEASURES[root]
    if spec.kind == "cut":
        try:
            vals = [float(v) for v in text.split(",")]
        except ValueError:
            raise UsageError(f"measure {root}: bad parameters {text!r} (expected numbers like 5,10)") from None
        if root not in ("iprec_at_recall", "Rprec_mult"):
            if any(v != int(v) or v < 1 for v in vals):
                raise UsageError(f"measure {root}: cutoffs must be positive integers, not {text!r}")
            vals = [int(v) for v in vals]
        return tuple(sorted(set(vals)))
    if root == "relstring":
        try:
            return (int(float(text)),)
        except ValueError:
            raise UsageError(f"measure relstring: bad length {text!r}") from None
    if root in ("rbp", "set_F"):
        key = "p" if root == "rbp" else "beta"
        if "=" in text:
            k, v = text.split("=", 1)
            if k != key:
                raise UsageError(f"measure {root}: unknown parameter {k!r} (allowed: {key})")
            text = v
        try:
            return ((key, float(text)),)
        except ValueError:
            raise UsageError(f"measure {root}: bad parameter {text!r}") from None
    raise UsageError(f"measure {root}: parameters are not supported by searchgrade ({text!r})")


def _expand(requested: list[str]) -> dict[str, tuple | None]:
    """Requested -m arguments -> {root: params or None}, in trec_eval's print order."""
    chosen: dict[str, tuple | None] = {}
    for arg in requested:
        if arg in _SETS:
            for root in _SETS[arg]:
                chosen.setdefault(root, None)
            continue
        root, _, params = arg.partition(".")
        if root not in TREC_MEASURES:
            known = ", ".join(list(_SETS) + list(TREC_MEASURES))
            raise UsageError(f"unknown measure {root!r}; known: {known}")
        if params:
            chosen[root] = _parse_params(root, params)
        else:
            chosen.setdefault(root, None)
    return {root: chosen[root] for root in TREC_MEASURES if root in chosen}


def _fmt_cut(root, c):
    return f"{c:.2f}" if root in ("iprec_at_recall", "Rprec_mult") else f"{int(c)}"


def _value_names(root: str, params, rel: int) -> list[tuple[str, str | None]]:
    """(printed name, searchgrade measure) pairs for one trec_eval measure."""
    spec = TREC_MEASURES[root]
    relp = f"rel={rel}"
    if spec.kind == "cut":
        cuts = params if params is not None else spec.default
        return [(f"{root}_{_fmt_cut(root, c)}", _CUT_NAME[root].format(rel=relp, c=c)) for c in cuts]
    if spec.kind in ("runid", "num_q"):
        return [(root, None)]
    if spec.kind == "string":
        n = (params or spec.default)[0]
        return [(root if params is None else f"{root}_{n}", None)]
    values = {"p": 0.9, "beta": 1.0}
    name = root
    if params:
        values.update(dict(params))
        name = f"{root}_{_fmt_param(params[0][1])}"
    text = _FLOAT_NAME[root].format(rel=relp, **values)
    return [(name, text.replace("()", "").replace("(,", "(").replace(",)", ")"))]


def _fmt_param(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(v)


def _relstring(codes: np.ndarray, n: int) -> str:
    """trec_eval's relstring: a digit per grade, '>' above 9, '-' not in the pool, '.' pooled but unjudged."""
    out = []
    for c in codes[:n]:
        if c > 9:
            out.append(">")
        elif c >= 0:
            out.append(str(int(c)))
        elif c == -1:
            out.append(".")
        else:
            out.append("-")
    return "".join(out)


def run_trec_eval(qrels_path, run_path, measures=("official",), query=False, complete=False,
                  max_docs=None, rel_level=1, judged_only=False, summary=True) -> str:
    """trec_eval's output for a qrels file and a run file, as one string."""
    qrels = read_qrels(qrels_path)
    run, runid = read_run(run_path, with_name=True)
    chosen = _expand(list(measures))
    lines: list[tuple[str, str, str]] = []  # (name, qid, formatted value), per query then summary

    pairs = {root: _value_names(root, params, rel_level) for root, params in chosen.items()}
    sg_names = [sg for p in pairs.values() for _, sg in p if sg is not None]
    sg_names = list(dict.fromkeys(sg_names))
    ev = Evaluator(qrels, sg_names or ["NumRet"], ties="trec", missing="zero" if complete else "ignore",
                   rel_level=rel_level, judged_only=judged_only, max_docs=max_docs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # trec_eval skips run queries without qrels silently
        rows = ev._rows(run)
    rows = sorted(rows)  # trec_eval's query order: strcmp
    rows_, ctx = ev.rank(run, rows)
    df = ev.evaluate_ranked(rows_, ctx)
    # rbp_resid as trec_eval prints it: 0 unless an unjudged document was retrieved
    unjudged = np.bincount(ctx.seg[~ctx.judged], minlength=ctx.n) > 0
    for root in ("rbp_resid",):
        for _, sg in pairs.get(root, []):
            df[sg] = np.where(unjudged, df[sg].to_numpy(), 0.0)
    code = np.where(ctx.nonpool, -2, np.where(ctx.judged, ctx.grade, -1))
    starts = np.concatenate(([0], np.cumsum(ctx.nret)))

    def fmt(spec, v):
        return f"{int(v)}" if spec.kind == "long" else f"{v:.4f}"

    if query:
        for i, qid in enumerate(rows_):
            for root, names in pairs.items():
                spec = TREC_MEASURES[root]
                if not spec.per_query:
                    continue
                for printed, sg in names:
                    if spec.kind == "string":
                        n = (chosen[root] or spec.default)[0]
                        value = "'" + _relstring(code[starts[i]:starts[i + 1]], n) + "'"
                    else:
                        value = fmt(spec, df[sg].iloc[i])
                    lines.append((printed, str(qid), value))
    if summary:
        nq = len(rows_)
        for root, names in pairs.items():
            spec = TREC_MEASURES[root]
            if not spec.summary:
                continue
            for printed, sg in names:
                if spec.kind == "runid":
                    value = runid
                elif spec.kind == "num_q":
                    value = str(nq)
                else:
                    x = df[sg].to_numpy(dtype=np.float64)
                    if spec.agg == "sum":
                        value = str(int(round(x.sum())))
                    elif spec.agg == "gmean":
                        value = f"{np.exp(np.log(np.maximum(x, 1e-5)).sum() / nq):.4f}" if nq else "0.0000"
                    else:
                        value = f"{x.sum() / nq:.4f}" if nq else "0.0000"
                lines.append((printed, "all", value))
    return "".join(f"{name:<22s}\t{qid}\t{value}\n" for name, qid, value in lines)


def _parse_args(argv: list[str]) -> dict:
    """getopt-style parsing: ``-q -c -n -J``, ``-M N`` / ``-MN``, ``-l L`` / ``-lL``, ``-m X`` / ``-mX``."""
    opts = {"measures": [], "query": False, "complete": False, "max_docs": None, "rel_level": 1,
            "judged_only": False, "summary": True}
    args = list(argv)
    files = []
    while args:
        a = args.pop(0)
        if a == "--":
            files.extend(args)
            break
        if not a.startswith("-") or a == "-":
            files.append(a)
            continue
        flag, rest = a[1:2], a[2:]
        if flag in "qcnJ":
            for ch in a[1:]:
                if ch not in "qcnJ":
                    raise UsageError(f"unknown option -{ch}")
                opts[{"q": "query", "c": "complete", "n": "summary", "J": "judged_only"}[ch]] = ch != "n"
            continue
        if flag in "mMl":
            if not rest:
                if not args:
                    raise UsageError(f"option -{flag} needs a value")
                rest = args.pop(0)
            if flag == "m":
                opts["measures"].append(rest)
            else:
                try:
                    val = int(rest)
                except ValueError:
                    raise UsageError(f"option -{flag} needs an integer, not {rest!r}") from None
                if val < 1:
                    raise UsageError(f"option -{flag} must be at least 1, not {val}")
                opts["max_docs" if flag == "M" else "rel_level"] = val
            continue
        raise UsageError(f"unknown option {a}")
    if len(files) != 2:
        raise UsageError("expected two files: QRELS RUN")
    opts["qrels_path"], opts["run_path"] = files
    if not opts["measures"]:
        opts["measures"] = ["official"]
    return opts


USAGE = ("usage: python -m searchgrade.trec_eval [-q] [-c] [-n] [-J] [-M N] [-l L] [-m MEASURE[.params]]... "
         "QRELS RUN")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        print(__doc__)
        return 0
    try:
        o = _parse_args(argv)
        out = run_trec_eval(o["qrels_path"], o["run_path"], o["measures"], query=o["query"],
                            complete=o["complete"], max_docs=o["max_docs"], rel_level=o["rel_level"],
                            judged_only=o["judged_only"], summary=o["summary"])
    except UsageError as err:
        print(f"trec_eval: {err}\n{USAGE}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:
        print(f"trec_eval: {err}", file=sys.stderr)
        return 1
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
