"""Potato 2.12.1's statistics for the six contract kinds, written for Accord.

``contracts.md`` ("Agreeing with Potato 2.12.1") makes Potato's engine the rule for the
numbers. Each module here computes one kind the way Potato 2.12.1 does
(``potato-engine.md`` §3–§5 say how, with file and line), as a pure function of a
:class:`~app.core.contracts.potato_method.view.MethodView` and the look; the tests run
Potato's own contract classes on the same simulated studies as the oracle (equal to
1e-9). Potato is GPL-3.0 and is never imported here: this is Accord's own code.

This is the first step of issue 13's part 3: the methods and their oracle tests. The
engine does not use them yet (its kinds in :mod:`app.core.contracts.kinds` still follow
the earlier spec); building the view from a project and the audit of Potato's records
come next.
"""
