"""The people panels in the calibration labels: what the agreement section must count.

The agreement report reads the annotation files (``annotation_output/*/``) and the
people of the engine's ``engine.sqlite`` (their blind labels:
:mod:`app.core.formats.potato.engine.people`); a labeling engine asks several people to
label the same calibration item (Potato's ``distribution_k``, ``overlap_k``), and a
``distributional`` contract compares the machine with exactly those panels. The panels
are counted here as the contracts read them (dev and cert calibration labels, three
people or more), beside the agreement report's coefficient over every item two people
answered: on an engine-only project the two agree where the items are the same
(``tests/core/test_engine_people.py``), and the panels say what the contracts relied
on where the two differ (items two people labelled are not panels; dev and cert are
pooled here).

:func:`scheme_panels` counts, per scheme with contracts, the calibration items (dev and
cert alike) labelled by at least :data:`PANEL_PEOPLE` people, the panel sizes, the
people, and Krippendorff's α over those panels: the same coefficient the agreement
report gives for coded units, computed on the labels the contracts read.

Choices where the spec is silent:

- A panel is an item with :data:`PANEL_PEOPLE` (3) or more people, the smallest panel
  Potato's ``distributional`` and ``no_worse_than_human`` methods accept; an item two
  people labelled is not a panel.
- α is nominal, or ordinal over the scheme's scale for ordinal schemes; for answers
  that are not one label (sets, objects) it is not computed, with that sentence.
- A person's label is their current calibration label (edits resolved, dev and cert
  pooled): one value per person per item, as the contracts read it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

from app.core.agreement.categorical.alpha import alpha, nominal_metric, ordinal_metric
from app.core.contracts.kinds.base import SchemaData
from app.core.model import Kind

PANEL_PEOPLE = 3
NOT_CODED = (
    "the answers are not single labels, so Krippendorff's α over coded units "
    "is not computed on these panels"
)


def _people(data: SchemaData) -> dict[str, dict[str, Any]]:
    """item → person → label over the dev and cert calibration labels."""
    out: dict[str, dict[str, Any]] = {}
    for split in (data.dev, data.cert):
        for item, labels in split.items():
            row = out.setdefault(item, {})
            for human in labels:
                row[human.annotator] = human.label
    return out


def _alpha(
    data: SchemaData, panels: Iterable[dict[str, Any]]
) -> tuple[float | None, str | None, str]:
    """(α, why undefined, metric name) over the panels' labels."""
    rows = list(panels)
    if not all(isinstance(v, str) for row in rows for v in row.values()):
        return None, NOT_CODED, "nominal"
    scheme = data.scheme
    ordinal = scheme.kind == Kind.ORDINAL and bool(scheme.scale)
    values = list(scheme.scale if ordinal else scheme.labels)
    for row in rows:
        values.extend(v for v in row.values() if v not in values)
    index = {v: i for i, v in enumerate(values)}
    counts = np.zeros((len(rows), max(1, len(values))), dtype=np.int64)
    for u, row in enumerate(rows):
        for v in row.values():
            counts[u, index[v]] += 1
    coefficient = alpha(counts, ordinal_metric if ordinal else nominal_metric)
    return coefficient.value, coefficient.reason, "ordinal" if ordinal else "nominal"


def scheme_panels(data: SchemaData) -> dict[str, Any] | None:
    """The panels of one schema's calibration labels, or ``None`` when it has none.

    ``{"n_items", "sizes": {"5": 50}, "n_people", "n_labels", "alpha", "alpha_undefined",
    "alpha_metric"}``; ``sizes`` maps a panel size (as text, a JSON key) to its items.
    """
    people = _people(data)
    panels = [row for _, row in sorted(people.items()) if len(row) >= PANEL_PEOPLE]
    if not panels:
        return None
    sizes = Counter(len(row) for row in panels)
    value, reason, metric = _alpha(data, panels)
    return {
        "n_items": len(panels),
        "sizes": {str(k): sizes[k] for k in sorted(sizes)},
        "n_people": len({p for row in panels for p in row}),
        "n_labels": sum(len(row) for row in panels),
        "alpha": value,
        "alpha_undefined": reason,
        "alpha_metric": metric,
    }
