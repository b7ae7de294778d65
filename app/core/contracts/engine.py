"""The engine: every contract's state, looks and result; what is accepted; the ledger.

``status`` never writes and never spends (``contracts.md``, Looks and ledger): it shows
the stored test result of each ``selective_risk`` contract and fresh estimates of the
others. A ``selective_risk`` contract that has never been tested but could be now is
shown ``pending`` with the cost of the look: computing its test without recording it
would be a free look, the very thing the ledger exists to prevent.

``certify`` tests: each ``selective_risk`` contract whose test would run is tested at
its next look unless the latest look tested the same cert labels and predictions:

- same data and same rule → the stored result, nothing spent;
- same data, dev now chooses another rule → the stored result, with a note, unless
  ``retest`` (then the new rule is tested at the next look);
- otherwise a new look, recorded in the ledger (on disk) before the result is returned.

A damaged ledger stops ``certify`` (:class:`LedgerDamagedError`) until acknowledged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.engine_schedule import Schedule, SelectiveView
from app.core.contracts.kinds.base import KindContext, KindOutcome, MachineLabel, SchemaData
from app.core.contracts.kinds.registry import evaluate, kind_info
from app.core.contracts.labels.schema_data import schema_data
from app.core.contracts.ledger.chain import Ledger, LedgerDamagedError, data_hash
from app.core.contracts.scheduler import SCHEDULER_KEY
from app.core.contracts.statistics.looks import look_level
from app.core.contracts.status import ContractStatus as ContractStatus  # re-exported
from app.core.formats.labeling.data import LabelingData
from app.core.model import Study


def schema_inputs(study: Study, labeling: LabelingData, config: EngineConfig
                  ) -> dict[str, SchemaData]:
    """One :class:`SchemaData` per schema that has a contract."""
    return {schema: schema_data(study, labeling, config, schema)
            for schema in dict.fromkeys(c.schema for c in config.contracts)}


@dataclass(frozen=True, slots=True)
class Machine:
    """What the estimates of one schema read as the machine label: the labels the
    cascade would deliver (``labels``), or ``None`` with the ``note`` that says why the
    first tier with a prediction stands in (nothing is delivered yet); ``key`` names the
    rule behind the labels, so a scheduled estimate is re-made when it changes."""

    labels: dict[str, MachineLabel] | None
    note: str | None
    key: str | None


def _machine(config: EngineConfig, statuses: dict[str, ContractStatus], data: SchemaData
             ) -> Machine:
    from app.core.contracts.labels.delivery import would_deliver

    labels, reason = would_deliver(config, statuses, data)
    if labels is None:
        return Machine(None, f"{reason}: the machine label is the prediction of the first "
                             "cascade tier that has one for the item (as if every tier "
                             "accepted everything)", None)
    rules = [statuses[c.id].accepts for c in config.contracts_for(data.scheme.name)
             if kind_info(c.kind).gates]
    return Machine(labels, None, _canonical(rules))


def _estimate(spec: ContractSpec, data: SchemaData, config: EngineConfig,
              machine: Machine | None = None) -> KindOutcome:
    """An estimate (or ``threshold_legacy``'s fixed rule): never a look."""
    info = kind_info(spec.kind)
    delivered = machine.labels if machine is not None and info.reads_delivered else None
    outcome = evaluate(spec, data, KindContext(delivered=delivered,
                                               price_usd=config.budgets.crowd_reward_usd))
    if (machine is not None and info.reads_delivered and machine.note is not None
            and outcome.state != "pending"):
        outcome.notes.append(machine.note)
    return outcome


def evaluate_contracts(config: EngineConfig, data_by_schema: dict[str, SchemaData],
                       ledger: Ledger, *, certify: bool, retest: bool = False,
                       only: str | None = None, schedule: bool = False,
                       labeling: LabelingData | None = None) -> dict[str, ContractStatus]:
    """Every contract's status; with ``certify``, due tests are run and recorded.

    The gating contracts (``selective_risk``, ``threshold_legacy``) are evaluated first:
    their rules decide the machine labels that ``ppi``, ``distributional`` and
    ``no_worse_than_human`` read (:func:`_machine`). The result keeps the configuration's
    order.

    With ``schedule`` (and ``labeling``), the scheduler decides what is due
    (:mod:`app.core.contracts.scheduler`) and the engine tests and records it; on a
    damaged ledger the scheduler writes nothing and the result is ``status``'s.
    """
    if certify and not ledger.ok:
        raise LedgerDamagedError(ledger.damage or "the ledger is damaged")
    plan: Schedule | None = None
    if schedule and not certify and labeling is not None and ledger.ok:
        plan = Schedule(labeling)
    out: dict[str, ContractStatus] = {}
    for spec in config.contracts:
        data = data_by_schema[spec.schema]
        info = kind_info(spec.kind)
        if info.spends_looks:
            test_now = certify and (only is None or only == spec.id)
            out[spec.id] = _selective_status(spec, data, ledger, config, certify=test_now,
                                             retest=retest, plan=plan)
        elif info.gates:
            out[spec.id] = _plain(spec, _estimate(spec, data, config))
    machines: dict[str, Machine] = {}
    for spec in config.contracts:
        if spec.id in out:
            continue
        data = data_by_schema[spec.schema]
        machine = None
        info = kind_info(spec.kind)
        if info.reads_delivered:
            if spec.schema not in machines:
                machines[spec.schema] = _machine(config, out, data)
            machine = machines[spec.schema]
        if plan is not None and info.scheduled:
            out[spec.id] = plan.estimate(spec, data, ledger,
                                         partial(_estimate, spec, data, config, machine),
                                         machine.key if machine is not None else None)
        else:
            out[spec.id] = _plain(spec, _estimate(spec, data, config, machine))
    return {spec.id: out[spec.id] for spec in config.contracts}


def _plain(spec: ContractSpec, outcome: KindOutcome) -> ContractStatus:
    return ContractStatus(spec, outcome.state, 0, 0.0, outcome.result, list(outcome.notes),
                          outcome.accepts)


def _confidence(spec: ContractSpec) -> float:
    return float(spec.params.get("confidence", 0.9))


def _hash_of(outcome: KindOutcome) -> str:
    tested = {k: v for k, v in outcome.data.items() if k != "rule"}
    return data_hash(tested.get("cert_labels", tested), tested.get("predictions"), None)


def _selective_status(spec: ContractSpec, data: SchemaData, ledger: Ledger,
                      config: EngineConfig, *, certify: bool, retest: bool,
                      plan: Schedule | None) -> ContractStatus:
    looks = ledger.looks(spec.id, spec.renamed_from)
    spent = ledger.level_spent(spec.id, spec.renamed_from)
    latest = ledger.last_look(spec.id, spec.renamed_from)
    outcome = evaluate(spec, data, KindContext(look=looks + 1))
    rule = outcome.data.get("rule", outcome.result.get("rule"))
    if not outcome.tested:
        # No test would run (pending, insufficient, infeasible): nothing to spend.
        return ContractStatus(spec, outcome.state, looks, spent, outcome.result,
                              list(outcome.notes), None)
    current = _hash_of(outcome)
    if latest is not None and latest.data_hash == current:
        stored = latest.result
        notes = list(stored.get("notes", []))
        same_rule = _canonical(latest.rule) == _canonical(rule)
        if same_rule or not (certify and retest):
            if not same_rule:
                notes.append("dev now chooses another rule; 'accord label certify --retest' "
                             f"tests it at look {looks + 1}")
            return ContractStatus(spec, stored["state"], looks, spent, stored["result"],
                                  notes, stored.get("accepts"))
    view = SelectiveView(spec, data, ledger, config, latest, current, rule)
    kept = view.standing(looks, spent)
    if kept is not None:
        return kept
    note: str | None = None
    if plan is not None:
        due = plan.selective_due(view)
        if not due.test:
            return view.stored_status(looks, spent, due.note)
        note = due.note
    elif not certify:
        level = look_level(looks + 1, _confidence(spec))
        return ContractStatus(
            spec, "pending", looks, spent, {},
            [f"ready to test: 'accord label certify' spends look {looks + 1} "
             f"(level {level:.6f})"], None)
    level = look_level(looks + 1, _confidence(spec))
    record = {"state": outcome.state, "result": outcome.result, "notes": outcome.notes,
              "accepts": outcome.accepts, SCHEDULER_KEY: view.bookkeeping()}
    ledger.append_look(spec.id, look=looks + 1, level=level, data_hash=current, rule=rule,
                       result=record, cascade=list(config.tier_names),
                       renamed_from=spec.renamed_from)
    notes = list(outcome.notes) + ([note] if note else [])
    return ContractStatus(spec, outcome.state, looks + 1, spent + level, outcome.result,
                          notes, outcome.accepts)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
