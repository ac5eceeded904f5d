"""Tests for searchgrade.stats.tukey: the parametric Tukey HSD when the error variance is zero (issue 41, D12)."""
import warnings

import numpy as np
import pandas as pd
import pytest

from searchgrade import compare, stats

TIED = pd.DataFrame({"a": [0.5] * 4, "b": [0.5] * 4, "c": [0.5] * 4})
APART = pd.DataFrame({"a": [0.5] * 4, "b": [0.7] * 4, "c": [0.5] * 4})


def test_zero_variance_with_tied_means_is_nan_with_a_warning():
    with pytest.warns(RuntimeWarning, match=r"error variance is 0 and 3 pair\(s\) of equal means"):
        out = stats.tukey_hsd(TIED, method="parametric")
    assert out["p_value"].isna().all()


def test_zero_variance_with_different_means():
    with pytest.warns(RuntimeWarning, match="1 pair"):
        out = stats.tukey_hsd(APART, method="parametric")
    assert out["p_value"].iloc[0] == 0.0 and out["p_value"].iloc[2] == 0.0 and np.isnan(out["p_value"].iloc[1])


def test_any_variance_gives_numbers_and_no_warning():
    varied = APART.copy()
    varied.iloc[0, 0] = 0.4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = stats.tukey_hsd(varied, method="parametric")
    assert out["p_value"].between(0, 1).all()


def test_compare_reads_an_untestable_pair_as_not_significant():
    tables = {name: TIED[[name]].rename(columns={name: "AP"}) for name in TIED}
    with pytest.warns(RuntimeWarning, match="error variance is 0"):
        rep = compare(None, tables, ["AP"], correction="tukey-parametric")
    assert rep.tests["p_adjusted"].isna().all() and not rep.tests["significant"].any()


def _statsmodels_p(wide: pd.DataFrame) -> np.ndarray:
    """statsmodels' pairwise_tukeyhsd p-values over a queries x systems table (its 0 / 0 warning silenced)."""
    multicomp = pytest.importorskip("statsmodels.stats.multicomp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return multicomp.pairwise_tukeyhsd(wide.to_numpy().T.ravel(), np.repeat(wide.columns, len(wide))).pvalues


@pytest.mark.peers
def test_zero_variance_agrees_with_statsmodels():
    with pytest.warns(RuntimeWarning):
        tied = stats.tukey_hsd(TIED, method="parametric")["p_value"].to_numpy()
        apart = stats.tukey_hsd(APART, method="parametric")["p_value"].to_numpy()
    np.testing.assert_array_equal(tied, _statsmodels_p(TIED))      # NaN where two means tie (0 / 0)
    np.testing.assert_array_equal(apart, _statsmodels_p(APART))    # and p = 0 where they differ
