"""One contract's status as the engine reports it (state, looks, result, notes, rule).

``state`` is one of Potato 2.12.1's five: ``insufficient``, ``met``, ``violated``,
``infeasible``, ``stale``.
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

    def to_json(self) -> dict[str, Any]:
        return {"kind": str(self.spec.kind), "schema": self.spec.schema, "state": self.state,
                "looks": self.looks, "level_spent": self.level_spent,
                "result": self.result, "notes": list(self.notes)}
