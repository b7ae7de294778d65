"""What a contract kind of Potato's method reads, and what it returns.

The same information Potato 2.12.1 hands its contracts (``contracts/base.py``'s
``CalibrationView``), in Accord's own types: the schema's calibration items (every
answered calibration or certification request, dev and cert, with the item's truth,
split, inclusion probability, each tier's answer, the cascade's routed answer and every
person's label) and the population the claims are about (every item, with its tiers'
answers, routed answer and inclusion probability). The kinds never read files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class TierAnswer:
    """One tier's prediction on one item: its value, confidence (``raw_conf``), status
    (``ok``, ``abstain``, ``error``) and label distribution when the tier gives one."""

    value: Any
    confidence: float = 0.0
    status: str = "ok"
    distribution: Mapping[str, float] | None = None

    @property
    def answered(self) -> bool:
        return self.status == "ok" and self.value is not None


@dataclass(frozen=True, slots=True)
class CalibrationItem:
    """One item people labelled for the engine through a random request."""

    item: str
    truth: Any
    """The human label (``humans.truth``: the majority, ties to the first person)."""
    split: str
    """``dev`` or ``cert`` (``audit`` for audit requests)."""
    pi: float | None
    """The item's inclusion probability under its sampling design."""
    tiers: tuple[TierAnswer | None, ...] = ()
    """Each cascade tier's answer, in cascade order (``None``: the tier has none)."""
    output: TierAnswer | None = None
    """The cascade's routed answer for the item, computed as for any other item."""
    people: Mapping[str, Any] = field(default_factory=dict)
    """Every person's label on the item: person → label."""
    group: str | None = None
    """ppi's ``by`` value (or distributional's group) of the item."""
    stratum: str | None = None


@dataclass(frozen=True, slots=True)
class PopulationItem:
    """One item of the population the contract's claims are about."""

    item: str
    tiers: tuple[TierAnswer | None, ...] = ()
    group: str | None = None
    pi: float | None = None
    """Inclusion probability under the calibration design, drawn or not."""
    output: TierAnswer | None = None


def _equal(a: Any, b: Any) -> bool:
    return bool(a == b)


@dataclass(frozen=True)
class MethodView:
    """Everything one contract of one schema reads."""

    scheme: str
    labels: tuple[str, ...]
    tiers: tuple[str, ...]
    calibration: tuple[CalibrationItem, ...] = ()
    population: Sequence[PopulationItem] = ()
    """A tuple, or a :class:`~.population.table.PopulationTable` (the same items as columns)."""
    correct: Callable[[Any, Any], bool] = _equal
    """correct(machine value, human value): equality for one-of-N schemes."""
    class_of: Callable[[Any], str] = str
    """The class a per-class contract groups a machine value under."""
    output_complete: bool = False
    """Every population item has a routed output (estimators use outputs only then)."""
    item_fields: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """item → the fields a contract groups by (ppi's ``by``)."""
    person_groups: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """person → attributes (distributional's ``groups_by``)."""

    def split(self, name: str) -> tuple[CalibrationItem, ...]:
        return tuple(c for c in self.calibration if c.split == name)

    @property
    def n_cert(self) -> int:
        return len(self.split("cert"))


@dataclass(slots=True)
class MethodResult:
    """A kind's verdict in Potato's terms.

    ``state`` is one of ``insufficient``, ``met``, ``violated``, ``infeasible``;
    ``acceptance`` is tier → class (or ``"*"``) → threshold (``None``: accept nothing);
    ``ran`` is ``False`` when no test was reached (then no look is spent); ``alpha`` is
    the level the look tested at. ``accord`` holds what Accord records beside Potato's
    shape (JSON key ``accord``, only when not empty, never compared with Potato's record
    by the audit): ``tests`` (cell → every test of a sequence longer than the 40 Potato
    stores in ``metrics``) and ``class_labels`` (ppi: group → class → the labelled items
    of that class).
    """

    state: str
    acceptance: dict[str, dict[str, float | None]] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    projection: dict[str, Any] = field(default_factory=dict)
    look: int = 0
    alpha: float | None = None
    statement: str = ""
    notes: list[str] = field(default_factory=list)
    ran: bool = True
    accord: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = {"status": self.state, "acceptance": self.acceptance,
               "metrics": self.metrics, "projection": self.projection,
               "look": self.look, "alpha": self.alpha, "statement": self.statement,
               "notes": list(self.notes), "ran": self.ran}
        if self.accord:
            out["accord"] = self.accord
        return out


@dataclass(frozen=True, slots=True)
class MethodContract:
    """One contract's configuration as the method reads it (Potato's ``ContractConfig``
    keys): ``params`` holds the kind's keys as written, with Potato's defaults applied by
    each kind."""

    id: str
    kind: str
    schema: str
    confidence: float = 0.9
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def delta(self) -> float:
        return 1.0 - self.confidence
