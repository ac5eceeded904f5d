"""Suggestions for unknown measure names (issue 41 §3): pytrec_eval's spellings are read, and a "did you mean"
never offers the name typed, nor a name that is itself refused, in the API or the trec_eval command's -m."""
import ast
import random
import re

import pytest

import searchgrade as sg
from searchgrade.measures.names import known_measures, parse_measure, suggest, suggest_trec, trec_expand
from searchgrade.measures.registry import ALIASES, FAMILIES, RANX, TREC_ORDER, TREC_SETS, trec_root

QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1, "y": 2}}
RUN = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"y": 1.0, "x": 0.5}}


# ---------------------------------------------------------------- pytrec_eval's keys
@pytest.mark.parametrize("key,same", [("P.10", "P@10"), ("ndcg_cut.10", "nDCG@10"), ("map_cut.5", "AP@5"),
                                      ("recall.100", "R@100"), ("iprec_at_recall.0.10", "IPrec@0.1"),
                                      ("set_F.0.25", "SetF(beta=0.5)"), ("rbp.p=0.5", "RBP(p=0.5)"),
                                      ("success.1", "Hit@1"), ("ndcg.1=4,2=8", "ndcg_1=4,2=8")])
def test_pytrec_eval_keys_read_as_trec_evals_m_arguments(key, same):
    """pytrec_eval takes trec_eval's -m form as its measure keys (RelevanceEvaluator(qrels, {"P.10"}) reports
    P_10): searchgrade reads the key as the value it names, under the name the user wrote."""
    m = parse_measure(key)
    assert m.key == parse_measure(same).key
    assert m.name == (m.canonical if key.startswith("ndcg.") else key)  # ndcg.1=4 hides its implied ideal=trec
    assert sg.mean(QRELS, RUN, [key]).tolist() == sg.mean(QRELS, RUN, [same]).tolist()


def test_a_key_naming_several_values_says_which_and_offers_one():
    with pytest.raises(ValueError, match=r"'P\.5,10' names 2 values \(P_5, P_10\).*e\.g\. 'P_5'") as err:
        parse_measure("P.5,10")
    assert parse_measure(str(err.value).rsplit("'", 2)[1]).cutoff == 5
    with pytest.raises(ValueError, match="takes no parameters"):
        parse_measure("map.5")


@pytest.mark.peers
def test_pytrec_eval_reports_the_keys_values():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    keys = ["P.10", "ndcg_cut.10", "map_cut.5", "recall.100", "success.1"]
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, set(keys)).evaluate(RUN)
    ours = sg.evaluate(QRELS, RUN, keys)
    for key in keys:
        printed = parse_measure(key).trec_name  # pytrec_eval's key in its result: P_10, ndcg_cut_10, ...
        for q in RUN:
            assert ours.loc[q, key] == pytest.approx(theirs[q][printed], abs=1e-12), (key, q)


# ---------------------------------------------------------------- the reproducers
def test_no_suggestion_repeats_the_name_typed_or_is_refused():
    for typed in ["P.1O", "ndcg_cut.1O", "ndcg_cut10", "ndcg_cut_10x", "P_1O", "ndcgcut.10", "nDGC@10"]:
        guess = suggest(typed)
        assert guess is not None and guess != typed, typed
        parse_measure(guess)


def test_the_cli_suggests_an_argument_it_then_reads(tmp_path, capsys):
    from searchgrade.trec_eval import main

    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 x\n")
    assert main(["-m", "ndcg_cut10", str(tmp_path / "q"), str(tmp_path / "r")]) == 2
    assert "did you mean 'ndcg_cut.10'?" in capsys.readouterr().err
    assert main(["-m", "ndcg_cut.10", str(tmp_path / "q"), str(tmp_path / "r")]) == 0


# ---------------------------------------------------------------- the property, over near-misses
def _names() -> list[str]:
    """Names searchgrade reads: families with a cut-off, aliases, ranx's names, trec_eval's printed names and
    -m arguments (pytrec_eval's keys)."""
    names = [f"{f.name}@10" if f.cutoff in ("required", "optional") else f.name for f in FAMILIES.values()
             if f.cutoff != "recall"]
    names += [f"{alias}@5" for alias in ALIASES] + [f"{r}@10" if at_k else r for r, (at_k, _) in RANX.items()]
    for root in TREC_ORDER:
        if trec_root(root):
            printed = [p for p, _ in trec_expand(root)]
            names += printed[:2] + [p.replace("_", ".", 1) if p != root else root for p in printed[:1]]
    return sorted(set(names))


def _near_misses(name: str, rng: random.Random) -> set[str]:
    """Typos of a name: a character dropped, doubled or replaced, two swapped, _ and . traded, the case changed."""
    out = {name.lower(), name.upper(), name.replace("_", "."), name.replace(".", "_"), name.replace("_", ""),
           name + "x"}
    for _ in range(2):
        i = rng.randrange(len(name))
        out |= {name[:i] + name[i + 1:], name[:i] + name[i] + name[i:], name[:i] + rng.choice("aeoO1_.") + name[i + 1:],
                name[:i] + name[i + 1: i + 2] + name[i] + name[i + 2:]}
    return out - {name, ""}


def _offered(name: str) -> str | None:
    """The "did you mean" of parse_measure's error for ``name`` (None: read, or refused without a guess)."""
    try:
        parse_measure(name)
    except ValueError as err:
        found = re.search(r"; did you mean (.+)\? \(searchgrade", str(err))
        return ast.literal_eval(found.group(1)) if found else None
    return None


def _refused(name: str) -> bool:
    try:
        parse_measure(name)
    except ValueError:
        return True
    return False


def test_every_suggestion_is_read_and_differs_from_what_was_typed():
    assert _offered("nDGC@10") == "nDCG@10" and _offered("P.10") is None  # the checker can tell
    rng = random.Random(42)
    names = _names()
    assert len(names) > 120
    offered = 0
    for name in names:
        for typed in sorted(_near_misses(name, rng)):
            guess = _offered(typed)
            if guess is None:
                continue
            offered += 1
            assert guess.strip() != typed.strip(), typed
            assert not _refused(guess), (typed, guess)
    assert offered > 400


def _cli_reads(arg: str) -> bool:
    """Whether the trec_eval command reads -m arg (as its plan does)."""
    from searchgrade.cli.trec_eval.args import UsageError
    from searchgrade.cli.trec_eval.plan import plan

    try:
        plan([arg], 1)
    except UsageError:
        return False
    return True


def test_every_cli_suggestion_is_read_and_differs_from_what_was_typed():
    rng = random.Random(7)
    args = sorted(set(TREC_SETS) | set(TREC_ORDER) | {"P.5,10", "ndcg_cut.10", "rbp.p=0.5", "iprec_at_recall.0.20"})
    offered = 0
    for arg in args:
        for typed in sorted(_near_misses(arg, rng)):
            if _cli_reads(typed):
                continue
            guess = suggest_trec(typed)
            if guess is None:
                continue
            offered += 1
            assert guess != typed and _cli_reads(guess), (typed, guess)
    assert offered > 100


def test_known_measures_still_lists_patterns_not_offered_as_names():
    """known_measures() keeps its patterns (P_k, ndcg_cut_k); a suggestion is a name, never a pattern."""
    assert "P_k" in known_measures() and "ndcg_cut_k" in known_measures()
    assert suggest("ndcg_cut_10x") == "ndcg_cut_10" and suggest("P_k") != "P_k"
