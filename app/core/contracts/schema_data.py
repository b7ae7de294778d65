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

from typing import Any

from app.core.contracts.config import EngineConfig
from app.core.contracts.inputs import HumanLabel, MachineLabel, SchemaData
from app.core.formats.labeling import to_answer
from app.core.formats.labeling_data import LabelingData, Split
from app.core.model import Answer, Study


def schema_data(study: Study, labeling: LabelingData, config: EngineConfig, schema: str
                ) -> SchemaData:
    scheme = study.schemes[schema]
    predictions: dict[str, dict[str, MachineLabel]] = {t: {} for t in config.tier_names}
    answers: dict[tuple[type, Any], Answer] = {}
    for p in labeling.predictions:
        if p.schema != schema:
            continue
        raw = p.label
        kind = type(raw)
        if kind is str or kind is int or kind is float:  # converted once per distinct label
            answer = answers.get((kind, raw))
            if answer is None:
                answer = answers[kind, raw] = to_answer(scheme, raw)
        else:
            answer = to_answer(scheme, raw)
        predictions[p.tier][p.item] = MachineLabel(answer, p.confidence, p.probs)
    return SchemaData(
        scheme=scheme,
        tiers=config.tier_names,
        items=tuple(sorted(study.items)),
        predictions=predictions,
        dev=_labels(study, labeling, schema, Split.DEV),
        cert=_labels(study, labeling, schema, Split.CERT),
        dev_fraction=config.humans.dev_fraction,
        item_fields={i: item.record for i, item in study.items.items()},
        annotators=labeling.annotators,
    )


def _labels(study: Study, labeling: LabelingData, schema: str, split: Split
            ) -> dict[str, tuple[HumanLabel, ...]]:
    scheme = study.schemes[schema]
    by_item: dict[str, dict[str, HumanLabel]] = {}
    for r in labeling.calibration_labels(schema, split):
        person = r.annotator or f"request:{r.request}"
        by_item.setdefault(r.item, {})[person] = HumanLabel(
            person, to_answer(scheme, r.label), float(r.pi if r.pi is not None else 1.0))
    return {item: tuple(by[p] for p in sorted(by)) for item, by in sorted(by_item.items())}
