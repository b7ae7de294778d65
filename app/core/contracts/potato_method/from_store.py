"""The view Potato 2.12.1's contracts read, built from a project's ``engine.sqlite`` rows.

The same view Potato's ``Engine.view`` builds (``potato-engine.md`` §4, "Precise rules of
the Potato method" in ``contracts.md``):

- **tiers**: the schema's cascade (sources that label it); each tier's answer is its
  current prediction, abstentions and errors included (they are answers that route on);
- **population**: every item in ingestion order, with its ``pi`` for the schema from
  ``engine_item.meta_json`` (0.0 when missing, as Potato stores it);
- **calibration items**: every answered calibration or certification request of the
  schema, grouped by item in Potato's request order; the truth is the majority of the
  people (one label per person, their latest; ties to the first); split of the item's
  first request; pi the item's stored pi, else the first request's;
- **routed output**: the cascade's route of the latest stored ``selective_risk`` result on
  the schema (none yet: every tier keeps what it answers until it has 30 dev labels, so
  the first tier that answered); past the last tier, the last tier that answered. The
  output therefore depends on the order of certify calls, not only on the data, as in
  Potato; :func:`method_view` says so in its ``notes``.

The truth is ``humans.truth`` (:mod:`~app.core.contracts.potato_method.truth`: majority or
Dawid-Skene, an adjudicated label winning). Choices where Potato is silent for an outside
reader, each said in ``notes``: the stored route is taken from the latest
``selective_risk`` row of the schema whatever its cascade hash (Accord cannot recompute
Potato's source-version hashes); only single-label schemes (radio, select, likert) have a
family here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.core.contracts.config.contract_specs import DEFAULT_CONFIDENCE, ContractSpec
from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.potato_method.population.routing import (
    MIN_DEV_TO_ESCALATE,
    route_rows,
    threshold,
)
from app.core.contracts.potato_method.population.table import PopulationTable
from app.core.contracts.potato_method.truth import infer_truth, truth_notes
from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodContract,
    MethodView,
    TierAnswer,
)
from app.core.formats.potato.engine.answers import TierColumns
from app.core.formats.potato.engine.store import EngineStore
from app.core.model import Kind, Scheme
from app.core.row_index import positions_in

_SLACK = 1e-12


@dataclass(frozen=True)
class BuiltView:
    view: MethodView
    notes: list[str] = field(default_factory=list)


def single_label_family(scheme: Scheme, tolerance: float) -> tuple[Any, Any] | None:
    """(correct, classes) of a single-label scheme, ``None`` for the others."""
    labels = list(scheme.labels or scheme.scale)
    if scheme.kind is Kind.NOMINAL:
        def nominal(pred: Any, human: Any) -> bool:
            if pred is None or human is None:
                return False
            return (0.0 if str(pred) == str(human) else 1.0) <= tolerance + _SLACK
        return nominal, labels
    if scheme.kind is Kind.ORDINAL:
        def ordinal(pred: Any, human: Any) -> bool:
            if pred is None or human is None:
                return False
            try:
                a, b = labels.index(str(pred)), labels.index(str(human))
            except ValueError:
                return tolerance + _SLACK >= 1.0
            return abs(a - b) / max(1, len(labels) - 1) <= tolerance + _SLACK
        return ordinal, labels
    return None


def route_stop(tiers: Sequence[str], answers: Sequence[TierAnswer | None],
               route: Mapping[str, Any], cells: Mapping[str, Any], per_class: bool
               ) -> tuple[int | None, bool]:
    """Where the cascade stops for one item: (tier index or ``None``, complete)."""
    last: int | None = None
    for j, tier in enumerate(tiers):
        answer = answers[j] if j < len(answers) else None
        if answer is None:
            return last, False
        if not answer.answered:
            continue
        last = j
        key = str(answer.value) if per_class else "*"
        limit = threshold(route, tier, key)
        if limit is None:
            n_dev = int((cells.get(f"{tier}:{key}") or {}).get("n_dev", 0) or 0)
            if n_dev < MIN_DEV_TO_ESCALATE:
                return j, True
            continue
        if answer.confidence >= limit:
            return j, True
    return last, True


def method_view(store: EngineStore, config: EngineConfig, scheme: Scheme,
                before: int | None = None,
                route: tuple[dict[str, Any], dict[str, Any]] | None = None,
                person_groups: Mapping[str, Mapping[str, str]] | None = None
                ) -> BuiltView | None:
    """Potato's view of ``scheme`` in ``store``; ``None`` for a scheme without a
    single-label family here. ``before``: build it as Potato did before it stored
    ``contract_version`` row ``before`` (the route is the one stored before that row).
    ``route``: (route, cells) of a later selective_risk result (Accord's own look), used
    instead of Potato's stored one. ``person_groups``: the annotators' prestudy answers
    (distributional's ``groups_by``), which Potato's command line never reads."""
    specs = config.contracts_for(scheme.name)
    tolerances = [float(c.params["tolerance"]) for c in specs
                  if "tolerance" in c.written and c.params.get("tolerance") is not None]
    family = single_label_family(scheme, min(tolerances) if tolerances else 0.0)
    if family is None:
        return None
    correct, labels = family
    notes: list[str] = []
    tiers = config.tiers_for(scheme.name)
    stored = store.rows.answers.by_schema.get(scheme.name, {})
    columns = [stored.get(t) for t in tiers]
    per_class = any(str(c.kind) == "selective_risk" and c.params.get("per_class")
                    for c in specs)
    if route is None:
        route_map, cells = _stored_route(store, config, scheme.name, notes, before)
    else:
        route_map, cells = route
        notes.append("the cascade's routed output follows Accord's latest selective_risk "
                     "look on this schema")
    items = store.rows.items
    rows = _rows_of(columns, items)
    output, complete_all = route_rows(tiers, columns, rows, route_map, cells, per_class)
    lookup = store.meta.code_of  # its keys are the items when no item is there twice
    population = PopulationTable(items, columns, rows, output,
                                 store.meta.pi_column(items, scheme.name, 0.0),
                                 store.meta.field_column,
                                 lookup.keys() if len(lookup) == len(items) else None)

    def slots(item: str) -> tuple[TierAnswer | None, ...]:
        return tuple(population.answer(j, -1 if c is None else c.row_of.get(item, -1))
                     for j, c in enumerate(columns))

    def output_of(item: str) -> TierAnswer | None:
        answers = slots(item)
        stop, _ = route_stop(tiers, answers, route_map, cells, per_class)
        return answers[stop] if stop is not None else None

    grouped: dict[str, list[Any]] = {}
    for request in store.rows.done:
        if request.schema == scheme.name:
            grouped.setdefault(request.item, []).append(request)
    calibration = []
    for requests in grouped.values():
        requests.sort(key=lambda r: r.id)
    people_by_item = {item: {str(r.user or r.id): r.label for r in requests}
                      for item, requests in grouped.items()}
    adjudicated = store.records.adjudicated.get(scheme.name, {})
    truths = infer_truth(people_by_item, config.humans.truth, adjudicated)
    for item, requests in grouped.items():
        pi = store.meta.pi(item, scheme.name, requests[0].pi)
        calibration.append(CalibrationItem(
            item, truths[item], requests[0].split, pi, slots(item), output_of(item),
            {str(r.user): r.label for r in requests if r.user is not None}))
    notes.extend(truth_notes(config.humans.truth, adjudicated, people_by_item))
    by = any(str(c.kind) == "ppi" and c.params.get("by") for c in specs)
    grouped_by = [str(c.params["groups_by"]) for c in specs
                  if str(c.kind) == "distributional" and c.params.get("groups_by")]
    if grouped_by and person_groups is not None:
        notes.append("groups_by reads the annotators' prestudy answers from their "
                     "user_state.json, as Potato 2.12.1's server does; Potato's command "
                     "line never reads them")
    view = MethodView(scheme.name, tuple(labels), tiers, tuple(calibration),
                      population, correct, str, complete_all,
                      store.meta.fields_view() if by else {},
                      {p: dict(a) for p, a in (person_groups or {}).items()})
    return BuiltView(view, notes)


def _rows_of(columns: Sequence[TierColumns | None], items: Sequence[str]) -> np.ndarray:
    """Each item's row in each tier's columns (``-1``: the tier has no answer for it)."""
    rows = np.full((len(columns), len(items)), -1, np.int64)
    done: list[tuple[TierColumns, int]] = []
    for j, column in enumerate(columns):
        if column is None:
            continue
        same = next((k for other, k in done if other.items == column.items), None)
        if same is not None:  # the same items in the same rows (the common cascade)
            rows[j] = rows[same]
            continue
        rows[j] = positions_in(column.row_of, items)
        done.append((column, j))
    return rows


def _stored_route(store: EngineStore, config: EngineConfig, schema: str, notes: list[str],
                  before: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    for spec in config.contracts_for(schema):
        if str(spec.kind) != "selective_risk":
            continue
        rows = [r for r in store.records.history if r.contract_id == spec.id
                and (before is None or r.version_id < before)]
        if not rows:
            continue
        record = rows[-1]
        since = store.records.since.get(spec.id)
        if before is None and since is not None and since.new_versions \
                and record.version_id == store.records.contracts[spec.id].version_id:
            notes.append(f"a source labelled '{schema}' with a new version after Potato "
                         f"stored '{spec.id}' (contract_version {record.version_id}): to "
                         "Potato that is another cascade, with no rule yet, so every item "
                         "stays with the first tier that answered")
            return {}, {}
        metrics = record.result.get("metrics") or {}
        notes.append(f"the cascade's routed output follows the rule Potato last stored for "
                     f"'{spec.id}' (contract_version {record.version_id}), so it depends on "
                     "the order of certify calls, as in Potato")
        return dict(metrics.get("route") or {}), dict(metrics.get("cells") or {})
    return {}, {}


def method_contract(spec: ContractSpec) -> MethodContract:
    """A configured contract as Potato's method reads it: the keys as written (Potato's
    own defaults apply to the rest), the confidence with its default."""
    params = {k: v for k, v in spec.params.items()
              if k in spec.written and k != "confidence" and v is not None}
    raw = spec.params.get("confidence")
    confidence = DEFAULT_CONFIDENCE if raw is None else float(raw)
    return MethodContract(spec.id, str(spec.kind), spec.schema, confidence, params)
