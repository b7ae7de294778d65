"""What the engine keeps in the ledger beyond the look itself, and how it reads it back.

Each look the engine records carries, next to the result, the scheduler's bookkeeping
(:data:`~app.core.contracts.scheduler.SCHEDULER_KEY`): how many cert labels the schema
had, a fingerprint of each (the snapshot), and a hash of all the schema's predictions.
That is what lets the engine tell new labels from edits, find an earlier look of the
very same data, and notice a new machine under the same tier names.

Restoring an earlier look (an edit undone): only a look of this contract with the same
data hash and rule, recorded under the same cascade and predictions as now, and with no
look under another cascade or other predictions after it. Returning to an earlier
cascade (or model) is a new look, never a restore (``contracts.md``); looks recorded
before this bookkeeping existed are never restored.

Scheduled estimates are ``estimate`` events: ``{"contract", "params", "dev_labels",
"complete", "state", "result", "notes"}``. They spend no look.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.kinds.base import SchemaData
from app.core.contracts.kinds.selective_risk_groups import answer_json
from app.core.contracts.ledger.chain import Ledger, Look
from app.core.contracts.ledger.format import Event
from app.core.contracts.scheduler import ESTIMATE_EVENT, SCHEDULER_KEY, fingerprint, snapshot


def predictions_hash(data: SchemaData) -> str:
    """SHA-256 over every prediction of the schema (tier, item, label, confidence)."""
    digest = hashlib.sha256()
    for tier in data.tiers:
        for item, machine in sorted(data.predictions.get(tier, {}).items()):
            label = machine.label
            text = label if isinstance(label, str) else repr(answer_json(label))
            digest.update(f"{tier}\x1f{item}\x1f{text}\x1f{machine.confidence!r}\n"
                          .encode())
    return digest.hexdigest()


def bookkeeping(data: SchemaData, predictions: str) -> dict[str, Any]:
    snap = snapshot(data.cert)
    return {"cert_labels": len(snap), "snapshot": snap, "predictions": predictions}


def stored_bookkeeping(look: Look) -> Mapping[str, Any] | None:
    value = look.result.get(SCHEDULER_KEY)
    return value if isinstance(value, Mapping) else None


def contract_looks(ledger: Ledger, spec: ContractSpec) -> list[Look]:
    """The contract's intact looks (renames followed), in file order."""
    ids = ledger.ids(spec.id, spec.renamed_from)
    return [e for e in ledger.entries if isinstance(e, Look) and e.contract in ids]


def restorable(ledger: Ledger, spec: ContractSpec, data_hash: str, rule: Any,
               cascade: list[str], predictions: str) -> Look | None:
    """An earlier look of exactly this data under this cascade and these predictions."""
    wanted = fingerprint(rule)
    for look in reversed(contract_looks(ledger, spec)):
        kept = stored_bookkeeping(look)
        if (kept is None or look.cascade != cascade
                or kept.get("predictions") != predictions):
            return None
        if look.data_hash == data_hash and fingerprint(look.rule) == wanted:
            return look
    return None


def params_key(spec: ContractSpec, machine: str | None = None) -> str:
    """What a stored estimate was made under: the contract's parameters and, when the
    machine labels are the cascade's delivered ones, the rule that delivers them
    (without one the key is the parameters' alone, as in ledgers written before)."""
    key: dict[str, Any] = {"kind": str(spec.kind), "schema": spec.schema,
                           "params": {k: v for k, v in spec.params.items()}}
    if machine is not None:
        key["machine"] = machine
    return fingerprint(key)


def stored_estimate(ledger: Ledger, spec: ContractSpec) -> Mapping[str, Any] | None:
    ids = ledger.ids(spec.id, spec.renamed_from)
    found: Mapping[str, Any] | None = None
    for entry in ledger.entries:
        if (isinstance(entry, Event) and entry.event == ESTIMATE_EVENT
                and entry.details.get("contract") in ids):
            found = entry.details
    return found


def record_estimate(ledger: Ledger, spec: ContractSpec, params: str, *, dev_labels: int,
                    complete: bool, state: str, result: dict[str, Any], notes: list[str]
                    ) -> None:
    ledger.append_event(ESTIMATE_EVENT, {
        "contract": spec.id, "params": params, "dev_labels": dev_labels,
        "complete": complete, "state": state, "result": result, "notes": list(notes)})
