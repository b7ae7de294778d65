"""The contracts of a project, evaluated the way Potato 2.12.1's engine does.

One engine for both stores (``contracts.md``, "Agreeing with Potato 2.12.1", item 4): a
Potato project's ``engine.sqlite`` (:func:`potato_statuses`; Potato's own records are the
stored results until Accord looks again) and Accord's own ``labeling/`` files
(:func:`labeling_statuses`; only Accord's ledger holds results). The view each contract
reads comes from :mod:`~app.core.contracts.potato_method.from_store` or
:mod:`~app.core.contracts.potato_method.from_labeling`.

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
  ``retest`` or not (Potato's same-data test ignores it too: "testing the same data
  again is not a new look"). When only dev labels (or predictions) arrived, the cert
  labels unchanged, :mod:`~app.core.contracts.potato_method.same_cert` decides: the
  test already run at its own look, or the stored result with the note that dev now
  chooses another rule (``retest`` tests it at the next look). An evaluation that
  reached a test (``ran``) is recorded in the ledger before it is returned; one that
  did not spends nothing.
- The looks continue after Potato's (:attr:`~app.core.contracts.ledger.chain.Ledger.prior`).
- **Potato's record, current or moved** (``contracts.md``, "When Potato's record is
  current"): a record is the stored result only while it is current
  (:func:`~app.core.contracts.potato_method.audit.moved_since`); otherwise status shows
  the audit's evaluation of today's rows at the record's look (spending nothing), and the
  same-data test of certify compares the ``pred_mark`` and the cert truths as Potato does,
  so a moved ``pred_mark`` is new data: the next look, unless the cert labels are the
  same and the selective_risk test would be too (its ``signature``), as above.
- **schedule** (the GUI's file watcher, Accord's own projects only: Potato's planner
  decides for a Potato project) is Potato's planner rule (``service.py`` ``certify(auto=
  True)``, which never gets the note): a met selective_risk result stays; any other
  stored result is evaluated again only once the calibration labels reached
  ``max(ceil(1.25 n), n + 10)`` (``n`` at its look), or, for an estimate, once more
  when no calibration request is open and labels arrived since; a contract never
  evaluated is evaluated.

The states are Potato's five. ``result`` carries ``cli.md``'s names
(:mod:`~app.core.contracts.potato_method.names`) beside Potato's own metrics.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.ledger.chain import Ledger, LedgerDamagedError
from app.core.contracts.ledger.results import last_result, record_evaluation
from app.core.contracts.potato_method.audit import (
    Audit,
    evaluator,
    potato_cert_labels,
    signature,
)
from app.core.contracts.potato_method.from_labeling import labeling_view
from app.core.contracts.potato_method.from_store import (
    BuiltView,
    method_contract,
    method_view,
)
from app.core.contracts.potato_method.names import cli_result
from app.core.contracts.potato_method.same_cert import (
    KEY,
    NEVER_SPEND,
    Kept,
    accepts_of,
    certify_same_cert,
    same_cert,
    status_of,
)
from app.core.contracts.potato_method.tested_setup import (
    setup_moved,
    setup_note,
    tested_setup,
)
from app.core.contracts.potato_method.truth import label_key
from app.core.contracts.potato_method.view import MethodView
from app.core.contracts.state_moves import state_moved
from app.core.contracts.statistics.looks import look_level
from app.core.contracts.status import ContractStatus
from app.core.formats.labeling.data import LabelingData, RequestKind
from app.core.formats.potato.engine.records import ContractRecord
from app.core.formats.potato.engine.store import EngineStore
from app.core.model import Scheme, Study

__all__ = ["KEY", "NEVER_SPEND", "labeling_statuses", "potato_statuses", "potato_today"]
LOOK_GROWTH = 1.25
LOOK_MIN_STEP = 10
"""Potato's planner: a stored result is evaluated again at ``max(ceil(1.25 n), n + 10)``
calibration labels."""

Route = tuple[dict[str, Any], dict[str, Any]]
Build = Callable[[Scheme, Route | None], BuiltView | None]


def potato_statuses(store: EngineStore, config: EngineConfig, study: Study, ledger: Ledger,
                    *, certify: bool, retest: bool = False, only: str | None = None,
                    person_groups: Mapping[str, Mapping[str, str]] | None = None,
                    audits: Mapping[str, Audit] | None = None
                    ) -> dict[str, ContractStatus]:
    """Every contract's status on a Potato project (see the module); ``person_groups``:
    the annotators' prestudy answers, for ``groups_by``; ``audits``: the audit of each
    Potato record (:func:`~app.core.contracts.potato_method.audit.audit_contracts` with
    :func:`potato_today`), whose fresh evaluation stands in for a record that moved."""
    def build(scheme: Scheme, route: Route | None) -> BuiltView | None:
        return method_view(store, config, scheme, route=route, person_groups=person_groups)
    return _statuses(config, study, ledger, build, store.records.contracts,
                     certify=certify, retest=retest, only=only, audits=audits or {},
                     pred_marks=store.records.pred_marks)


def potato_today(store: EngineStore, config: EngineConfig, ledger: Ledger,
                 person_groups: Mapping[str, Mapping[str, str]] | None = None
                 ) -> Callable[[Scheme], BuiltView | None]:
    """Today's view of a schema as certify builds it (Accord's latest selective_risk rule
    when it looked, else Potato's latest stored one), for the audit of a moved record."""
    def today(scheme: Scheme) -> BuiltView | None:
        return method_view(store, config, scheme,
                           route=_own_route(scheme.name, config, ledger),
                           person_groups=person_groups)
    return today


