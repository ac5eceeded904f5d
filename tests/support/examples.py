"""How many examples a test runs under the two hypothesis profiles that tests/conftest.py registers.

A property states its thorough count, ``@settings(max_examples=examples(400))``: under the "thorough"
profile (``make test-peers``, and CI's ``make test HYPOTHESIS_PROFILE=thorough``) it runs that many
examples; under "fast", the default of ``make test``, a quarter of them, never fewer than FAST_FLOOR (nor
more than the thorough count). A long hand-made list of cases that exercise one code path the same way
(``spread(cases)``) is run whole under "thorough" and a quarter of it, evenly spread, under "fast".
"""
from __future__ import annotations

from hypothesis import settings

FAST_SHARE = 4
FAST_FLOOR = 20


def examples(thorough: int) -> int:
    """``max_examples`` for a property whose thorough count is ``thorough``, under the loaded profile."""
    if settings.get_current_profile_name() == "thorough":
        return thorough
    return min(thorough, max(FAST_FLOOR, thorough // FAST_SHARE))


def spread(items, share: int = FAST_SHARE) -> list:
    """All of ``items`` under the "thorough" profile; under "fast" one in ``share`` of them (a quarter by
    default; at least one), evenly spread over the list, the first one included."""
    items = list(items)
    if settings.get_current_profile_name() == "thorough":
        return items
    return items[::share]


def orders() -> int:
    """The most orders of a query's tied documents that a property enumerates to check ties="expected":
    720 (6!) under "thorough", 120 (5!) under "fast" (a case over the limit is skipped by the property)."""
    return 720 if settings.get_current_profile_name() == "thorough" else 120
