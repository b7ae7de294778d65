"""The two ways a write to the ledger is refused.

Neither is bad input. A damaged ledger exits 1; a look conflict exits 2 like a certify
that found the project's lock taken (:class:`~app.core.contracts.ledger.lock.CertifyBusyError`):
nothing was recorded, run it again. Both are one line in the CLI, never a traceback.
"""

from __future__ import annotations


class LedgerDamagedError(Exception):
    """The ledger failed verification and the damage was not acknowledged.

    Not an :class:`~app.core.errors.InputError`: the CLI exits 1 for a damaged ledger
    and 2 for bad input, so the two must stay distinguishable.
    """

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(
            f"{problem}. Nothing was recorded; `accord label certify --acknowledge-ledger` "
            "records the damage and carries on from the intact lines")


class LookConflictError(Exception):
    """The look number a test ran at is not the next one (another process tested first).

    The test's level was computed for the wrong look, so its result must not be
    recorded: test again at the look the ledger now expects. Since every certify holds
    the project's certify lock (:mod:`app.core.contracts.ledger.lock`), only a writer
    that ignores the lock can cause it.
    """