def labeling_statuses(labeling: LabelingData, config: EngineConfig, study: Study,
                      ledger: Ledger, *, certify: bool, retest: bool = False,
                      only: str | None = None, schedule: bool = False
                      ) -> dict[str, ContractStatus]:
    """Every contract's status on an Accord project (``labeling/``; see the module)."""
    def build(scheme: Scheme, route: Route | None) -> BuiltView | None:
        return labeling_view(study, labeling, config, scheme, route)

    def sample_done(schema: str) -> bool:
        return not any(r.kind is RequestKind.CALIBRATION for r in labeling.unanswered(schema))
    return _statuses(config, study, ledger, build, {}, certify=certify, retest=retest,
                     only=only, schedule=sample_done if schedule else None)


def _statuses(config: EngineConfig, study: Study, ledger: Ledger, build: Build,
              records: Mapping[str, ContractRecord], *, certify: bool, retest: bool,
              only: str | None, schedule: Callable[[str], bool] | None = None,
              audits: Mapping[str, Audit] | None = None,
              pred_marks: Mapping[str, int] | None = None) -> dict[str, ContractStatus]:
    writes = certify or schedule is not None
    if writes and not ledger.ok:
        if certify:
            raise LedgerDamagedError(ledger.damage or "the ledger is damaged")
        schedule = None  # a damaged ledger: the watcher only shows what is stored
    out: dict[str, ContractStatus] = {}
    # Potato builds a scheme's view once, before the call evaluates its contracts: the
    # routed output follows the rule stored before this call, not one it writes
    routes = {c.schema: _own_route(c.schema, config, ledger) for c in config.contracts}
    audits = audits or {}
    marks = pred_marks or {}
    known: dict[str, str] = {}  # the predictions' digest per schema (tested_setup)
    for spec in config.contracts:
        stored, counts, notes, kept = _stored(spec, records, ledger, audits.get(spec.id))
        if certify and (only is None or only == spec.id):
            out[spec.id] = _certify(spec, build, routes[spec.schema], study, ledger, stored,
                                    counts, retest, config, marks.get(spec.schema), kept,
                                    known=known)
            moved = audits.get(spec.id)
            if moved is not None and moved.moved and notes and not out[spec.id]. \
                    retest_available and "no longer describes" in notes[0]:  # it moved
                out[spec.id].notes.insert(0, (
                    "Potato's stored result no longer described today's data ("
                    f"{'; '.join(moved.moved)}): new data to certify, as to Potato's"))
        elif schedule is not None:
            due, next_at = _due(spec, build, routes[spec.schema], study, stored, counts,
                                schedule)
            if due or (stored is not None and bool(setup_moved(spec, config, counts))):
                out[spec.id] = _certify(spec, build, routes[spec.schema], study, ledger,
                                        stored, counts, False, config,
                                        marks.get(spec.schema), kept, auto=True,
                                        known=known)
                continue
            out[spec.id] = status_of(spec, ledger, stored, notes)
            if next_at is not None:
                out[spec.id].notes.append(f"the planner evaluates it again at {next_at} "
                                          "calibration labels")
        else:
            out[spec.id] = status_of(spec, ledger, stored, notes)
            if stored is not None and (moved_setup := setup_moved(spec, config, counts)):
                out[spec.id].notes.insert(0, setup_note(moved_setup, str(spec.kind)))
                if "cascade" in moved_setup:
                    out[spec.id].accepts = None
    for spec in config.contracts:
        _, counts, _, _ = _stored(spec, records, ledger, None)
        _reachability(out[spec.id], counts, len(study.items))
    return out


