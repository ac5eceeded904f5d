"""``python -m searchgrade``: the package's command line, :mod:`searchgrade.cli.main` (``--version`` and four
subcommands: ``trec_eval``, ``ndeval``, ``runs``, ``report``)."""
from __future__ import annotations

import sys

from .cli.main import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
