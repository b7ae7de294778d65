"""The engine configuration: ``labeling/engine.yaml`` or Potato's ``labeling_engine:``
block read with line numbers (``engine_config.py``), its ``contracts:`` list
(``contract_specs.py``), typed value reads (``values.py``) and the migration of an old
``icl_labeling`` block (``migrate.py``)."""
