"""The machine labels the estimate kinds read, and the items and classes they count.

The four estimate kinds (``ppi``, ``distributional``, ``no_worse_than_human``,
``budget_first``) read one machine label per item: the label the cascade delivers when
the engine passes it, else the first tier's (cheapest first) that predicts the item, as
a cascade accepting everything would deliver (:func:`delivered_labels`). They count the
same population (:func:`population`) and the same classes (:func:`label_classes`).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from itertools import repeat

from app.core.contracts.kinds.base import MachineLabel, SchemaData
from app.core.model import Answer, Scheme


def delivered_labels(data: SchemaData) -> dict[str, tuple[str, MachineLabel]]:
    """Item → (tier, machine label) of the first tier, cheapest first, that predicts it.

    This is what the cascade delivers when every tier accepts everything; the estimate
    kinds use it unless the engine passes the labels it actually delivered.
    """
    out: dict[str, tuple[str, MachineLabel]] = {}
    for tier in data.tiers:
        labels = data.predictions.get(tier, {})
        if not out:  # the first tier with predictions: every item is new, built in C
            out = dict(zip(labels, zip(repeat(tier), labels.values(), strict=False),
                           strict=True))
            continue
        new = labels.keys() - out.keys()  # usually none: every tier predicts every item
        if new:
            out.update((item, (tier, label)) for item, label in labels.items() if item in new)
    return out


def machine_labels(data: SchemaData, delivered: Mapping[str, MachineLabel] | None = None
                   ) -> dict[str, MachineLabel]:
    """Item → the machine label the estimates read (``delivered`` when given).

    Four estimate kinds ask for the same schema's labels in one report: the last answer
    is kept (keyed by the very :class:`SchemaData` object, which is frozen) and copied.
    """
    if delivered is not None:
        return dict(delivered)
    if _LAST_MACHINE and _LAST_MACHINE[0][0] is data:
        return dict(_LAST_MACHINE[0][1])
    delivered_by = delivered_labels(data)
    labels = dict(zip(delivered_by, map(operator.itemgetter(1), delivered_by.values()),
                      strict=True))
    _LAST_MACHINE[:] = [(data, labels)]
    return dict(labels)


_LAST_MACHINE: list[tuple[SchemaData, dict[str, MachineLabel]]] = []


def population(data: SchemaData) -> list[str]:
    """Every item of the schema, dev items listed by the engine included, sorted.

    ``data.items`` is normally sorted already and holds every dev item; that is checked
    in C (pairwise ``<``, a subset test) and spares sorting 100,000 ids, four times per
    ``label status``."""
    items = data.items
    if all(map(operator.lt, items, items[1:])) and data.dev.keys() <= set(items):
        return list(items)
    return sorted(set(items) | set(data.dev))


def dev_label_count(data: SchemaData) -> int:
    """Number of dev labels (one per person and item)."""
    return sum(len(labels) for labels in data.dev.values())


def label_classes(scheme: Scheme, observed: Sequence[Answer]) -> list[str]:
    """The scheme's labels (or scale), then any other label seen, sorted."""
    classes = list(scheme.labels or scheme.scale)
    known = set(classes)
    extra: set[str] = set()
    try:  # 100,000 machine labels are a handful of distinct answers
        distinct: Sequence[Answer] | set[Answer] = set(observed)
    except TypeError:  # an unhashable answer: look at every one
        distinct = observed
    for answer in distinct:
        names = answer if isinstance(answer, frozenset) else {answer}
        extra.update(str(n) for n in names if isinstance(n, str) and n not in known)
    return classes + sorted(extra)
