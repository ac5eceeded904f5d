"""The measures' machinery behind :mod:`searchgrade.metrics` and the trec_eval command.

``registry`` holds one row per measure family (parameters, names, formula, citation, kernel);
``names`` and ``params`` read measure names; ``options`` checks the evaluation options; ``qrels``
indexes the judgments; ``ranking`` orders a run as trec_eval does; ``dispatch`` calls the kernels of
``kernels/`` (base, binary, gains, graded, ideal, trec_walk, cwl) on the ranked rows.
"""
