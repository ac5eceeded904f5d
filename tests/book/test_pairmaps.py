"""searchgrade.book.pairmaps: chapter 6's figure of pairwise mean differences."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from searchgrade import compare  # noqa: E402
from searchgrade.book.pairmaps import NOT_SIGNIFICANT, difference_maps  # noqa: E402


@pytest.fixture(scope="module")
def comparison():
    """Three systems on 60 queries: a clearly best one, and two that differ by chance only."""
    rng = np.random.default_rng(3)
    base = rng.random(60)
    scores = {"best": np.clip(base + 0.4, 0, 1), "a": base, "b": np.clip(base + rng.normal(0, 0.01, 60), 0, 1)}
    frames = {name: pd.DataFrame({"m1": s, "m2": s}, index=[f"q{i}" for i in range(60)])
              for name, s in scores.items()}
    return compare(None, frames, ["m1", "m2"], n_perm=500)


def test_one_triangle_per_measure_with_the_differences_written_in(comparison):
    fig = difference_maps(comparison, ["m1", "m2"], "toy")
    triangles = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in triangles] == ["toy m1: 행 - 열의 평균 차이", "toy m2: 행 - 열의 평균 차이"]
    texts = [t.get_text() for t in triangles[0].texts]
    assert len(texts) == 3                         # the upper triangle of three systems
    diff = comparison.matrix("m1", "diff").loc["best", "a"]
    assert f"{diff:.3f}" in texts


def test_a_pair_the_test_does_not_separate_is_grey(comparison):
    fig = difference_maps(comparison, ["m1"], "toy")
    ax = fig.axes[0]
    image = ax.get_images()[0].get_array()
    names = list(comparison.means["m1"].astype(float).sort_values(ascending=False).index)
    i, j = sorted((names.index("a"), names.index("b")))
    grey = matplotlib.colors.to_rgba(NOT_SIGNIFICANT)
    assert not comparison.matrix("m1", "significant").loc["a", "b"]
    assert np.allclose(image[i, j - 1], grey)


def test_no_measure_is_refused(comparison):
    with pytest.raises(ValueError, match="at least one measure"):
        difference_maps(comparison, [], "toy")
