"""The ``ppi`` kind's groups: each group's dev-labelled and unlabelled items.

:func:`split_groups` walks the population once per item in Python only where it must.
On 100,000 items a per-item loop cost ~0.3 s of ``label status``; the common case is
answered by columns instead: the machine labels and group keys gathered in C
(``map``/``compress``), the group order from ``dict.fromkeys`` (first item of each
group), each group's unlabelled labels selected in C, and only the few dev-labelled
items visited one by one. That column path is taken only when every delivered machine
label is exactly of the family's label type (``str``, or ``frozenset`` for multilabel)
and there are at most :data:`_MAX_COLUMN_GROUPS` groups (one selection pass per group);
otherwise :func:`_split_loop`, the plain loop, runs. Both give the same groups, lists,
orders and counts (``tests/core/test_ppi_split.py`` checks one against the other).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from typing import Any

from app.core.contracts.inputs import HumanLabel, MachineLabel, SchemaData
from app.core.model import Answer

_MAX_COLUMN_GROUPS = 64
_LABEL = operator.attrgetter("label")


@dataclass(frozen=True, slots=True)
class Labelled:
    """A dev-labelled item: the human label used, the machine's, and the item's ``pi``."""

    item: str
    y: Answer
    yhat: Answer
    pi: float


@dataclass(slots=True)
class Group:
    labelled: list[Labelled]
    unlabelled: list[Answer]
    size: int


@dataclass(slots=True)
class Split:
    """The groups in order of their first item, and what was left out."""

    groups: dict[str, Group]
    no_machine: int = 0
    no_field: int = 0
    bad_shape: int = 0


def split_groups(data: SchemaData, items: Sequence[str], machine: Mapping[str, MachineLabel],
                 by: str | None, label_type: type) -> Split:
    """The groups of ``items`` (the population, sorted) by field ``by`` (one ``"all"``
    group without it); an item with a label not of ``label_type`` is left out."""
    fast = _split_columns(data, items, machine, by, label_type)
    return fast if fast is not None else _split_loop(data, items, machine, by, label_type)


def _split_columns(data: SchemaData, items: Sequence[str], machine: Mapping[str, MachineLabel],
                   by: str | None, label_type: type) -> Split | None:
    dev = {item: labels[0] for item, labels in data.dev.items() if labels}
    machines = list(map(machine.get, items))
    has_machine = [m is not None for m in machines]
    out = Split({})
    out.no_machine = sum(map(dev.__contains__, compress(items, map(operator.not_,
                                                                   has_machine))))
    keys: list[str | None]
    if by is None:
        keys = list(repeat("all", len(items)))
    else:
        no_fields: Mapping[str, Any] = {}
        fields_get = data.item_fields.get
        values = [fields_get(item, no_fields).get(by) for item in items]
        keys = [None if value is None else str(value) for value in values]
        out.no_field = sum(map(operator.is_, compress(keys, has_machine), repeat(None)))
    eligible = [m and k is not None for m, k in zip(has_machine, keys, strict=True)]
    group_keys = dict.fromkeys(compress(keys, eligible))
    if len(group_keys) > _MAX_COLUMN_GROUPS:
        return None
    labels = list(map(_LABEL, compress(machines, eligible)))
    if not set(map(type, labels)) <= {label_type}:
        return None
    for key in group_keys:
        out.groups[str(key)] = Group([], [], 0)
    eligible_items = list(compress(items, eligible))
    eligible_keys = list(compress(keys, eligible))
    for item, key, label in zip(eligible_items, eligible_keys, labels, strict=True):
        if item not in dev:
            continue
        first: HumanLabel = dev[item]
        if not isinstance(first.label, label_type):
            out.bad_shape += 1
            continue
        group = out.groups[str(key)]
        group.size += 1
        group.labelled.append(Labelled(item, first.label, label, first.pi))
    unlabelled = [item not in dev for item in eligible_items]
    free_labels = list(compress(labels, unlabelled))
    if len(out.groups) == 1:
        only = next(iter(out.groups.values()))
        only.unlabelled = free_labels
        only.size += len(free_labels)
        return out
    free_keys = list(compress(eligible_keys, unlabelled))
    for key, group in out.groups.items():
        group.unlabelled = list(compress(free_labels, map(key.__eq__, free_keys)))
        group.size += len(group.unlabelled)
    return out


def _split_loop(data: SchemaData, items: Sequence[str], machine: Mapping[str, MachineLabel],
                by: str | None, label_type: type) -> Split:
    out = Split({})
    no_fields: Mapping[str, Any] = {}
    key = "all"
    for item in items:
        labels = data.dev.get(item)
        first = labels[0] if labels else None
        m = machine.get(item)
        if m is None:
            out.no_machine += first is not None
            continue
        if by is not None:
            value = data.item_fields.get(item, no_fields).get(by)
            if value is None:
                out.no_field += 1
                continue
            key = str(value)
        group = out.groups.get(key)
        if group is None:
            group = out.groups[key] = Group([], [], 0)
        label = m.label
        if not isinstance(label, label_type) or (
                first is not None and not isinstance(first.label, label_type)):
            out.bad_shape += 1
            continue
        group.size += 1
        if first is None:
            group.unlabelled.append(label)
        else:
            group.labelled.append(Labelled(item, first.label, label, first.pi))
    return out
