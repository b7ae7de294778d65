"""One contract's status as the engine reports it (state, looks, result, notes, rule).

``state`` is one of Potato 2.12.1's five: ``insufficient``, ``met``, ``violated``,
``infeasible``, ``stale``. ``retest_available`` is Potato's flag on a certify that
returned the stored result because only dev labels arrived and dev now chooses another
rule (``--retest`` tests it); the JSON carries the key only then (``cli.md`` allows
added names), as Potato's result does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec


@dataclass(slots=True)
class ContractStatus:
    spec: ContractSpec
    state: str
    looks: int
    level_spent: float
    result: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    accepts: dict[str, Any] | None = None
    retest_available: bool = False

    def to_json(self) -> dict[str, Any]:
        out = {"kind": str(self.spec.kind), "schema": self.spec.schema, "state": self.state,
               "looks": self.looks, "level_spent": self.level_spent,
               "result": self.result, "notes": list(self.notes)}
        if self.retest_available:
            out["retest_available"] = True
        return out
