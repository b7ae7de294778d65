"""The view Potato 2.12.1's contracts read, built from Accord's own ``labeling/`` files.

The same view :mod:`~app.core.contracts.potato_method.from_store` builds from a Potato
project's ``engine.sqlite``, so that an Accord JSON Lines project is evaluated with the
same statistics (``contracts.md``, "Agreeing with Potato 2.12.1", item 4: two stores,
one model):

- **tiers**: the schema's cascade; each tier's answer is its line in
  ``labeling/predictions.jsonl`` (``probs`` is the label distribution);
- **population**: every item of the study in data-file order. Its ``pi`` is the
  inclusion probability of its first calibration request on the schema, drawn or not
  answered yet; an item never drawn has no known ``pi`` (``None``), so ppi falls back to
  the Horvitz-Thompson difference estimator unless every item was drawn, the switch
  Potato makes;
- **calibration items**: every answered calibration request of the schema (dev and
  cert), grouped by item in file order; one label per person (their latest: the last
  version of their last request); the truth is ``humans.truth`` (majority, ties to the
  first person, or Dawid-Skene: :mod:`~app.core.contracts.potato_method.truth`);
  split and ``pi`` of the item's first request (a dev item's ``pi`` is not multiplied by
  ``dev_fraction``). Verification requests are not calibration items;
- **routed output**: the cascade's route of Accord's latest ``selective_risk`` look on the
  schema (none yet: the first tier that answered), as for a Potato project.

Families (Potato's ``families.py`` table, with Accord's own loss code for the
structured ones, ``app.core.contracts.labels.losses``): categorical and ordinal compare
label names (ordinal by scale position over points − 1); numeric ``|a − b| / range``;
multilabel 1 − Jaccard; spans, regions, segments and 3D objects 1 − the agreement report's
item score; traces the share of shared steps labelled differently. ``correct`` is loss ≤
tolerance (+1e-12); the tolerance is the smallest one the schema's contracts write, else
Potato's default for the family: 0 for categorical, ordinal, multilabel and traces, 0.05
for numeric, 0.5 for the geometric families (spans have no Potato family: 0.5, like the
other geometric ones). Only the single-label families group by class; the others are one
cell ``*``, as Potato's ``class_of`` does. A structured truth with several people is the
first person's answer unless a later person gave the identical answer more often (no
Dawid-Skene: structured answers have no classes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.labels.families import (
    SINGLE_LABEL,
    Family,
    default_tolerance,
    loss_family,
)
from app.core.contracts.labels.losses import loss
from app.core.contracts.potato_method.from_store import (
    BuiltView,
    route_stop,
    single_label_family,
)
from app.core.contracts.potato_method.truth import infer_truth, truth_notes
from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodView,
    PopulationItem,
    TierAnswer,
)
from app.core.formats.labeling.data import LabelingData, Request, RequestKind
from app.core.formats.labeling.reader import to_answer
from app.core.formats.labeling.table import PredictionTable
from app.core.model import Answer, Scheme, Study

_SLACK = 1e-12


def _tolerance(config: EngineConfig, scheme: Scheme) -> float:
    written = [float(c.params["tolerance"]) for c in config.contracts_for(scheme.name)
               if "tolerance" in c.written and c.params.get("tolerance") is not None]
    return min(written) if written else default_tolerance(scheme)


def _correct(scheme: Scheme, tolerance: float
             ) -> Callable[[Any, Any], bool]:
    single = single_label_family(scheme, tolerance)
    if single is not None:
        same: Callable[[Any, Any], bool] = single[0]
        return same

    def correct(machine: Any, human: Any) -> bool:
        if machine is None or human is None:
            return False
        value = loss(scheme, machine, human)
        return value is not None and value <= tolerance + _SLACK
    return correct


def _answers(scheme: Scheme, labeling: LabelingData, tiers: tuple[str, ...]
             ) -> dict[str, list[TierAnswer | None]]:
    """item → each tier's answer (in cascade order) on ``scheme``."""
    table = labeling.predictions
    if not isinstance(table, PredictionTable):
        table = PredictionTable.of(table)
    index = {t: j for j, t in enumerate(tiers)}
    converted: dict[tuple[type, Any], Answer] = {}
    out: dict[str, list[TierAnswer | None]] = {}
    for item, tier, raw, confidence, probs in table.rows(scheme.name):
        j = index.get(tier)
        if j is None:
            continue
        if isinstance(raw, str | int | float):
            value = converted.get((type(raw), raw))
            if value is None:
                value = converted[type(raw), raw] = to_answer(scheme, raw)
        else:
            value = None if raw is None else to_answer(scheme, raw)
        slots = out.setdefault(item, [None] * len(tiers))
        slots[j] = TierAnswer(value, float(confidence), "ok" if value is not None
                              else "abstain", probs)
    return out


