"""``accord label status`` and ``certify``: the whole picture as one result object.

Reads the project (study, engine configuration, labeling files, ledger), evaluates the
contracts (testing with ``certify``), and returns a :class:`LabelReport` whose
:meth:`~LabelReport.to_json` is the JSON of ``cli.md``.

The report is built with the cyclic garbage collector paused
(:func:`~app.core.gc_pause.gc_paused`): 300,000 predictions and their machine
labels are acyclic, and the full collections their allocation triggers found nothing
while costing about a fifth of ``label status`` on a 100,000-item study.
"""

from __future__ import annotations

import contextlib
import math
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.contracts.config.contract_specs import DEFAULT_CONFIDENCE
from app.core.contracts.config.engine_config import EngineConfig, load_engine_config
from app.core.contracts.kinds.base import SchemaData
from app.core.contracts.kinds.registry import kind_info
from app.core.contracts.labels.delivery import (
    blocking,
    delivered,
    export_rows,
    human_items,
    training_rows,
)
from app.core.contracts.labels.families import loss_family
from app.core.contracts.labels.schema_data import schema_inputs
from app.core.contracts.ledger.chain import Ledger
from app.core.contracts.ledger.lock import CertifyBusyError, certify_lock
from app.core.contracts.ledger.recovery import recover
from app.core.contracts.potato_method.audit import Audit, audit_contracts
from app.core.contracts.potato_method.engine import (
    labeling_statuses,
    potato_statuses,
    potato_today,
)
from app.core.contracts.preview import PREVIEW_NOTE, scratch_ledger
from app.core.contracts.statistics.distributions import import_in_background
from app.core.contracts.statistics.looks import look_level
from app.core.contracts.status import ContractStatus
from app.core.errors import InputError
from app.core.formats.labeling.data import LabelingData
from app.core.formats.labeling.reader import (
    PREDICTIONS_FILE,
    REQUESTS_FILE,
    labeling_dir,
    read_labeling,
)
from app.core.formats.potato.config import read_config
from app.core.formats.potato.engine.store import (
    EngineStore,
    StartedRead,
    engine_database,
    for_study,
    read_engine_store,
)
from app.core.formats.potato.prestudy import prestudy_answers
from app.core.formats.potato.project import read_potato
from app.core.gc_pause import gc_paused
from app.core.model import Study
from app.core.progress import run

SCHEDULE_BUSY = ("another certify was running on this project, so nothing was evaluated "
                 "on its own this time: these are the stored results (reload to see what "
                 "it records)")


@dataclass(slots=True)
class LabelReport:
    study: Study
    config: EngineConfig
    labeling: LabelingData
    data: dict[str, SchemaData]
    contracts: dict[str, ContractStatus]
    ledger: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    potato: EngineStore | None = None
    """Potato's engine database, when the labels came from one."""
    audits: dict[str, Audit] = field(default_factory=dict)
    """Per contract, Potato's record audited against Accord's Potato-method recomputation."""

    def accepted(self) -> dict[str, dict[str, dict[str, int]]]:
        out: dict[str, dict[str, dict[str, int]]] = {}
        for schema, data in self.data.items():
            humans = set(human_items(self.study, self.labeling, schema))
            counts: dict[str, int] = {}
            for d in delivered(self.config, self.contracts, data, humans).values():
                counts[d.tier] = counts.get(d.tier, 0) + 1
            out[schema] = {"by_source": counts}
            if self.potato is not None:
                resolved: Mapping[str, int] = self.potato.records.resolved.get(schema, {})
                out[schema]["resolved"] = dict(sorted(resolved.items()))
        return out

    def unsupported_schemas(self) -> list[str]:
        return [name for name, scheme in self.study.schemes.items()
                if loss_family(scheme) is None]

    def to_json(self) -> dict[str, Any]:
        contracts = {}
        for ident, status in self.contracts.items():
            entry = status.to_json()
            blocked = blocking(self.config, self.contracts, status.spec.schema)
            entry["notes"].extend(w for c, w in self.config.warnings if c == ident)
            if self.potato is not None:
                record = self.potato.records.contracts.get(ident)
                entry["potato"] = None if record is None else record.to_json()
                audit = self.audits.get(ident)
                entry["audit"] = None if audit is None else audit.to_json()
            if blocked and kind_info(status.spec.kind).gates:
                entry["notes"].append("machine labels on this schema are not accepted until "
                                      f"every gating contract is met: {', '.join(blocked)}")
            contracts[ident] = entry
        out = {"contracts": contracts, "accepted": self.accepted(),
               "unsupported_schemas": self.unsupported_schemas(), "ledger": self.ledger}
        if self.notes:
            out["notes"] = list(self.notes)
        return out

    def export(self) -> list[dict[str, Any]]:
        return export_rows(self.study, self.config, self.labeling, self.contracts, self.data)

    def training(self) -> list[dict[str, Any]]:
        return training_rows(self.study, self.labeling, list(self.data))


