"""searchgrade against expected values transcribed from its peers' own test suites (../shared/peer_tests).

ranx.json, pytrec_eval.json, trectools.json and sklearn.json hold each peer test's inputs and stated
expected values (see the folder's LICENSE for sources and licences).  Every value must equal
searchgrade's, to the peer test's own tolerance, with the options the case names (its JSON "options":
ties='input' for ranx's unsorted arrays, ties='expected' for scikit-learn's tie-averaged DCG, ...).
A case whose peer follows another convention carries a "convention" with the value searchgrade's
documented convention gives (`expected_searchgrade`): the test asserts that value, that the peer's
differs from it, and shows the convention's id in the test id.
ir_measures/ holds only input files (its C/W/L and compatibility fixtures, no expected values), so
searchgrade is compared there with ir_measures (pytrec_eval's and cwl_eval's code) on those inputs.
"""
from __future__ import annotations

import functools
import json
import warnings
from pathlib import Path

import pytest

import searchgrade as sg
from searchgrade.fusion import normalize

PEERS = Path(__file__).resolve().parents[1].parent / "shared" / "peer_tests"
FILES = ("ranx.json", "pytrec_eval.json", "trectools.json", "sklearn.json")


def _missing() -> str | None:
    """Why the peer folder cannot be read, or None."""
    absent = [name for name in FILES if not (PEERS / name).is_file()]
    return f"peer test values not found: {PEERS} lacks {', '.join(absent)} (../shared/peer_tests)" if absent else None


def _cases() -> list:
    """One pytest.param per transcribed case, its id the case's (plus its convention's id, if any)."""
    if _missing():
        return [pytest.param(None, id="peer_tests-missing")]
    params = []
    for name in FILES:
        for case in json.loads((PEERS / name).read_text(encoding="utf-8"))["cases"]:
            convention = case.get("convention")
            suffix = f"[convention={convention['id']}]" if convention else ""
            params.append(pytest.param(case, id=case["id"] + suffix))
    return params


def _require(case) -> dict:
    """The case, or a clear failure when ../shared/peer_tests is missing."""
    if case is None:
        pytest.fail(_missing())
    return case


@functools.lru_cache(maxsize=None)
def _read(qrels_file: str, run_file: str):
    """The qrels and run of a case stored as files (read once per pair)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sg.InputWarning)  # r4.run's two run ids
        return sg.read_qrels(PEERS / qrels_file), sg.read_run(PEERS / run_file)


def _inputs(case):
    """(qrels, run) of a measure case, inline or from its files."""
    if "qrels_file" in case:
        return _read(case["qrels_file"], case["run_file"])
    return case["qrels"], case["run"]


def _close(got: float, want: float, case) -> bool:
    """Within the case's tolerance: abs tol, or rtol relative to the expected value (pytest.approx's rule)."""
    return abs(got - want) <= max(case["tol"], case.get("rtol", 0.0) * abs(want))


def _ours(case) -> dict:
    """searchgrade's values for the keys the case states: {'mean': v} or {qid: v}."""
    qrels, run = _inputs(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # qrels-only queries, as the peers ignore them
        frame = sg.evaluate(qrels, run, [case["measure"]], **case["options"])
    if "mean" in case["expected"]:
        return {"mean": float(sg.aggregate(frame).iloc[0])}
    return {q: float(frame.iloc[:, 0][q]) for q in case["expected"]["per_query"]}


def _stated(case) -> dict:
    """The peer's expected values in the shape _ours returns."""
    expected = case["expected"]
    return {"mean": expected["mean"]} if "mean" in expected else dict(expected["per_query"])


def _ranx_name(case) -> str:
    """The ranx function a fusion or normalisation case tests, by its id (ranx/fusion/comb_sum: comb_sum).

    searchgrade.fusion uses ranx's names (CombSUM is ``sum``, its min-max normalisation ``min_max``), so the
    case runs what its id names; the case's own "method" field names an older line-up function."""
    return case["id"].rsplit("/", 1)[1].removeprefix("comb_")


def _fused(case) -> dict:
    """searchgrade.fuse with the method the case's id names, its runs as given (no normalisation, no depth)."""
    kwargs = dict(case["kwargs"])
    assert kwargs.pop("normalisation", None) is None and kwargs.pop("depth") is None, case["kwargs"]
    return sg.fuse(case["runs"], _ranx_name(case), None, kwargs or None)


@pytest.mark.parametrize("case", _cases())
def test_peer_value(case):
    """The peer's value, or the value of searchgrade's documented convention where the case names one."""
    case = _require(case)
    if case["kind"] == "fusion":
        fused = _fused(case)
        got = {(q, d): fused[q][d] for q, docs in case["expected"].items() for d in docs}
        want = {(q, d): v for q, docs in case["expected"].items() for d, v in docs.items()}
        assert set(fused) == set(case["expected"]) and all(set(fused[q]) == set(case["expected"][q]) for q in fused)
    elif case["kind"] == "normalise":
        got = {(q, d): v for q, docs in normalize(case["run"], _ranx_name(case)).items() for d, v in docs.items()}
        want = {(q, d): v for q, docs in case["expected"].items() for d, v in docs.items()}
    else:
        got, want = _ours(case), _stated(case)
        convention = case.get("convention")
        if convention:
            peer = want
            want = {key: convention["expected_searchgrade"] for key in peer}
            assert not all(_close(got[k], v, case) for k, v in peer.items()), (
                f"{case['id']}: searchgrade now gives the peer's value {peer}; convention "
                f"{convention['id']!r} no longer applies")
    bad = {k: (got[k], v) for k, v in want.items() if not _close(got[k], v, case)}
    where = f" (convention {case['convention']['id']}: {case['convention']['text']})" if "convention" in case else ""
    assert not bad, f"{case['id']}{where}: (searchgrade, expected) {bad}"


def _pytrec_cases() -> list:
    """The pytrec_eval.json cases read from trec_eval's test files (trec_eval 9's 'all' lines)."""
    if _missing():
        return [pytest.param(None, id="peer_tests-missing")]
    cases = json.loads((PEERS / "pytrec_eval.json").read_text(encoding="utf-8"))["cases"]
    return [pytest.param(c, id=c["id"]) for c in cases if "qrels_file" in c and "convention" in c]


@pytest.mark.peers
@pytest.mark.parametrize("case", _pytrec_cases())
def test_pytrec_eval_gives_the_trec_eval_9_value_of_each_convention_case(case):
    """Where a value is trec_eval 9's recall-level rounding, pytrec_eval (trec_eval 9.0.8's C code) gives it too."""
    case = _require(case)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _inputs(case)
    level = case["options"].get("rel_level", 1)
    name = case["measure"]
    family = "iprec_at_recall" if name.startswith("iprec_at_recall") else name  # gives all eleven levels
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {family}, relevance_level=level).evaluate(run)
    mean = pytrec_eval.compute_aggregated_measure(name, [v[name] for v in per_query.values()])
    assert _close(mean, case["expected"]["mean"], case), (case["id"], mean)


