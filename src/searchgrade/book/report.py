"""``searchgrade report``, kept importable from its old place: it lives in :mod:`searchgrade.report.page`."""
from __future__ import annotations

import sys

from ..report.page import *  # noqa: F401,F403
from ..report.command import main  # noqa: F401
from ..report.page import MEASURES, PRIMARY, STAGE_MEASURES, VIEWER_MEASURES, build_report, write_report  # noqa: F401

if __name__ == "__main__":
    sys.exit(main())
