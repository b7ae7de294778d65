"""One block of coefficients under Potato's metric names, with its counts.

Every kind of this package family (numbers, likert extras, rankings, matrix rows, packed
sets) returns a :class:`Block`: the coefficients in Potato's order, each a
:class:`~app.core.agreement.coefficient.Coefficient` (a value, or ``None`` with the
sentence that says why), and the counts Potato prints beside them (``n_items``,
``n_aligned_items``, ``n_annotators``). ``to_json`` gives Potato's flat shape plus an
``undefined`` map of reasons, so a report never prints NaN and never hides why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.core.agreement.coefficient import Coefficient


@dataclass(frozen=True, slots=True)
class Block:
    metrics: dict[str, Coefficient]
    counts: dict[str, int] = field(default_factory=dict)

    def value(self, name: str) -> float | None:
        return self.metrics[name].value

    def reasons(self) -> dict[str, str]:
        return {k: c.reason for k, c in self.metrics.items() if c.reason is not None}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: c.value for k, c in self.metrics.items()}
        out.update(self.counts)
        if reasons := self.reasons():
            out["undefined"] = reasons
        return out
