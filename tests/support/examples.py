"""How many examples a hypothesis property runs under the two profiles that tests/conftest.py registers.

A property states its thorough count, ``@settings(max_examples=examples(400))``: under the "thorough"
profile (``make test-peers``, and CI's ``make test HYPOTHESIS_PROFILE=thorough``) it runs that many
examples; under "fast", the default of ``make test``, a quarter of them, never fewer than FAST_FLOOR (nor
more than the thorough count).
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
