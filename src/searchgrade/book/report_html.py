"""The report's HTML building blocks, kept importable from their old place: :mod:`searchgrade.report.html`."""
from __future__ import annotations

from ..report.html import *  # noqa: F401,F403
from ..report.html import CSS, PALETTE, esc, histogram_svg, note, number, page, section, table  # noqa: F401
