"""What certifying costs: the level the next look of a contract spends, in numbers and words.

The GUI asks before it spends a look (issue 5, part 9: "a Certify action that says what
a look costs before spending it"). The cost is the next look's share of the contract's
error budget (``contracts.md``, Looks): look ``k = looks + 1`` spends
``(1 − confidence) · 6 / (π² k²)``
(:func:`~app.core.contracts.statistics.looks.look_level`), where ``looks`` is the
ledger's count for the contract (its old id's looks included, as
:class:`~app.core.contracts.status.ContractStatus` reports them).

Choices where the spec is silent:

- Potato's looks (``contracts.md``, "Agreeing with Potato 2.12.1", item 2): every kind
  that tests spends a look (selective_risk and the estimates ppi, distributional,
  no_worse_than_human); budget_first and threshold_legacy test nothing. Their cost is
  ``None`` and the sentence says they spend nothing.
- The sentence says "at most": certifying unchanged data returns the stored result and
  spends nothing (``contracts.md``, Looks), which the GUI cannot know before it runs.
- The confidence is the contract's ``confidence`` or the default 0.9.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.core.contracts.config.contract_specs import DEFAULT_CONFIDENCE
from app.core.contracts.kinds.registry import kind_info
from app.core.contracts.statistics.looks import look_level
from app.core.contracts.status import ContractStatus


@dataclass(frozen=True, slots=True)
class LookCost:
    contract: str
    kind: str
    look: int | None
    """The number of the look a test would be (``None``: this kind spends no look)."""
    level: float | None
    """The level that look spends (``None``: nothing)."""
    confidence: float
    spent: float
    """The level already spent by earlier looks."""

    @property
    def budget(self) -> float:
        """The contract's whole error budget, ``1 − confidence``."""
        return 1.0 - self.confidence

    def sentence(self) -> str:
        if self.level is None or self.look is None:
            return (f"'{self.contract}' ({self.kind}) tests nothing (a projection or an "
                    "untested rule): certifying it spends no look.")
        return (f"'{self.contract}': a test with new labels is look {self.look} and spends "
                f"level {self.level:.6f} of its error budget {self.budget:g} "
                f"({self.spent:.6f} spent so far). Unchanged labels return the stored "
                "result and spend nothing.")


def next_look_cost(status: ContractStatus) -> LookCost:
    """The cost of certifying ``status``'s contract now."""
    kind = str(status.spec.kind)
    raw = status.spec.params.get("confidence")
    confidence = DEFAULT_CONFIDENCE if raw is None else float(raw)
    if not kind_info(kind).spends_looks:
        return LookCost(status.spec.id, kind, None, None, confidence, status.level_spent)
    look = status.looks + 1
    return LookCost(status.spec.id, kind, look, look_level(look, confidence), confidence,
                    status.level_spent)


def certify_message(costs: Iterable[LookCost]) -> str:
    """The confirmation text for certifying one or several contracts."""
    costs = list(costs)
    if len(costs) == 1:
        return costs[0].sentence()
    spending = [c for c in costs if c.level is not None]
    lines = [c.sentence() for c in spending]
    free = [c.contract for c in costs if c.level is None]
    if free:
        lines.append(", ".join(f"'{name}'" for name in free)
                     + " (estimates or untested rules) spend no look.")
    return "\n\n".join(lines)
