"""Which machine labels are delivered, and every item's export status (``contracts.md``).

**Acceptance.** A machine label is accepted only if every ``selective_risk`` and
``threshold_legacy`` contract on its schema is met and accepts it. A contract not met
blocks acceptance on its schema (never skipped; the report names it). The label comes
from the first cascade tier whose prediction every such contract accepts. Labels
accepted under a ``selective_risk`` rule are certified (``accepted``); under
``threshold_legacy`` contracts only, uncertified (``accepted_uncertified``). A schema
with neither kind of contract accepts nothing: no claim covers its machine labels.

**Export statuses**, one per item and schema with contracts, are Potato 2.12.1's
(:func:`export_rows`): ``accepted`` (a human label, or a certified machine label),
``accepted_uncertified``, ``pending``, each with its ``label_origin``.

**Training data** (``export --training``): verification labels and the ordinary Potato
output, which never certify or estimate anything, one row per label with its origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.kinds.base import MachineLabel, SchemaData
from app.core.contracts.kinds.registry import GATING, kind_info
from app.core.contracts.status import ContractStatus
from app.core.formats.labeling.data import LabelingData
from app.core.model import Study


@dataclass(frozen=True, slots=True)
class Delivered:
    tier: str
    label: Any
    certified: bool


def _accepts(rule: Mapping[str, Any], tier: str, machine: MachineLabel) -> bool:
    threshold = rule.get(tier)
    if threshold is None:
        return False
    if isinstance(threshold, Mapping):  # per class
        threshold = threshold.get(str(machine.label))
        if threshold is None:
            return False
    return machine.confidence >= float(threshold)


def blocking(config: EngineConfig, statuses: Mapping[str, ContractStatus], schema: str
             ) -> list[str]:
    """Ids of the gating contracts on ``schema`` that are not met."""
    return [c.id for c in config.contracts_for(schema)
            if c.kind in GATING and statuses[c.id].state != "met"]


def _routed(config: EngineConfig, statuses: Mapping[str, ContractStatus], data: SchemaData,
            humans: set[str]) -> tuple[dict[str, tuple[str, MachineLabel]], bool]:
    """(item → (tier, machine label) the cascade delivers, whether certified); empty when
    a gating contract blocks the schema or the schema has none.

    The cascade is routed once for every item (:func:`_routed_all`, remembered for the
    last schema data and gate states) and the items with a human label are dropped:
    a report asks for the same routing more than once (the accepted counts, the export,
    the certificate), and an item's route does not depend on the other items.
    """
    key = [(c.id, statuses[c.id].state, statuses[c.id].accepts)
           for c in config.contracts_for(data.scheme.name) if c.kind in GATING]
    last = _LAST_ROUTE[0] if _LAST_ROUTE else None
    if last is not None and last[0] is data and last[1] == key:
        routed, certified = last[2], last[3]
    else:
        routed, certified = _routed_all(config, statuses, data)
        _LAST_ROUTE[:] = [(data, key, routed, certified)]
    if not humans:
        return dict(routed), certified
    return {item: route for item, route in routed.items() if item not in humans}, certified


_LAST_ROUTE: list[tuple[SchemaData, list[Any], dict[str, tuple[str, MachineLabel]], bool]] = []


def _routed_all(config: EngineConfig, statuses: Mapping[str, ContractStatus],
                data: SchemaData) -> tuple[dict[str, tuple[str, MachineLabel]], bool]:
    gates = [statuses[c.id] for c in config.contracts_for(data.scheme.name) if c.kind in GATING]
    if not gates or blocking(config, statuses, data.scheme.name):
        return {}, False
    certified = any(kind_info(g.spec.kind).certifies for g in gates)
    if any(g.accepts is None for g in gates):
        return {}, certified
    rules = [g.accepts for g in gates if g.accepts is not None]
    # Per tier: the one threshold every gate applies (plain rules), or None when a gate is
    # per class or rejects the tier (then each label goes through ``_accepts``).
    tiers: list[tuple[str, Mapping[str, MachineLabel], float, bool]] = []
    for tier in data.tiers:
        plain: list[Any] = [r.get(tier) for r in rules]
        if any(t is None for t in plain):
            continue  # some gate accepts nothing on this tier
        simple = not any(isinstance(t, Mapping) for t in plain)
        floor = max(float(t) for t in plain) if simple else 0.0
        tiers.append((tier, data.predictions.get(tier, {}), floor, simple))
    if all(simple for _, _, _, simple in tiers):
        # One threshold per tier: each tier's accepted labels, the earliest tier winning
        # (later tiers written first, then overwritten), in the order of data.items.
        first: dict[str, tuple[str, MachineLabel]] = {}
        for tier, predicted, floor, _ in reversed(tiers):
            first.update({item: (tier, machine) for item, machine in predicted.items()
                          if machine.confidence >= floor})
        return {item: first[item] for item in data.items if item in first}, certified
    out: dict[str, tuple[str, MachineLabel]] = {}
    for item in data.items:
        for tier, predicted, floor, simple in tiers:
            machine = predicted.get(item)
            if machine is None:
                continue
            if (machine.confidence >= floor) if simple else \
                    all(_accepts(r, tier, machine) for r in rules):
                out[item] = (tier, machine)
                break
    return out, certified


def delivered(config: EngineConfig, statuses: Mapping[str, ContractStatus], data: SchemaData,
              humans: set[str]) -> dict[str, Delivered]:
    """item → the machine label delivered (items with a human label excluded)."""
    routed, certified = _routed(config, statuses, data, humans)
    return {item: Delivered(tier, machine.label, certified)
            for item, (tier, machine) in routed.items()}


def human_items(study: Study, labeling: LabelingData, schema: str) -> dict[str, Any]:
    """item → the latest human label (engine requests in file order, else Potato output)."""
    out: dict[str, Any] = {}
    for item, by in study.answers_for(schema).items():
        if by:
            out[item] = next(iter(by.values()))
    for r in labeling.requests_for(schema):
        if r.answered:
            out[r.item] = r.label
    return out


def export_rows(study: Study, config: EngineConfig, labeling: LabelingData,
                statuses: Mapping[str, ContractStatus], data_by_schema: Mapping[str, SchemaData]
                ) -> list[dict[str, Any]]:
    """One row per item and schema with contracts, in Potato 2.12.1's export statuses
    (``labeling_engine_exporter.py``; ``contracts.md``, "Agreeing with Potato 2.12.1"):

    - a human label (the latest engine request, else the Potato output): ``accepted``,
      ``label_origin`` ``human``, ``source`` the annotator (``null`` when unknown);
    - a machine label the cascade delivers: ``accepted`` under a certifying contract,
      ``accepted_uncertified`` under ``threshold_legacy`` only; ``label_origin`` ``auto``,
      ``source`` the tier;
    - otherwise ``pending`` with no label and no origin.

    Potato's fourth status, ``pending_recert`` (a label accepted under an earlier
    cascade), needs the cascade hash of source versions, which Accord does not
    recompute, so it never appears; ``adjudicated`` origins are not read either.
    """
    rows: list[dict[str, Any]] = []
    for schema, data in data_by_schema.items():
        humans = human_items(study, labeling, schema)
        who = _human_sources(study, labeling, schema)
        machine = delivered(config, statuses, data, set(humans))
        for item in data.items:
            if item in humans:
                rows.append({"item": item, "schema": schema, "label": _plain(humans[item]),
                             "status": "accepted", "label_origin": "human",
                             "source": who.get(item)})
            elif item in machine:
                d = machine[item]
                rows.append({"item": item, "schema": schema, "label": _plain(d.label),
                             "status": "accepted" if d.certified else "accepted_uncertified",
                             "label_origin": "auto", "source": d.tier})
            else:
                rows.append({"item": item, "schema": schema, "label": None,
                             "status": "pending", "label_origin": None, "source": None})
    return rows


def _human_sources(study: Study, labeling: LabelingData, schema: str) -> dict[str, str | None]:
    """item → the person whose label :func:`human_items` keeps."""
    out: dict[str, str | None] = {}
    for item, by in study.answers_for(schema).items():
        if by:
            out[item] = next(iter(by))
    for r in labeling.requests_for(schema):
        if r.answered:
            out[r.item] = r.annotator
    return out


def _plain(label: Any) -> Any:
    if isinstance(label, frozenset):
        return sorted(label)
    if isinstance(label, str | int | float | bool) or label is None:
        return label
    return str(label)


def training_rows(study: Study, labeling: LabelingData, schemas: list[str]
                  ) -> list[dict[str, Any]]:
    """Labels that never certify anything, as training data for a distilled model:
    verification labels (the person saw the machine's answer) and the ordinary Potato
    output (labels given outside engine requests). One row per label."""
    rows: list[dict[str, Any]] = []
    for schema in schemas:
        for r in labeling.requests_for(schema):
            if r.answered and not r.calibration:
                rows.append({"item": r.item, "schema": schema, "label": _plain(r.label),
                             "annotator": r.annotator, "origin": "verification"})
        for item, by in sorted(study.answers_for(schema).items()):
            for annotator, answer in sorted(by.items()):
                rows.append({"item": item, "schema": schema, "label": _plain(answer),
                             "annotator": annotator, "origin": "outside"})
    return rows
