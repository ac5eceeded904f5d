"""Chapter 6's map of pairwise mean differences: one triangle per measure, coloured where Holm keeps the pair."""
from __future__ import annotations

import itertools

import numpy as np

from .plotting import PALETTE, label_axes

__all__ = ["NOT_SIGNIFICANT", "difference_maps"]

NOT_SIGNIFICANT = "#c8c8c8"  # the grey of a pair the test does not separate


def _scale():
    """The colour map (light to dark blue) and its log scale: one colour step per tenfold difference."""
    from matplotlib.colors import LinearSegmentedColormap, LogNorm

    blues = LinearSegmentedColormap.from_list("diff", ["#eef4fa", PALETTE[0], "#002a45"])
    return blues, LogNorm(1e-3, 1.0, clip=True)


def _triangle(ax, comparison, measure: str, title: str) -> None:
    """Upper triangle of row - column mean differences on one measure; grey where the pair is not significant."""
    from matplotlib.colors import to_rgba

    blues, scale = _scale()
    names = list(comparison.means[measure].astype(float).sort_values(ascending=False).index)
    diff = comparison.matrix(measure, "diff").loc[names, names].to_numpy(dtype=float)
    sig = comparison.matrix(measure, "significant").loc[names, names].eq(True).to_numpy()
    k = len(names)
    image = np.ones((k - 1, k - 1, 4))              # rows 0..k-2 against columns 1..k-1
    for i, j in itertools.product(range(k - 1), range(1, k)):
        if j <= i:
            continue
        image[i, j - 1] = blues(scale(diff[i, j])) if sig[i, j] else to_rgba(NOT_SIGNIFICANT)
        dark = sig[i, j] and scale(diff[i, j]) > 0.5
        ax.text(j - 1, i, f"{diff[i, j]:.3f}", ha="center", va="center", fontsize=8,
                color="white" if dark else ("black" if sig[i, j] else "#444444"))
    ax.imshow(image)
    ax.set_xticks(range(k - 1), names[1:], rotation=45, ha="right", fontsize=8.5)
    ax.set_yticks(range(k - 1), names[:-1], fontsize=8.5)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    label_axes(ax, "평균이 낮은 쪽 검색기 (열)", "평균이 높은 쪽 검색기 (행)", title)


def difference_maps(comparison, measures, collection: str):
    """A figure with one difference triangle per measure of a :class:`searchgrade.comparison.Comparison`.

    Each cell is the row retriever's mean minus the column retriever's (rows and columns by mean, best
    first), blue on a log scale where the comparison calls the pair significant, grey where it does not;
    one colour bar and one legend for the whole figure. Returns the matplotlib figure.
    """
    import matplotlib.pyplot as plt
    from matplotlib.cm import ScalarMappable
    from matplotlib.patches import Patch

    measures = list(measures)
    if not measures:
        raise ValueError("difference_maps needs at least one measure")
    blues, scale = _scale()
    fig, axes = plt.subplots(1, len(measures), figsize=(7 * len(measures), 6.4), layout="constrained",
                             squeeze=False)
    for ax, measure in zip(axes[0], measures):
        _triangle(ax, comparison, measure, f"{collection} {measure}: 행 - 열의 평균 차이")
    bar = fig.colorbar(ScalarMappable(scale, blues), ax=axes[0], shrink=0.7, pad=0.01)
    bar.set_label("평균 차이, 보정 뒤 유의한 쌍 (로그 눈금)")
    bar.set_ticks([0.001, 0.01, 0.1, 1.0], labels=["0.001 이하", "0.01", "0.1", "1"])
    fig.legend(handles=[Patch(color=NOT_SIGNIFICANT, label="보정 뒤 유의하지 않은 쌍")],
               loc="outside lower center")
    return fig