# ------------------------------------------------------------------ ir_measures' fixtures (inputs only)
def _irm_pairs():
    """(name, measures, provider) for the two ir_measures fixture pairs."""
    irm = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl.cwl_eval", reason="cwl-eval (PyPI cwl-eval) is not installed")
    compat = [irm.nDCG @ 10, irm.nDCG, irm.P @ 5, irm.P(rel=2) @ 10, irm.AP, irm.AP(rel=2), irm.RR, irm.R @ 100,
              irm.Rprec, irm.Bpref, irm.Judged @ 10, irm.SetP, irm.NumRet, irm.NumRelRet]
    cwl = [irm.P(rel=1) @ 5, irm.RR(rel=1), irm.INST(T=1.0, max_rel=1), irm.INSQ(T=2.0, max_rel=1),
           irm.BPM(T=1.0, max_rel=1) @ 5, irm.SDCG(max_rel=1) @ 5, irm.NERR8(max_rel=1) @ 5,
           irm.NERR10(p=0.8, max_rel=1), irm.NERR11(T=2.0, max_rel=1)]
    return irm, {"compat": (compat, irm), "cwl": (cwl, irm.cwl_eval)}


@pytest.mark.peers
@pytest.mark.parametrize("pair", ["compat", "cwl"])
def test_ir_measures_fixtures_agree_with_ir_measures(pair):
    """On ir_measures' fixture files (no expected values stored), every value equals ir_measures' to 1e-9."""
    if not (PEERS / "ir_measures" / f"{pair}.qrels").is_file():
        pytest.fail(f"peer test inputs not found: {PEERS / 'ir_measures' / (pair + '.qrels')}")
    irm, pairs = _irm_pairs()
    measures, provider = pairs[pair]
    qrels_path, run_path = PEERS / "ir_measures" / f"{pair}.qrels", PEERS / "ir_measures" / f"{pair}.run"
    qrels, run = list(irm.read_trec_qrels(str(qrels_path))), list(irm.read_trec_run(str(run_path)))
    theirs = {(r.query_id, str(r.measure)): float(r.value) for r in provider.iter_calc(measures, qrels, run)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ours = sg.evaluate(qrels_path, run_path, measures, missing="zero")  # ir_measures scores them 0
    column = {str(m): c for m, c in zip(measures, ours.columns)}
    assert {(q, str(m)) for q in ours.index for m in measures} == set(theirs)
    bad = {k: (float(ours.loc[k[0], column[k[1]]]), v) for k, v in theirs.items()
           if abs(float(ours.loc[k[0], column[k[1]]]) - v) > 1e-9}
    assert not bad, f"ir_measures/{pair}: (searchgrade, ir_measures) {bad}"
