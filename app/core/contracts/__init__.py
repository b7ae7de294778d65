"""Contracts: certifying machine labels against people (``contracts.md``).

At the top: ``label_report.py`` (``accord label status|certify|export`` as one result),
``status.py`` (one contract's status) and ``look_cost.py`` (what the next look spends);
each room below is one idea:

- ``potato_method/``: the engine and the six kinds as Potato 2.12.1 evaluates them, on a
  view built from a Potato project's ``engine.sqlite`` or from Accord's ``labeling/``
  files, and the audit of Potato's records;
- ``kinds/``: the kinds' registry, their claims, and the error-coverage curve;
- ``labels/``: the schema's labels, loss families and losses, delivery and export;
- ``statistics/``: binomial bounds, looks, distribution functions (pure, no project);
- ``config/``: the engine configuration, its contracts, typed values, migration;
- ``ledger/``: the append-only, hash-chained ledger of looks (format, chain, verify,
  results).
"""
