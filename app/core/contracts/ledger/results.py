"""The latest stored result of a contract: its last look, or a later evaluation that
spent none.

Potato 2.12.1 stores every evaluation (``contract_version``), also one that reached no
test and so spent no look (``service.py``, ``certify``): its ``status`` shows it. Accord's
ledger records such an evaluation as an ``evaluated`` event (``details``: ``contract``,
``look`` it was evaluated at, ``result``), so ``status`` shows it too, and a look is
still only a ``look`` line. A damaged latest line is not trusted, as for looks
(:meth:`~app.core.contracts.ledger.chain.Ledger.last_look`).
"""

from __future__ import annotations

import copy
from typing import Any

from app.core.contracts.ledger.chain import Ledger
from app.core.contracts.ledger.format import ACKNOWLEDGED_DAMAGE, Event, Look

EVALUATED = "evaluated"


def last_result(ledger: Ledger, contract_id: str, renamed_from: str | None = None
                ) -> dict[str, Any] | None:
    """The ``result`` of the contract's latest look or ``evaluated`` event, or ``None``."""
    ids = ledger.ids(contract_id, renamed_from)
    latest: dict[str, Any] | None = None
    verified = [(e, True) for e in ledger.entries] + [(e, False) for e in ledger.unverified]
    for entry, intact in verified:
        if isinstance(entry, Look) and entry.contract in ids:
            latest = entry.result if intact else None
        elif isinstance(entry, Event) and entry.event == EVALUATED \
                and entry.details.get("contract") in ids:
            result = entry.details.get("result")
            latest = result if intact and isinstance(result, dict) else None
        elif isinstance(entry, Event) and entry.event == ACKNOWLEDGED_DAMAGE and any(
                item.get("contract") in ids for item in entry.details.get("counted", [])):
            latest = None
    return copy.deepcopy(latest)


def record_evaluation(ledger: Ledger, contract_id: str, look: int, result: dict[str, Any]
                      ) -> None:
    """Record an evaluation that spent no look."""
    ledger.append_event(EVALUATED, {"contract": contract_id, "look": look, "result": result})
