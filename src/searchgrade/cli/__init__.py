"""Every command line, one subpackage each: ``trec_eval`` (:mod:`.trec_eval`), ``ndeval`` (:mod:`.ndeval`),
``runs`` (:mod:`.runs`) and ``report`` (:mod:`.report`), subcommands of the ``searchgrade`` command (:mod:`.main`).

To add a command, write ``cli/<name>/`` (its parser in ``args.py``, ``main(argv) -> exit status`` in
``__init__.py``, options shared with other commands from :mod:`.options`) and one row in ``main._SUBCOMMANDS``.

``trec_eval`` and ``ndeval`` print what trec_eval 10.0 and ndeval print, byte for byte; they are also
``python -m searchgrade.trec_eval`` (``searchgrade-trec-eval``) and ``python -m searchgrade.ndeval``, whose
modules only hand over to this package. ``runs`` computes a line-up's cached runs (:mod:`searchgrade.retrieval`)
and ``report`` writes one HTML page comparing runs (:mod:`searchgrade.report`). A command that needs an
extra also names it in ``main._EXTRAS`` and the package it drives in ``main._ENGINES``, so that a missing
extra is one ``error:`` line naming it.
"""
