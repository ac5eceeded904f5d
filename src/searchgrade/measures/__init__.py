"""The measures' machinery behind :mod:`searchgrade.metrics` and the trec_eval and ndeval commands.

It holds the engine, the name parsers and one module per kind of measure; to add a measure, write one
kind module in ``kinds/`` (kernel and rows) and add it to ``KINDS`` in ``registry.py``, as shown below.

``engine`` is the way in: the Evaluator and the one-call ``evaluate``, ``mean`` and ``score_run`` read
the inputs, plan the measures, rank the run and call the kernels (``blocks``: the trec_eval command's
way in, the same a block of queries at a time; ``stream``: a run file scored a part at a time as it is
read, and rankings pushed a query at a time, ``Evaluator.stream()``); ``summary`` sums the queries up as trec_eval does
(``aggregate``).  ``kinds/`` holds a module per kind of measure, each with its families' rows (of the
type in ``family``, with typed parameters from ``params``) beside their kernels; ``registry`` gathers
the rows into one table and derives trec_eval's order and sets from them; ``names/`` reads measure
names, a module per dialect; ``options`` checks the evaluation options; ``qrels`` and ``subtopics``
index the judgments; ``ranking`` orders a run as trec_eval does; ``tables`` shows the rows as tables.

A new measure is one file and one registration line.  ``kinds/found.py``::

    \"\"\"Found@k: the relevant documents in the top k, a count.\"\"\"
    import numpy as np

    from ..family import Family, TrecName
    from ..params import REL
    from .base import level


    def found(ctx, m):
        \"\"\"Found@k = |relevant in the top k| (ctx: the ranked rows, m: the parsed measure).\"\"\"
        return ctx.rel_hits(level(ctx, m), m.cutoff).astype(np.float64)


    ROWS = [Family("Found", found, "relevant documents in the top k", (REL,), cutoff="required",
                   formula="``sum_{i<=k} rel_i``", trec=(TrecName("found", "cut", (5, 10)),))]

and in ``registry.py``, ``found`` added to ``KINDS`` (a kind written outside the package:
``registry.register_kind(module)``).  Its names then parse everywhere (``Found@10``, ``found_10``),
its parameters are checked, and ``measure_table()`` and the docstring tables list it.
"""