def _requests(labeling: LabelingData, schema: str) -> dict[str, list[Request]]:
    """item → its calibration requests on ``schema`` in file order (answered or not)."""
    out: dict[str, list[Request]] = {}
    for r in labeling.requests_for(schema, RequestKind.CALIBRATION):
        out.setdefault(r.item, []).append(r)
    return out


def labeling_view(study: Study, labeling: LabelingData, config: EngineConfig, scheme: Scheme,
                  route: tuple[dict[str, Any], dict[str, Any]] | None = None
                  ) -> BuiltView | None:
    """Potato's view of ``scheme`` from ``labeling``; ``None`` for a scheme with no loss
    family. ``route``: (route, cells) of Accord's latest selective_risk look."""
    family = loss_family(scheme)
    if family is None:
        return None
    tolerance = _tolerance(config, scheme)
    single = family in SINGLE_LABEL
    classes = family in (Family.CATEGORICAL, Family.ORDINAL)
    tiers = config.tiers_for(scheme.name)
    answers = _answers(scheme, labeling, tiers)
    specs = config.contracts_for(scheme.name)
    per_class = classes and any(str(c.kind) == "selective_risk" and c.params.get("per_class")
                               for c in specs)
    notes: list[str] = []
    if route is None:
        route_map: dict[str, Any] = {}
        cells: dict[str, Any] = {}
    else:
        route_map, cells = route
        notes.append("the cascade's routed output follows Accord's latest selective_risk "
                     "look on this schema, so it depends on the order of certify calls, as "
                     "in Potato")
    empty: list[TierAnswer | None] = [None] * len(tiers)

    def output(item: str) -> tuple[TierAnswer | None, bool]:
        slots = answers.get(item, empty)
        stop, complete = route_stop(tiers, slots, route_map, cells, per_class)
        return (slots[stop] if stop is not None else None), complete

    requests = _requests(labeling, scheme.name)
    population: list[PopulationItem] = []
    complete_all = True
    for item in study.items:
        out, complete = output(item)
        complete_all = complete_all and complete
        drawn = requests.get(item)
        population.append(PopulationItem(item, tuple(answers.get(item, empty)), None,
                                         drawn[0].pi if drawn else None, out))
    people_by_item: dict[str, dict[str, Any]] = {}
    for item, drawn in requests.items():
        answered = [r for r in drawn if r.answered]
        if answered:
            people_by_item[item] = {r.annotator or f"request:{r.request}":
                                    to_answer(scheme, r.label) for r in answered}
    truths = infer_truth(people_by_item, config.humans.truth)
    calibration = [CalibrationItem(
        item, truths[item], str(requests[item][0].split or "dev"), requests[item][0].pi,
        tuple(answers.get(item, empty)), output(item)[0], people)
        for item, people in people_by_item.items()]
    notes.extend(truth_notes(config.humans.truth, {}, people_by_item))
    by = [str(c.params["by"]) for c in specs if str(c.kind) == "ppi" and c.params.get("by")]
    fields = {i: {f: str(it.record[f]) for f in by if it.record.get(f) is not None}
              for i, it in study.items.items()} if by else {}
    groups = {person: {k: str(v) for k, v in answers_.items() if v is not None}
              for person, answers_ in labeling.annotators.items()}
    labels = tuple(scheme.labels or scheme.scale) if single else ()
    view = MethodView(scheme.name, labels, tiers, tuple(calibration), tuple(population),
                      _correct(scheme, tolerance),
                      str if classes else (lambda _value: "*"), complete_all, fields, groups)
    return BuiltView(view, notes)
