"""The measure kinds: one module per kind of measure, holding its families' rows (``ROWS``) beside their kernels.

Each kind module is a measure's whole story; to add a kind, write one such module (kernels, rows) and add it
to ``KINDS`` in :mod:`searchgrade.measures.registry` (the package docstring of :mod:`searchgrade.measures` shows one).

A kind module (``precision``, ``dcg``, ``cwl``, ...) holds its kernels ``f(ctx, m) -> one value per query``,
its :class:`~searchgrade.measures.family.Family` rows (parameters, formula, source, names in trec_eval,
pytrec_eval, ir_measures and ranx, documented differences) and, where it has one, its C/W/L user model.
``base`` (the ranked context), ``gains``, ``ideal`` and ``user_model`` are helpers shared by several kinds and
hold no rows.
"""
