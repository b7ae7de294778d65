"""One schema's machine and human labels, in Accord's answer types (``contracts.md``).

:func:`~app.core.contracts.labels.schema_data.schema_data` builds one :class:`SchemaData`
per schema from the study, the labeling files and the configuration. The contracts
themselves are evaluated on Potato's view (:mod:`app.core.contracts.potato_method`);
this one is what the label delivery, the export and the contracts panel's
error-coverage curves read.

Only **blind calibration** labels appear here (``dev`` and ``cert``); verification and
outside labels never certify or estimate anything, so the engine does not pass them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from app.core.model import Answer, Scheme


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
    items: Sequence[str]
    """The schema's population: every item of the study, sorted (a list, not copied into
    a tuple: a million ids copied in one call held the interpreter lock 15 ms)."""
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
