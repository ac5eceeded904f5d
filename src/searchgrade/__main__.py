"""``python -m searchgrade``: the package's command line (``--version``; ``trec_eval`` runs the trec_eval-compatible CLI)."""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m searchgrade`` and the ``searchgrade`` script; returns the exit status."""
    from . import __version__

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "trec_eval":
        from .trec_eval import main as trec_eval_main

        return trec_eval_main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="searchgrade",
        description="Retrieval evaluation you can check. Subcommand: trec_eval [trec_eval's options] QRELS RUN.",
    )
    parser.add_argument("--version", action="version", version=f"searchgrade {__version__}")
    parser.parse_args(argv)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
