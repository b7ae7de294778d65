"""The contracts of a Potato project, evaluated the way Potato 2.12.1's engine does.

``contracts.md`` ("Agreeing with Potato 2.12.1", "Precise rules of the Potato method"):

- **status never spends**: every contract shows its stored result, the latest of
  Potato's own record (``contract_version``) and Accord's later looks (its ledger, under
  ``.accord/``); one never evaluated is ``insufficient`` with "not evaluated yet".
- **certify** evaluates each contract with Potato's method
  (:mod:`app.core.contracts.potato_method`) on today's view, at the next look:
  ``1 + looks`` for the kinds that spend (selective_risk, ppi, no_worse_than_human,
  distributional), ``max(1, looks)`` for budget_first and threshold_legacy, which never
  spend. A contract whose calibration labels are unchanged since its stored result
  (same dev and cert counts, same cert truths) keeps that result and spends nothing,
  unless ``retest``. An evaluation that reached a test (``ran``) is recorded in the
  ledger before it is returned; one that did not spends nothing.
- The looks continue after Potato's (:attr:`~app.core.contracts.ledger.chain.Ledger.prior`).

The states are Potato's five. ``result`` carries ``cli.md``'s names
(:mod:`~app.core.contracts.potato_method.names`) beside Potato's own metrics.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.ledger.chain import Ledger, LedgerDamagedError
from app.core.contracts.potato_method.audit import evaluator
from app.core.contracts.potato_method.from_store import method_contract, method_view
from app.core.contracts.potato_method.names import accepts, cli_result
from app.core.contracts.potato_method.view import MethodView
from app.core.contracts.statistics.looks import look_level
from app.core.contracts.status import ContractStatus
from app.core.formats.potato.engine_store import EngineStore
from app.core.model import Study

NEVER_SPEND = frozenset({"budget_first", "threshold_legacy"})
KEY = "potato_method"
"""Where a look's ledger record keeps the result in Potato's shape."""


def potato_statuses(store: EngineStore, config: EngineConfig, study: Study, ledger: Ledger,
                    *, certify: bool, retest: bool = False, only: str | None = None
                    ) -> dict[str, ContractStatus]:
    """Every contract's status on a Potato project (see the module)."""
    if certify and not ledger.ok:
        raise LedgerDamagedError(ledger.damage or "the ledger is damaged")
    out: dict[str, ContractStatus] = {}
    for spec in config.contracts:
        stored, counts, notes = _stored(spec, store, ledger)
        if certify and (only is None or only == spec.id):
            out[spec.id] = _certify(spec, store, config, study, ledger, stored, counts,
                                    retest)
        else:
            out[spec.id] = _status(spec, ledger, stored, notes)
    return out


def _stored(spec: ContractSpec, store: EngineStore, ledger: Ledger
            ) -> tuple[dict[str, Any] | None, dict[str, Any], list[str]]:
    """The latest stored result (Accord's look after Potato's record), its label counts."""
    look = ledger.last_look(spec.id, spec.renamed_from)
    if look is not None and isinstance(look.result.get(KEY), dict):
        return look.result[KEY], look.result.get("counts", {}), []
    record = store.records.contracts.get(spec.id)
    if record is None:
        return None, {}, []
    counts = {k: record.result.get(k) for k in ("n_dev", "n_cert")}  # Potato hashes its
    # cert labels its own way: its counts are compared, Accord's looks add the truths
    return record.result, counts, [f"Potato's stored result (contract_version "
                                   f"{record.version_id})"]


def _status(spec: ContractSpec, ledger: Ledger, stored: dict[str, Any] | None,
            notes: list[str]) -> ContractStatus:
    looks = ledger.looks(spec.id, spec.renamed_from)
    spent = ledger.level_spent(spec.id, spec.renamed_from)
    if stored is None:
        note = "not evaluated yet"
        if str(spec.kind) not in NEVER_SPEND:
            level = look_level(looks + 1, method_contract(spec).confidence)
            note += (f": 'accord label certify' evaluates it at look {looks + 1} "
                     f"(level {level:.6f})")
        return ContractStatus(spec, "insufficient", looks, spent, {}, [note], None)
    kind = str(spec.kind)
    return ContractStatus(spec, str(stored.get("status")), looks, spent,
                          cli_result(kind, stored), [*notes, *stored.get("notes", [])],
                          _accepts(kind, stored))


def _accepts(kind: str, stored: dict[str, Any]) -> dict[str, Any] | None:
    if kind not in ("selective_risk", "threshold_legacy") or stored.get("status") != "met":
        return None
    return accepts(stored.get("acceptance"))


def _own_route(schema: str, config: EngineConfig, ledger: Ledger
               ) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The rule of Accord's latest selective_risk look on ``schema``, when it has one (it
    is newer than anything Potato stored: Accord's looks come after Potato's)."""
    for spec in config.contracts_for(schema):
        if str(spec.kind) != "selective_risk":
            continue
        look = ledger.last_look(spec.id, spec.renamed_from)
        result = look.result.get(KEY) if look is not None else None
        if isinstance(result, dict):
            metrics = result.get("metrics") or {}
            return dict(metrics.get("route") or {}), dict(metrics.get("cells") or {})
    return None


def _counts(view: MethodView) -> dict[str, Any]:
    cert = sorted((c.item, json.dumps(c.truth, sort_keys=True, default=str))
                  for c in view.split("cert"))
    digest = hashlib.sha256(json.dumps(cert).encode()).hexdigest()
    return {"n_dev": len(view.split("dev")), "n_cert": len(cert), "cert_labels": digest}


def _certify(spec: ContractSpec, store: EngineStore, config: EngineConfig, study: Study,
             ledger: Ledger, stored: dict[str, Any] | None, stored_counts: dict[str, Any],
             retest: bool) -> ContractStatus:
    kind = str(spec.kind)
    evaluate = evaluator(kind, config)
    built = method_view(store, config, study.schemes[spec.schema],
                        route=_own_route(spec.schema, config, ledger))
    if evaluate is None or built is None:
        status = _status(spec, ledger, stored, [])
        status.notes.append("Accord cannot evaluate this schema with Potato's method yet "
                            "(single-label schemes only)")
        return status
    counts = _counts(built.view)
    same = stored is not None and bool(stored_counts) and all(
        counts.get(k) == v for k, v in stored_counts.items())
    if same and not retest:
        return _status(spec, ledger, stored, ["unchanged labels: the stored result, "
                                              "nothing spent"])
    looks = ledger.looks(spec.id, spec.renamed_from)
    contract = method_contract(spec)
    look = max(1, looks) if kind in NEVER_SPEND else looks + 1
    result = evaluate(contract, built.view, look).to_json()
    spent = ledger.level_spent(spec.id, spec.renamed_from)
    notes = list(built.notes)
    if result.get("ran") and kind not in NEVER_SPEND:
        level = look_level(look, contract.confidence)
        data = hashlib.sha256(json.dumps(counts, sort_keys=True).encode()).hexdigest()
        ledger.append_look(spec.id, look=look, level=level, data_hash=data,
                           rule=result.get("acceptance"),
                           result={KEY: result, "counts": counts},
                           cascade=list(config.tiers_for(spec.schema)),
                           renamed_from=spec.renamed_from)
        looks, spent = look, spent + level
    else:
        notes.append("this evaluation reached no test: no look spent")
    return ContractStatus(spec, str(result.get("status")), looks, spent,
                          cli_result(kind, result), [*notes, *result.get("notes", [])],
                          _accepts(kind, result))
