"""The ``searchgrade`` command (``python -m searchgrade``): ``--version`` and four subcommands.

``trec_eval``  the trec_eval-compatible CLI (:mod:`searchgrade.trec_eval`)
``ndeval``     the ndeval-compatible diversity CLI (:mod:`searchgrade.ndeval`)
``runs``       one cached TREC run per retriever of a line-up file (:mod:`searchgrade.cli.runs`, over
               :mod:`searchgrade.retrieval`; the ``retrieval`` extra)
``report``     one self-contained HTML page comparing runs, plain TREC run files or a folder of ``runs``
               (:mod:`searchgrade.cli.report`, over :mod:`searchgrade.report`; the core, with a progress
               bar from the ``report`` extra)

Every command line lives in this package. A subcommand's module is imported only when it is asked
for, after the package it drives (``_ENGINES``), so that a missing extra is one ``error:`` line
naming the extra. Each names itself in its usage and help as the user typed it (:func:`typed_command`).
"""
from __future__ import annotations

import os
import sys

_SUBCOMMANDS = {
    "trec_eval": ("searchgrade.trec_eval", "trec_eval's options, QRELS, RUN",
                  "the trec_eval-compatible evaluator"),
    "ndeval": ("searchgrade.ndeval", "[-alpha A] [-beta B] [-traditional] [-c] [-M N] [-baseline FILE] QRELS RUN",
               "the ndeval-compatible diversity evaluator (alpha-nDCG, ERR-IA, NRBP, ...)"),
    "runs": ("searchgrade.cli.runs", "--lineup FILE --collection NAME_OR_FOLDER --out DIR",
             "compute (or find cached) one TREC run per retriever of a line-up file"),
    "report": ("searchgrade.cli.report", "--qrels QRELS [--collection DIR] [--lang en|ko] --out page.html "
               "RUN [RUN ...]\n  {0:10s}   searchgrade report --collection NAME_OR_FOLDER --runs DIR --out report.html",
               "one self-contained HTML page comparing runs: plain TREC run files, or a folder of `runs`"),
}
_EXTRAS = {"runs": "retrieval", "report": "report"}
_ENGINES = {"runs": "searchgrade.retrieval.runs", "report": "searchgrade.report.page"}
"""The package each command line drives, imported first (the command modules import it lazily)."""


def typed_command(sub: str) -> str:
    """The command line ``sub`` as the user typed it, for its usage and help: ``searchgrade trec_eval``,
    ``python -m searchgrade ndeval``, ``python -m searchgrade.trec_eval`` or a script's own name
    (``searchgrade-trec-eval``), read from ``sys.argv[0]``; ``searchgrade SUB`` when called from Python."""
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    script = os.path.basename(argv0).removesuffix(".exe")
    parts = os.path.normpath(argv0).split(os.sep)[-2:]
    if script == f"searchgrade-{sub.replace('_', '-')}":
        return script
    if parts == ["searchgrade", f"{sub}.py"]:
        return f"python -m searchgrade.{sub}"
    if parts == ["searchgrade", "__main__.py"]:
        return f"python -m searchgrade {sub}"
    return f"searchgrade {sub}"


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m searchgrade`` and the ``searchgrade`` script; returns the exit status."""
    import argparse

    from .. import __version__

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in _SUBCOMMANDS:
        import importlib

        try:
            if argv[0] in _ENGINES:
                importlib.import_module(_ENGINES[argv[0]])
            module = importlib.import_module(_SUBCOMMANDS[argv[0]][0])
        except ImportError as err:
            extra = _EXTRAS.get(argv[0], "core")
            print(f"error: `searchgrade {argv[0]}` needs the {extra} extra (pip install 'PATH_TO_CLONE[{extra}]'; see "
                  f"the README's \"Install as a library\"): {err}", file=sys.stderr)
            return 2
        return module.main(argv[1:])
    commands = "\n".join(f"  {name:10s} {what}\n  {'':10s}   searchgrade {name} {args.format('')}"
                         for name, (_, args, what) in _SUBCOMMANDS.items())
    parser = argparse.ArgumentParser(prog="searchgrade", formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description="Retrieval evaluation you can check.",
                                     epilog=f"subcommands (each has its own --help):\n{commands}")
    parser.add_argument("--version", action="version", version=f"searchgrade {__version__}")
    parser.parse_args(argv)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
