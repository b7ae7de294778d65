"""The six contract kinds: how the engine treats each (:mod:`.registry`), what each
promises (:mod:`.claims`), the labels they are about (:mod:`.base`) and the
contracts panel's error-coverage curve (:mod:`.coverage_curve`). Their evaluation is
Potato 2.12.1's method, in :mod:`app.core.contracts.potato_method`."""
