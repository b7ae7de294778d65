"""Contracts: certifying machine labels against people (``contracts.md``).

The engine and the scheduler sit here at the top (``engine.py``, ``engine_ledger.py``,
``engine_schedule.py``, ``scheduler.py``, ``label_report.py``, ``status.py``,
``look_cost.py``); each room below is one idea:

- ``kinds/``: the six contract kinds, one module each, behind one interface and a
  registry (``kinds/registry.py``);
- ``labels/``: what the kinds read and what the cascade delivers (the schema's labels,
  loss families and losses, the machine labels the estimates read, delivery);
- ``statistics/``: binomial bounds, looks, PPI, Jensen–Shannon, the alternative
  annotator test, distribution functions (pure, no project);
- ``config/``: the engine configuration, its contracts, typed values, migration;
- ``ledger/``: the append-only, hash-chained ledger of looks (format, chain, verify).
"""