def label_report(project: Path, *, certify: bool = False, retest: bool = False,
                 only: str | None = None, acknowledge_ledger: bool = False,
                 study: Study | None = None, schedule: bool = False,
                 preview: bool = False) -> LabelReport:
    """The whole labeling picture; ``study`` spares re-reading a project already loaded.

    ``schedule``: certify on its own what is due, by Potato's planner rule
    (:mod:`app.core.contracts.potato_method.engine`). Writes the ledger like ``certify``
    (never on a damaged ledger: then it behaves like ``status``).

    ``preview``: a folder Accord must not write (a bundled demo): every contract evaluated
    as ``certify`` would, against a scratch copy of the ledger that is thrown away
    (:mod:`app.core.contracts.preview`); nothing is written into ``project``.
    """
    with gc_paused():
        if not preview:
            return _label_report(project, certify=certify, retest=retest, only=only,
                                 acknowledge_ledger=acknowledge_ledger, study=study,
                                 schedule=schedule)
        with tempfile.TemporaryDirectory(prefix="accord-preview-") as scratch, \
                scratch_ledger(project, Path(scratch)) as place:
            report = _label_report(project, certify=False, retest=False, only=None,
                                   acknowledge_ledger=False, study=study, schedule=False,
                                   ledger_at=place)
        for status in report.contracts.values():
            status.notes.insert(0, PREVIEW_NOTE)
        return report


def _label_report(project: Path, *, certify: bool, retest: bool, only: str | None,
                  acknowledge_ledger: bool, study: Study | None, schedule: bool,
                  ledger_at: Path | None = None) -> LabelReport:
    if study is not None:
        return _label_report_of(project, study, None, certify=certify, retest=retest,
                                only=only, acknowledge_ledger=acknowledge_ledger,
                                schedule=schedule, ledger_at=ledger_at)
    early = _start_engine_read(project)
    try:  # the engine's people are read as its requests, not as Potato output
        study_ = run(read_potato(project, people=False))
        return _label_report_of(project, study_, early, certify=certify,
                                retest=retest, only=only,
                                acknowledge_ledger=acknowledge_ledger, schedule=schedule,
                                ledger_at=ledger_at)
    finally:
        if early is not None:
            early.close()  # used, or abandoned on the way (an error, another store)


def _start_engine_read(project: Path) -> StartedRead | None:
    """The project's ``engine.sqlite`` read started before its data files are parsed, so
    SQLite's long work (the integrity check, each tier's sort) runs on its threads while
    this thread parses them (a million items: seconds). ``None`` without a database, or
    when anything here goes wrong: the read then happens in its turn, and so does the
    error, in the order it always had."""
    try:
        potato = read_config(project)
        database = engine_database(potato.root)
        config = load_engine_config(project, None) if database is not None else None
        if database is None or config is None or not config.enabled:
            return None
        labels = [label for scheme in potato.schemes
                  for label in (*scheme.labels, *scheme.scale)]
        import_in_background()  # alone in the process, before SQLite's threads: 10 ms
        return StartedRead(database, config.tier_names, labels)
    except Exception:  # named later, where the read would have named it
        return None


def _label_report_of(project: Path, study: Study, early: StartedRead | None, *,
                     certify: bool, retest: bool, only: str | None,
                     acknowledge_ledger: bool, schedule: bool, ledger_at: Path | None
                     ) -> LabelReport:
    config = load_engine_config(project, study)
    if config is None:
        raise InputError("no labeling engine is configured: expected labeling/engine.yaml or "
                         "a labeling_engine: block in config.yaml", file=project)
    if not config.enabled:
        raise InputError("the labeling_engine block is not enabled, so Potato 2.12 does "
                         "nothing with it; expected enabled: true", file=config.source,
                         key="labeling_engine.enabled")
    if only is not None and config.contract(only) is None:
        raise InputError(f"no contract '{only}'; the configuration has: "
                         f"{', '.join(c.id for c in config.contracts)}", key="--contract")
    busy: list[str] = []
    with contextlib.ExitStack() as held:
        if ledger_at is None and (certify or schedule):
            try:  # one certify at a time, the GUI's and the CLI's (ledger/lock.py)
                held.enter_context(certify_lock(project))
            except CertifyBusyError:
                if certify:
                    raise
                schedule = False  # the watcher's look waits for the next change
                busy = [SCHEDULE_BUSY]
            else:
                recover(project)  # a crashed run's temporary files and head
        report = _evaluate(project, study, config, early, certify=certify, retest=retest,
                           only=only, acknowledge_ledger=acknowledge_ledger,
                           schedule=schedule, ledger_at=ledger_at)
    report.notes.extend(busy)
    for status in report.contracts.values():  # the contracts view shows these
        status.notes.extend(busy)
    return report


