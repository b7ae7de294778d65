"""The six contract kinds, one module each, behind one interface (``base.py``).

Every kind is a pure function of a :class:`~app.core.contracts.kinds.base.SchemaData`
(and, for ``selective_risk``, the look it is tested at) returning a
:class:`~app.core.contracts.kinds.base.KindOutcome`; :mod:`.registry` maps a kind's
name to its module, so the engine and the certificate never branch on the name."""
