"""Build what the contract kinds read (:class:`SchemaData`) from the project's files.

Only blind calibration labels are passed on (``contracts.md``: verification labels and
labels given outside engine requests never certify or estimate anything). Each
person's current label is the last version of their request (edits resolved in file
order); unanswered requests are left out. A person who answered two requests on the
same item and split counts once, with the label of the later request.

A plain label (a name or a number) is converted once per distinct value: a
100,000-item study repeats three labels 300,000 times.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import partial
from itertools import compress, repeat
from typing import Any

from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.kinds.base import HumanLabel, MachineLabel, SchemaData
from app.core.contracts.labels.machine_columns import coded_machine_labels
from app.core.formats.labeling.data import LabelingData, Split
from app.core.formats.labeling.reader import to_answer
from app.core.formats.labeling.table import PredictionTable
from app.core.model import Answer, Item, Scheme, Study
from app.core.slices import dict_in_slices, list_in_slices, sorted_strings


def schema_data(study: Study, labeling: LabelingData, config: EngineConfig, schema: str
                ) -> SchemaData:
    scheme = study.schemes[schema]
    table = labeling.predictions
    if not isinstance(table, PredictionTable):
        table = PredictionTable.of(table)
    tiers = config.tiers_for(schema)
    return SchemaData(
        scheme=scheme,
        tiers=tiers,
        items=sorted_strings(list_in_slices(study.items)),
        predictions=_machine_labels(scheme, table, tiers),
        dev=_labels(study, labeling, schema, Split.DEV),
        cert=_labels(study, labeling, schema, Split.CERT),
        dev_fraction=config.humans.dev_fraction,
        item_fields=_ItemFields(study.items),
        annotators=labeling.annotators,
    )


def _machine_labels(scheme: Scheme, table: PredictionTable, tiers: tuple[str, ...]
                    ) -> dict[str, Mapping[str, MachineLabel]]:
    """tier → item → machine label, in file order within each tier."""
    predictions: dict[str, dict[str, MachineLabel]] = {t: {} for t in tiers}
    answers: dict[tuple[type, Any], Answer] = {}

    def answer(raw: Any) -> Answer:
        kind = type(raw)
        if kind is str or kind is int or kind is float:  # converted once per distinct label
            found = answers.get((kind, raw))
            if found is None:
                found = answers[kind, raw] = to_answer(scheme, raw)
            return found
        return to_answer(scheme, raw)

    if table.coded is not None:  # read as codes: each tier a mapping over them
        coded = coded_machine_labels(table.coded, scheme.name, tiers,
                                     partial(to_answer, scheme))
        return dict(predictions) if coded is None else coded
    if table.probs is None and set(table.schema) == {scheme.name}:
        # The common file: one schema, no probs; columns straight into tuples, made in C.
        distinct = {(type(raw), raw) for raw in table.label}
        for kind, raw in distinct:
            if kind is str or kind is int or kind is float:
                answers[kind, raw] = to_answer(scheme, raw)
        if len(answers) == len(distinct):
            answers_column = map(answers.__getitem__,
                                 zip(map(type, table.label), table.label, strict=True))
            # Built in C a slice at a time (app.core.slices): one call over a million
            # rows held the interpreter lock for a second, freezing the GUI.
            machines = list_in_slices(map(partial(tuple.__new__, MachineLabel),
                                          zip(answers_column, table.confidence, repeat(None))))
            for tier in tiers:  # each tier's items in file order, selected in C
                predictions[tier] = dict_in_slices(compress(
                    zip(table.item, machines, strict=True), map(tier.__eq__, table.tier)))
            return dict(predictions)
    for item, tier, raw, confidence, probs in table.rows(scheme.name):
        if tier in predictions:  # a tier whose source does not label this schema: none
            predictions[tier][item] = MachineLabel(answer(raw), confidence, probs)
    return dict(predictions)


class _ItemFields(Mapping[str, Mapping[str, Any]]):
    """item → its data-file record, read through the study's items (a dict of a million
    records cost 0.6 s of every ``label status``; ``ppi``'s ``by`` reads a few)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, Item]) -> None:
        self._items = items

    def __getitem__(self, item: str) -> Mapping[str, Any]:
        return self._items[item].record

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def _labels(study: Study, labeling: LabelingData, schema: str, split: Split
            ) -> dict[str, tuple[HumanLabel, ...]]:
    scheme = study.schemes[schema]
    by_item: dict[str, dict[str, HumanLabel]] = {}
    for r in labeling.calibration_labels(schema, split):
        person = r.annotator or f"request:{r.request}"
        by_item.setdefault(r.item, {})[person] = HumanLabel(
            person, to_answer(scheme, r.label), float(r.pi if r.pi is not None else 1.0))
    return {item: tuple(by[p] for p in sorted(by)) for item, by in sorted(by_item.items())}


def schema_inputs(study: Study, labeling: LabelingData, config: EngineConfig
                  ) -> dict[str, SchemaData]:
    """One :class:`SchemaData` per schema that has a contract."""
    return {schema: schema_data(study, labeling, config, schema)
            for schema in dict.fromkeys(c.schema for c in config.contracts)}
