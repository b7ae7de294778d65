"""Inter-annotator agreement (``agreement.md``): one result per scheme, as data.

``report.py`` builds the report of a study, ``result.py`` is the result objects the CLI,
GUI and PDF all read, ``coefficient.py`` a value or the sentence saying why there is
none. The kinds' own rooms: ``categorical/`` (α, κ), ``sets/`` (matching and set
agreement), ``regions/`` and ``masks/``. Beside them: ``compare.py`` (two pilot rounds),
``item_scores.py`` and ``item_ranking.py`` (which items disagree most), ``drawing.py``
and ``trace_grid.py`` (data for the views).
"""
