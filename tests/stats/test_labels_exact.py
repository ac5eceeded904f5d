"""Tests for searchgrade.stats.labels: Krippendorff's alpha keeps integer labels exact beyond 2**53 (issue 41, D3)."""
import numpy as np
import pytest

from searchgrade import stats

BIG = 2 ** 53
# 2**53 and 2**53 + 1 are one float: read as floats, the two labels merged
MERGED = [[BIG, BIG + 1, 7], [BIG + 1, BIG + 1, 7], [7, BIG, 7]]
SMALL = [[1, 2, 0], [2, 2, 0], [0, 1, 0]]          # the same labels by rank: 7 < 2**53 < 2**53 + 1


def test_ordinal_alpha_of_labels_beyond_2_53_equals_their_ranks():
    # the ordinal distance reads only the order of the labels, so any order-preserving relabelling agrees
    assert stats.krippendorff_alpha(MERGED, level="ordinal") == pytest.approx(
        stats.krippendorff_alpha(SMALL, level="ordinal"), abs=1e-12)
    assert stats.krippendorff_alpha(MERGED, level="ordinal") == pytest.approx(0.508994708994709, abs=1e-12)


@pytest.mark.parametrize("base", [BIG, 2 ** 70])
def test_interval_alpha_is_shift_invariant_beyond_2_53(base):
    shifted = [[base + v for v in row] for row in [[0, 1, 2], [1, 1, 2], [2, 0, 2]]]
    assert stats.krippendorff_alpha(shifted, level="interval") == pytest.approx(
        stats.krippendorff_alpha([[0, 1, 2], [1, 1, 2], [2, 0, 2]], level="interval"), abs=1e-12)


def test_exact_labels_with_missing_entries_and_floats():
    data = np.array([[BIG, BIG + 1, np.nan, 3], [BIG + 1, None, BIG + 1, 3.0], [3, BIG, BIG + 1, None]], dtype=object)
    ranks = np.array([[1, 2, np.nan, 0], [2, np.nan, 2, 0], [0, 1, 2, np.nan]])
    assert stats.krippendorff_alpha(data, level="ordinal") == pytest.approx(
        stats.krippendorff_alpha(ranks, level="ordinal"), abs=1e-12)
    boot = stats.krippendorff_alpha(data, level="ordinal", ci=0.9, n_boot=200, seed=1)
    assert boot.value == pytest.approx(stats.krippendorff_alpha(ranks, level="ordinal"), abs=1e-12)


@pytest.mark.peers
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_big_integer_labels_equal_krippendorff(level):
    krippendorff = pytest.importorskip("krippendorff")
    for data in (MERGED, [[BIG + v for v in row] for row in [[0, 1, 2], [1, 1, 2], [2, 0, 2]]]):
        theirs = krippendorff.alpha(reliability_data=np.array(data), level_of_measurement=level)
        assert stats.krippendorff_alpha(data, level=level) == pytest.approx(theirs, abs=1e-12)