def _evaluate(project: Path, study: Study, config: EngineConfig, early: StartedRead | None,
              *, certify: bool, retest: bool, only: str | None, acknowledge_ledger: bool,
              schedule: bool, ledger_at: Path | None) -> LabelReport:
    if engine_database(study.root) is not None:  # the audit evaluates every contract
        import_in_background()
    labeling, store, notes = _labeling(project, study, config, early)
    prior = _potato_looks(config, store)
    ledger = Ledger.open(ledger_at or project, prior)
    if ledger_at is not None:  # a preview: certify on the scratch ledger, if it is intact
        certify = ledger.ok
    if acknowledge_ledger and not ledger.ok:
        ledger.acknowledge_damage(ledger.damage)
        ledger = Ledger.open(project, prior)
    data = schema_inputs(study, labeling, config)
    audits: dict[str, Audit] = {}
    if store is not None:  # a Potato project: Potato's method, its five states
        groups = _groups_by(project, study, config)  # the audit first: a record that
        # moved since Potato stored it stands as the audit's evaluation of today's rows
        audits = audit_contracts(store, config, study,
                                 potato_today(store, config, ledger, groups))
        statuses = potato_statuses(store, config, study, ledger, certify=certify,
                                   retest=retest, only=only,
                                   person_groups=groups, audits=audits)
    else:  # Accord's own files: the same method, Accord's ledger holds every result
        statuses = labeling_statuses(labeling, config, study, ledger, certify=certify,
                                     retest=retest, only=only, schedule=schedule)
    if ledger_at is not None:  # a preview: the looks are the project's own, none spent
        recorded = Ledger.open(project, prior)
        for status in statuses.values():
            status.looks = recorded.looks(status.spec.id, status.spec.renamed_from)
            status.level_spent = recorded.level_spent(status.spec.id, status.spec.renamed_from)
        ledger = recorded
    return LabelReport(study, config, labeling, data, statuses, ledger.report, notes, store,
                       audits)


def _groups_by(project: Path, study: Study, config: EngineConfig
               ) -> dict[str, dict[str, str]] | None:
    """The annotators' prestudy answers when a distributional contract groups by one
    (``None`` when none does: nothing is read)."""
    if not any(str(c.kind) == "distributional" and c.params.get("groups_by")
               for c in config.contracts):
        return None
    return prestudy_answers(project, study.annotators)


def _potato_looks(config: EngineConfig, store: EngineStore | None
                  ) -> dict[str, tuple[int, float]]:
    """The looks Potato's engine already spent, per contract of the configuration, and
    their levels (Potato's series, ``potato-engine.md`` §4, at the contract's confidence)."""
    if store is None:
        return {}
    out: dict[str, tuple[int, float]] = {}
    for spec in config.contracts:
        record = store.records.contracts.get(spec.id)
        if record is None or record.looks < 1:
            continue
        confidence = float(spec.params.get("confidence") or DEFAULT_CONFIDENCE)
        spent = math.fsum(look_level(k, confidence) for k in range(1, record.looks + 1))
        out[spec.id] = (record.looks, spent)
    return out


def _labeling(project: Path, study: Study, config: EngineConfig,
              early: StartedRead | None = None
              ) -> tuple[LabelingData, EngineStore | None, list[str]]:
    """The labels from Potato's ``engine.sqlite`` when the project has one, else from
    Accord's ``labeling/*.jsonl``; both at once is an error naming both. ``early``: the
    database's read started before the study was loaded, used when it is the read this
    one would start (the same database, tiers and labels)."""
    database = engine_database(study.root)
    if database is None:
        return read_labeling(project, study, config.tier_names), None, []
    own = [f for f in (labeling_dir(project) / PREDICTIONS_FILE,
                       labeling_dir(project) / REQUESTS_FILE) if f.is_file()]
    if own:
        raise InputError(f"the labels are kept twice: in {database} (Potato's engine) and in "
                         f"{own[0]}; expected one store", file=own[0])
    labels = [label for scheme in study.schemes.values()
              for label in (*scheme.labels, *scheme.scale)]
    if early is not None and (early.database, early.tiers, early.labels) == (
            database, config.tier_names, labels):
        store = early.finish()
    else:
        if early is not None:
            early.close()  # another read than this one: not waited for
        store = read_engine_store(database, config.tier_names, labels)
    labeling, notes = for_study(store, study.items.keys(), study.schemes)
    return labeling, store, notes
