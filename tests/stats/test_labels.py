"""searchgrade.stats label agreement against its oracles: scikit-learn (Cohen), statsmodels (Fleiss), krippendorff."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from searchgrade import stats
from tests.support.examples import examples

TOL = 1e-9


@st_.composite
def label_sets(draw, raters=(2, 2), missing=False):
    """raters x items integer labels: 2-5 categories, 5-60 items, optionally NaN for missing labels."""
    n_cat = draw(st_.integers(2, 5))
    n_items = draw(st_.integers(5, 60))
    n_raters = draw(st_.integers(*raters))
    seed = draw(st_.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_cat, n_items)
    agree = draw(st_.floats(0.0, 1.0))
    data = np.where(rng.random((n_raters, n_items)) < agree, truth, rng.integers(0, n_cat, (n_raters, n_items)))
    values = np.sort(rng.choice(np.arange(-3, 12), n_cat, replace=False)).astype(float)   # uneven spacing
    data = values[data]
    if missing:
        data[rng.random(data.shape) < draw(st_.floats(0.0, 0.5))] = np.nan
    return data


def _equal_or_both_nan(ours, theirs):
    if np.isnan(theirs):
        assert np.isnan(ours)
    else:
        assert ours == pytest.approx(theirs, abs=TOL)


@pytest.mark.peers
@settings(max_examples=examples(60), deadline=None)
@given(label_sets(), st_.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_equals_scikit_learn(data, weights):
    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = cohen_kappa_score(data[0], data[1], weights=weights)
        ours = stats.cohen_kappa(data[0], data[1], weights=weights)
    _equal_or_both_nan(ours, theirs)


@pytest.mark.peers
@settings(max_examples=examples(40), deadline=None)
@given(label_sets(raters=(2, 6)))
def test_fleiss_kappa_equals_statsmodels(data):
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

    items_by_raters = data.T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sm_fleiss_kappa(aggregate_raters(items_by_raters)[0])
        ours = stats.fleiss_kappa(items_by_raters)
    _equal_or_both_nan(ours, theirs)


@pytest.mark.peers
@settings(max_examples=examples(60), deadline=None)
@given(label_sets(raters=(2, 6), missing=True), st_.sampled_from(list(stats.labels.LEVELS)))
def test_krippendorff_alpha_equals_the_package(data, level):
    import krippendorff

    present = data[~np.isnan(data)]
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    if np.unique(present).size < 2 or not pairable.any():
        return          # the package raises here; our behaviour is tested below
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = krippendorff.alpha(data, level_of_measurement=level)
        ours = stats.krippendorff_alpha(data, level=level)
    _equal_or_both_nan(ours, theirs)


def test_worked_example_of_the_krippendorff_package():
    data = [[np.nan, np.nan, np.nan, np.nan, np.nan, 3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
            [1, np.nan, 2, 1, 3, 3, 4, 3, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
            [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4]]
    assert round(stats.krippendorff_alpha(data, level="nominal"), 6) == 0.691358
    assert round(stats.krippendorff_alpha(data, level="interval"), 6) == 0.810845


@pytest.mark.peers
def test_textbook_two_by_two_table():
    from sklearn.metrics import cohen_kappa_score

    # Manning, Raghavan & Schuetze (2008), table 8.2: 300 yes/yes, 70 no/no, 20 + 10 disagreements
    a = np.array(["yes"] * 300 + ["no"] * 70 + ["yes"] * 20 + ["no"] * 10)
    b = np.array(["yes"] * 300 + ["no"] * 70 + ["no"] * 20 + ["yes"] * 10)
    p_o = 370 / 400
    p_yes = (320 / 400 + 310 / 400) / 2
    assert stats.cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=TOL)
    assert 0.77 < stats.cohen_kappa(a, b) < 0.78          # sklearn's marginals give 0.7758
    pooled = (p_o - (p_yes ** 2 + (1 - p_yes) ** 2)) / (1 - (p_yes ** 2 + (1 - p_yes) ** 2))
    assert round(pooled, 3) == 0.776                      # the book's pooled-marginal value


@pytest.mark.peers
def test_string_labels_and_series():
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    a = pd.Series(["rel", "non", "rel", "rel", "non"], index=list("vwxyz"))
    b = pd.Series(["rel", "non", "non", "rel", "non"], index=list("vwxyz"))
    assert stats.cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=TOL)
    data = np.array([["x", "y", None, "x"], ["x", "y", "y", None]], dtype=object)
    assert stats.krippendorff_alpha(data, level="nominal") == pytest.approx(
        krippendorff.alpha(np.array([[0, 1, np.nan, 0], [0, 1, 1, np.nan]]), level_of_measurement="nominal"))


@pytest.mark.peers
def test_pandas_missing_values_count_as_missing():
    import krippendorff

    data = pd.DataFrame({"r1": [1, 2, pd.NA, 1, 3], "r2": [1, 3, 2, pd.NA, 3]}, dtype="Int64").T
    as_float = np.array([[1, 2, np.nan, 1, 3], [1, 3, 2, np.nan, 3]])
    for level in ("nominal", "ordinal", "interval"):
        assert stats.krippendorff_alpha(data, level=level) == pytest.approx(
            krippendorff.alpha(as_float, level_of_measurement=level), abs=TOL)


def test_bootstrap_interval_is_seeded_and_brackets_the_value():
    rng = np.random.default_rng(7)
    a = rng.integers(0, 3, 80)
    b = np.where(rng.random(80) < 0.7, a, rng.integers(0, 3, 80))
    one = stats.cohen_kappa(a, b, ci=0.95, n_boot=500, seed=3)
    two = stats.cohen_kappa(a, b, ci=0.95, n_boot=500, seed=3)
    assert one == two and one.low < one.value < one.high and float(one) == stats.cohen_kappa(a, b)
    assert stats.cohen_kappa(a, b, ci=0.95, n_boot=500, seed=4) != one
    fl = stats.fleiss_kappa(np.column_stack([a, b, a]), ci=0.9, n_boot=300)
    assert fl.low <= fl.value <= fl.high and fl.level == 0.9
    data = np.vstack([a, b]).astype(float)
    data[0, :10] = np.nan
    kr = stats.krippendorff_alpha(data, level="ordinal", ci=0.95, n_boot=300)
    assert kr.low < kr.value < kr.high and kr.n_items == 80


def test_one_category_gives_nan_with_a_warning():
    with pytest.warns(RuntimeWarning, match="undefined"):
        assert np.isnan(stats.cohen_kappa([1, 1, 1], [1, 1, 1]))
    with pytest.warns(RuntimeWarning, match="undefined"):
        assert np.isnan(stats.fleiss_kappa([[2, 2], [2, 2], [2, 2]]))
    with pytest.warns(RuntimeWarning, match="undefined"):
        assert np.isnan(stats.krippendorff_alpha([[1, 1, np.nan], [1, 1, 1]]))


def test_bad_input_is_refused_clearly():
    with pytest.raises(ValueError, match="a has 3 labels but b has 2"):
        stats.cohen_kappa([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="missing labels at position"):
        stats.cohen_kappa([0, np.nan, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="non-numeric label 'low'.*linear weights"):
        stats.cohen_kappa(["low", "high"], ["low", "low"], weights="linear")
    with pytest.raises(ValueError, match="unknown weights"):
        stats.cohen_kappa([0, 1], [0, 1], weights="cubic")
    with pytest.raises(ValueError, match="different indexes"):
        stats.cohen_kappa(pd.Series([0, 1], index=["a", "b"]), pd.Series([0, 1], index=["b", "c"]))
    with pytest.raises(ValueError, match="non-numeric label 'a'.*ordinal level"):
        stats.krippendorff_alpha([["a", "b"], ["a", "a"]], level="ordinal")
    with pytest.raises(ValueError, match="non-numeric label 'a'.*interval level"):
        stats.krippendorff_alpha([["a", "b"], ["a", "a"]], level="interval")
    with pytest.raises(ValueError, match="unknown level"):
        stats.krippendorff_alpha([[0, 1], [0, 1]], level="binary")
    with pytest.raises(ValueError, match="no item has labels from two raters"):
        stats.krippendorff_alpha([[0, np.nan], [np.nan, 1]])
    with pytest.raises(ValueError, match="missing labels in item row"):
        stats.fleiss_kappa([[0, 1], [1, np.nan]])
    with pytest.raises(ValueError, match="at least 2 raters"):
        stats.fleiss_kappa([[0], [1]])
    with pytest.raises(ValueError, match="2-dimensional"):
        stats.fleiss_kappa([0, 1, 1])
    with pytest.raises(ValueError, match="ci must be a confidence level"):
        stats.cohen_kappa([0, 1], [0, 1], ci=95)
