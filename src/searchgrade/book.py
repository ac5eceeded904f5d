"""Small helpers for the book's notebooks (glue numbers that MyST can format)."""
from __future__ import annotations

import numpy as np


def plain(value):
    """Convert numpy scalars (and 0-d arrays) to plain Python numbers; other values pass through."""
    if isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0:
        return value.item()
    return value


def glue(name: str, value, display: bool = False):
    """myst_nb.glue with numpy scalars made plain, so `{glue:text}` specs such as `:.3f` work."""
    from myst_nb import glue as _glue

    value = plain(value)
    _glue(name, value, display=display)
    return value


def single_relevant_ranking(rank: int, n: int = 20, grade: int = 1) -> tuple[list[str], dict[str, int]]:
    """n documents d01..dn whose only judged one (with `grade`) sits at `rank` (1-based)."""
    if not 1 <= rank <= n:
        raise ValueError(f"rank must be in 1..{n}, got {rank}")
    docs = [f"d{i:0{len(str(n))}d}" for i in range(1, n + 1)]
    return docs, {docs[rank - 1]: grade}