def _reachability(status: ContractStatus, counts: Mapping[str, Any], n_items: int) -> None:
    """Potato's status adds ``reachable: false`` and ``items_left`` to a projection that
    asks for more calibration labels than the corpus has items left to sample."""
    raw = status.result.get("projection")
    projection: dict[str, Any] = raw if isinstance(raw, dict) else {}
    more = projection.get("more_calibration_labels")
    if not isinstance(more, int | float) or status.state in ("met", "stale"):
        return
    left = max(0, n_items - int(counts.get("n_cert") or 0) - int(counts.get("n_dev") or 0))
    if more > left:
        status.result["projection"] = {**projection, "reachable": False, "items_left": left}
        status.notes.append(f"Not reachable with this corpus: about {int(more):,} more "
                            f"calibration labels would be needed and {left:,} items are left "
                            "to sample. Loosen the target or improve the sources.")


def _due(spec: ContractSpec, build: Build, route: Route | None, study: Study,
         stored: dict[str, Any] | None, counts: Mapping[str, Any],
         sample_done: Callable[[str], bool]) -> tuple[bool, int | None]:
    """Potato's planner rule for one contract (see the module): (due, the calibration
    label count at which it will be)."""
    if stored is None:
        return True, None
    kind = str(spec.kind)
    if kind == "selective_risk" and stored.get("status") == "met":
        return False, None
    built = build(study.schemes[spec.schema], route)
    if built is None:
        return False, None
    n_now = len(built.view.calibration)
    n = int(counts.get("n_dev") or 0) + int(counts.get("n_cert") or 0)
    next_at = max(math.ceil(n * LOOK_GROWTH), n + LOOK_MIN_STEP)
    if n_now >= next_at:
        return True, None
    if kind != "selective_risk" and sample_done(spec.schema) and n_now > n:
        return True, None
    return False, next_at


Stored = tuple[dict[str, Any] | None, dict[str, Any], list[str], Kept | None]


def _stored(spec: ContractSpec, records: Mapping[str, ContractRecord], ledger: Ledger,
            audit: Audit | None) -> Stored:
    """The latest stored result (Accord's look after Potato's record), what its data were
    (the counts certify's same-data test compares), its notes, and what certify returns
    when dev now chooses another rule. A Potato record that moved stands as the audit's
    evaluation of today's rows at its look, with what moved."""
    own = last_result(ledger, spec.id, spec.renamed_from)
    if own is not None and isinstance(own.get(KEY), dict):
        return own[KEY], own.get("counts", {}), [], Kept(own[KEY], [])
    record = records.get(spec.id)
    if record is None:
        return None, {}, [], None
    mine = f"Potato's stored result (contract_version {record.version_id})"
    kept = Kept(record.result, [mine])
    # Potato's own same-data test: n_dev, the cert truths (hashed its way), pred_mark
    counts: dict[str, Any] = {k: record.result.get(k) for k in ("n_dev", "n_cert")}
    mark = record.result.get("pred_mark")
    if isinstance(mark, int) and not isinstance(mark, bool):
        counts["pred_mark"] = mark
    cert = record.result.get("cert_labels")
    if isinstance(cert, Mapping):
        counts["potato_cert"] = _digest({str(k): v for k, v in cert.items()})
    if audit is not None and audit.moved and audit.fresh is not None:
        fresh = dict(audit.fresh, signature=None if audit.new_cascade  # a new test
                     else record.result.get("signature"))
        return fresh, counts, [
            f"{mine} no longer describes today's data: {'; '.join(audit.moved)}. Shown: "
            f"today's rows evaluated at Potato's look {audit.look}, nothing spent; "
            "Potato's own result is kept beside it"], kept
    return record.result, counts, [mine], kept


def _digest(value: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(sorted(value.items())).encode()).hexdigest()


