"""What a contract kind reads and what it returns: the interface between the engine and
the six kinds (``contracts.md``).

The engine (``app.core.contracts.engine``) builds one :class:`SchemaData` per schema from
the study, the labeling files and the configuration; each kind is a pure function of it
(plus the contract's parameters and, for tests, the look's level) returning a
:class:`KindOutcome`. Kinds never read files, never touch the ledger and never decide
what a look costs: the engine does.

Only **blind calibration** labels appear here (``dev`` and ``cert``); verification and
outside labels never certify or estimate anything, so the engine does not pass them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from app.core.model import Answer, Scheme

STATES = ("pending", "insufficient", "met", "unmet", "infeasible")


class MachineLabel(NamedTuple):
    """One tier's prediction on one item: the label (a model answer), its confidence in
    [0, 1] and, where the source gives them, label → probability.

    A named tuple rather than a frozen dataclass: :func:`schema_data` makes 300,000 of
    them for a 100,000-item study, and a tuple is made in C (``tuple.__new__`` mapped
    over the columns) at a tenth of a dataclass's ``__init__``. Immutable, compared
    field by field, as before.
    """

    label: Answer
    confidence: float
    probs: Mapping[str, float] | None = None


@dataclass(frozen=True, slots=True)
class HumanLabel:
    """A person's current calibration label on an item (edits resolved: latest wins)."""

    annotator: str
    label: Answer
    pi: float
    """The inclusion probability recorded when the item was drawn (the dev/cert split is
    a second draw: a dev item's inclusion probability is ``pi · dev_fraction``)."""


@dataclass(frozen=True, slots=True)
class SchemaData:
    """Everything the kinds may read about one schema."""

    scheme: Scheme
    tiers: tuple[str, ...]
    """The cascade, cheapest first; the last tier is tested by fixed-sequence LTT."""
    items: tuple[str, ...]
    """The schema's population: every item of the study, sorted."""
    predictions: Mapping[str, Mapping[str, MachineLabel]]
    """tier → item → machine label."""
    dev: Mapping[str, tuple[HumanLabel, ...]]
    """item → its dev calibration labels (one per person who labelled it)."""
    cert: Mapping[str, tuple[HumanLabel, ...]]
    """item → its cert calibration labels."""
    dev_fraction: float
    item_fields: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """item → the data-file record (``ppi``'s ``by`` reads a field here)."""
    annotators: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """annotator → prestudy answers (``distributional``'s ``groups_by``)."""


@dataclass(slots=True)
class KindOutcome:
    """A kind's verdict: the state, the ``result`` object of ``cli.md`` and notes.

    ``tested`` says the outcome ran a test that spends a look (``selective_risk`` only;
    estimates never spend). ``accepts`` is the rule in a form the engine applies to
    deliver machine labels: tier → threshold, or tier → class → threshold with
    ``per_class`` (``None``: accepts nothing). ``data`` is what was tested, for the
    ledger's data hash (the same data and rule return the stored result).
    """

    state: str
    result: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    tested: bool = False
    accepts: dict[str, Any] | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.state not in STATES:
            raise ValueError(f"state must be one of {STATES}, got {self.state!r}")


@dataclass(frozen=True, slots=True)
class KindContext:
    """What the engine hands a kind beyond its contract and data, the same for all six.

    ``look`` is the look a test would spend (``selective_risk`` reads it; the others
    never spend one); ``delivered`` is item → the machine label the cascade delivers
    under the gating contracts' current rules (``None``: nothing delivered yet, the first
    tier with a prediction stands in; only the kinds whose
    :attr:`~app.core.contracts.kinds.registry.KindInfo.reads_delivered` is set read it);
    ``price_usd`` is one crowd label's price (``budget_first``'s ``human_usd``).
    """

    look: int = 1
    delivered: Mapping[str, MachineLabel] | None = None
    price_usd: float | None = None
