"""ranx's metric names, every one of them, give ranx's values (ranx 0.3.21 as the oracle).

The ranx column of :func:`searchgrade.measure_table` names what ranx calls each family; here each of
ranx's names (``ranx.metrics.metric_switch``), with and without ``@k`` and with ranx's ``-lL``, is
evaluated by searchgrade and by ranx on graded qrels without score ties (ranx breaks ties its own way).
"""
import numpy as np
import pytest

import searchgrade as sg
from searchgrade.measures.registry import FAMILIES, RANX

pytestmark = pytest.mark.peers  # the oracle is another package: `make test-peers`
ranx = pytest.importorskip("ranx")


def _data(seed: int):
    """Graded qrels (grades 0-3, one query without a relevant document) and a run without score ties."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(12):
        docs = [f"d{i}" for i in range(30)]
        judged = rng.choice(30, size=12, replace=False)
        top = 0 if q == 0 else 3
        qrels[f"q{q}"] = {docs[i]: int(rng.integers(0, top + 1)) for i in judged}
        n = int(rng.integers(1, 25))
        scores = rng.permutation(1000)[:n] / 10.0
        run[f"q{q}"] = {docs[i]: float(s) for i, s in zip(rng.choice(30, size=n, replace=False), scores)}
    return qrels, run


NAMES = ["hits", "hits@5", "hits@10-l2", "hit_rate", "hit_rate@10", "hit_rate@3-l3", "precision", "precision@10",
         "precision@5-l2", "recall", "recall@10", "f1", "f1@10", "f1@5-l2", "r-precision", "r-precision-l2",
         "mrr", "mrr@5", "map", "map@10", "map@100-l2", "dcg", "dcg@10", "dcg@10-l2", "dcg_burges@10",
         "ndcg", "ndcg@10", "ndcg@5-l2", "ndcg_burges", "ndcg_burges@10", "bpref", "bpref-l2", "rbp.95", "rbp.5"]


def test_every_ranx_name_is_tested():
    assert {n.split("@")[0].split(".")[0].split("-l")[0] for n in NAMES} == set(RANX)


def _defined(qrels: dict, run: dict, name: str) -> tuple[dict, dict]:
    """The queries where ranx's value is defined: its bpref divides by zero (NaN, and then zeros for every
    query of the batch) when a query has no relevant or no judged non-relevant document."""
    if not name.startswith("bpref"):
        return qrels, run
    level = int(name.partition("-l")[2] or 1)
    keep = [q for q, docs in qrels.items()
            if any(g >= level for g in docs.values()) and any(0 <= g < level for g in docs.values())]
    return {q: qrels[q] for q in keep}, {q: run[q] for q in keep}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ranx_names_give_ranx_values(seed):
    for name in NAMES:
        qrels, run = _defined(*_data(seed), name)
        ours = sg.evaluate(qrels, run, [name])[sg.parse_measure(name).name]
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), name, return_mean=False, make_comparable=True)
        expected = dict(zip(sorted(run), np.asarray(theirs, dtype=float)))  # ranx: queries sorted
        assert np.allclose(ours.reindex(sorted(qrels)).to_numpy(), [expected[q] for q in sorted(qrels)],
                           atol=1e-12), name


def test_hits_is_a_mean_of_counts():
    qrels, run = {"a": {"x": 1, "y": 1}, "b": {"z": 1}}, {"a": {"x": 2.0, "y": 1.0}, "b": {"w": 1.0}}
    assert sg.mean(qrels, run, ["hits@10"])["hits@10"] == 1.0  # (2 + 0) / 2, not a sum


def test_each_ranx_name_is_in_its_familys_ranx_column():
    for name, spellings in RANX.items():
        for spelling in filter(None, spellings):
            family = FAMILIES[spelling.split("(")[0]]
            assert name in family.ranx.replace(",", " ").split(), (name, family.name)


@pytest.mark.parametrize("name,fragment", [
    ("rbp.95-l2", "rel_lvl 2 on RBP"), ("ndcg_burges@10-l2", "rel_lvl 2 on nDCG"), ("bpref@10", "takes no cut-off")])
def test_ranx_forms_without_a_counterpart_are_refused(name, fragment):
    with pytest.raises(ValueError, match=fragment):
        sg.parse_measure(name)


def test_rbp_with_a_cutoff_stays_searchgrades():
    m = sg.parse_measure("rbp@95")
    assert (m.family, m.cutoff, m.params["p"]) == ("RBP", 95, 0.8)
