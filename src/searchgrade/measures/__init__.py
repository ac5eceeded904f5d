"""The measures' machinery behind :mod:`searchgrade.metrics` and the trec_eval and ndeval commands.

``engine`` is the way in: the Evaluator and the one-call ``evaluate``, ``mean`` and ``score_run`` read
the inputs, plan the measures, rank the run and call the kernels (``blocks``: the trec_eval command's
way in, the same a block of queries at a time); ``summary`` sums the queries up as trec_eval does
(``aggregate``).  ``registry`` (with ``rows_cwl`` and ``rows_diversity``) holds one row
per measure family, of the type in ``family``; ``names``, ``params`` and ``known`` read and list measure
names; ``options`` checks the evaluation options; ``qrels`` and ``subtopics`` index the judgments;
``ranking`` orders a run as trec_eval does; ``tables`` shows the rows as tables; ``kernels/`` (base,
binary, gains, graded, ideal, trec_walk, cwl, diversity) computes each family's values on the ranked rows.

To add a measure family: write its kernel ``f(ctx, m) -> one value per row`` in ``kernels/`` and add a
:class:`~searchgrade.measures.family.Family` row to ``registry.py`` (or ``rows_*.py``) that holds its name,
typed parameters, cut-off rule, aggregation, kernel, formula and source, and its trec_eval and peer names.
"""