def _own_route(schema: str, config: EngineConfig, ledger: Ledger
               ) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The rule of Accord's latest selective_risk look on ``schema``, when it has one (it
    is newer than anything Potato stored: Accord's looks come after Potato's)."""
    for spec in config.contracts_for(schema):
        if str(spec.kind) != "selective_risk":
            continue
        own = last_result(ledger, spec.id, spec.renamed_from)
        result = own.get(KEY) if own is not None else None
        if isinstance(result, dict):
            metrics = result.get("metrics") or {}
            return dict(metrics.get("route") or {}), dict(metrics.get("cells") or {})
    return None


def _counts(view: MethodView, pred_mark: int | None = None) -> dict[str, Any]:
    """What certify's same-data test compares; on a Potato project also ``pred_mark``
    (today's highest prediction id of the schema) and the cert truths hashed as Potato
    hashes them, so Potato's record and Accord's looks are compared alike."""
    cert = sorted((c.item, label_key(c.truth))
                  for c in view.split("cert"))
    digest = hashlib.sha256(json.dumps(cert).encode()).hexdigest()
    out: dict[str, Any] = {"n_dev": len(view.split("dev")), "n_cert": len(cert),
                           "cert_labels": digest}
    if pred_mark is not None:
        out["pred_mark"] = pred_mark
        out["potato_cert"] = _digest(potato_cert_labels(view))
    return out


def _certify(spec: ContractSpec, build: Build, route: Route | None, study: Study,
             ledger: Ledger, stored: dict[str, Any] | None, stored_counts: dict[str, Any],
             retest: bool, config: EngineConfig, pred_mark: int | None = None,
             kept: Kept | None = None, *, auto: bool = False,
             known: dict[str, str] | None = None) -> ContractStatus:
    kind = str(spec.kind)
    evaluate = evaluator(kind, config)
    built = build(study.schemes[spec.schema], route)
    if evaluate is None or built is None:
        status = status_of(spec, ledger, stored, [])
        status.notes.append("Accord cannot evaluate this schema with Potato's method yet "
                            "(single-label schemes only in a Potato project)")
        return status
    counts = {**_counts(built.view, pred_mark),
              **tested_setup(spec, config, built.view, pred_mark, known)}
    same = stored is not None and bool(stored_counts) and all(
        counts.get(k) == v for k, v in stored_counts.items())
    if same:
        return status_of(spec, ledger, stored, ["unchanged labels: the stored result, "
                                                "nothing spent"])
    if stored is not None and kept is not None and same_cert(stored_counts, counts):
        done = certify_same_cert(spec, evaluate, built.view, built.notes, ledger, stored,
                                 stored_counts, counts, kept, retest=retest, auto=auto)
        if done is not None:
            return done
    looks = ledger.looks(spec.id, spec.renamed_from)
    contract = method_contract(spec)
    look = max(1, looks) if kind in NEVER_SPEND else looks + 1
    result = evaluate(contract, built.view, look).to_json()
    spends = bool(result.get("ran")) and kind not in NEVER_SPEND
    if kind not in NEVER_SPEND and not spends:  # no test reached: nothing spent, and the
        look = max(1, looks)  # result is the one at max(1, looks), as Potato stores it
        result = evaluate(contract, built.view, look).to_json()
    if kind == "selective_risk":  # what same_cert compares, on either store
        result["signature"] = signature(spec, built.view, result)
    moved = state_moved(stored, stored_counts, result, counts,
                        look_level(look, contract.confidence) if spends else None)
    if moved:  # recorded with the result, so status and the certificate keep saying it
        result["notes"] = [*result.get("notes", []), moved]
    spent = ledger.level_spent(spec.id, spec.renamed_from)
    notes = list(built.notes)
    if spends:
        level = look_level(look, contract.confidence)
        data = hashlib.sha256(json.dumps(counts, sort_keys=True).encode()).hexdigest()
        ledger.append_look(spec.id, look=look, level=level, data_hash=data,
                           rule=result.get("acceptance"),
                           result={KEY: result, "counts": counts},
                           cascade=list(config.tiers_for(spec.schema)),
                           renamed_from=spec.renamed_from)
        looks, spent = look, spent + level
    else:
        record_evaluation(ledger, spec.id, look, {KEY: result, "counts": counts})
        if kind not in NEVER_SPEND:
            notes.append(f"look {looks + 1} reached no test, so none was spent: this is "
                         f"the evaluation at look {look}, as Potato stores it")
    return ContractStatus(spec, str(result.get("status")), looks, spent,
                          cli_result(kind, result), [*notes, *result.get("notes", [])],
                          accepts_of(kind, result))
