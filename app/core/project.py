"""A whole project as one result object: the study, its agreement report and, when a
labeling engine is configured, its contracts.

This is what the GUI opens (one job on the worker pool) and what the certificate reads.
Everything in it comes from the same computation as ``accord agreement`` and ``accord
label status``, so the views, the JSON and the PDF cannot disagree (architecture rule 5).

A project without ``labeling/engine.yaml`` (or a ``labeling_engine:`` block) simply has
no contracts: ``labels`` is ``None`` and ``labels_absent`` says why in a sentence. A
configured engine that is invalid is bad input like any other: the whole open fails
with the reader's message, and nothing is half-loaded.

An open reads ``engine.sqlite`` twice (the people who labelled in it, with the study; the
contracts' store); with a WAL beside it, the private copy both read is made once for the
whole open and removed at its end (:class:`~app.core.formats.potato.engine.copies.
SharedCopies`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.core.agreement.item_scores import ItemScores, all_item_scores
from app.core.agreement.report import agreement_report
from app.core.agreement.result import AgreementReport
from app.core.agreement.sets.structured import SetOptions
from app.core.contracts.config.engine_config import load_engine_config
from app.core.contracts.kinds.coverage_curve import TierCurve, error_coverage_curves
from app.core.contracts.label_report import LabelReport, label_report
from app.core.formats.potato.engine.copies import SharedCopies
from app.core.formats.potato.project import read_potato
from app.core.gc_pause import gc_paused
from app.core.model import Study
from app.core.progress import Job, Progress, scaled

NO_ENGINE = ("no labeling engine is configured (labeling/engine.yaml or a labeling_engine: "
             "block in config.yaml), so there are no contracts to show")


@dataclass(frozen=True, slots=True)
class ProjectData:
    path: Path
    study: Study
    report: AgreementReport
    labels: LabelReport | None
    labels_absent: str | None = None
    item_scores: dict[str, ItemScores] = field(default_factory=dict)
    """Per scheme, every item's score over all annotators: computed here, in the job, so
    the items view never computes it on the GUI thread (0.5 s on 100,000 items)."""
    coverage_curves: dict[str, list[TierCurve]] = field(default_factory=dict)
    """Per ``selective_risk`` contract with dev labels, its error-versus-coverage curves
    (the contracts panel's plot): computed here for the same reason (2.4 s on the GUI
    thread for a 100,000-item study before)."""
    accepted: dict[str, dict[str, dict[str, int]]] | None = None
    """:meth:`LabelReport.accepted`, computed here for the same reason (22 ms on the GUI
    thread at 100,000 items, ten times that at a million); ``None``: not computed (a
    :class:`ProjectData` made elsewhere), ask ``labels``."""


def coverage_curves(labels: LabelReport | None) -> dict[str, list[TierCurve]]:
    """The curves of every ``selective_risk`` contract whose schema has dev labels,
    routed by the rule in its result."""
    if labels is None:
        return {}
    out: dict[str, list[TierCurve]] = {}
    for ident, status in labels.contracts.items():
        data = labels.data.get(status.spec.schema)
        if str(status.spec.kind) != "selective_risk" or data is None:
            continue
        if any(data.dev.values()):
            out[ident] = error_coverage_curves(status.spec, data,
                                               status.result.get("rule") or {})
    return out


def open_project(path: Path, *, options: SetOptions | None = None,
                 certify: bool = False, contract: str | None = None,
                 retest: bool = False, schedule: bool = False,
                 preview: bool = False) -> Job[ProjectData]:
    """Read the project, compute its agreement report and its contracts' status.

    With ``certify`` the due contracts are tested and recorded in the ledger (a look);
    without it nothing is written (``status`` semantics). With ``schedule`` Accord
    certifies on its own what is due (Potato's planner rule,
    :mod:`app.core.contracts.potato_method.engine`): what the GUI does as it watches the
    project. With ``preview`` (a folder Accord must not write, a bundled demo) every
    contract is evaluated as certify would, and nothing is recorded.
    """
    with SharedCopies():  # one copy of a WAL database for the people and the store
        study = yield from scaled(read_potato(path), 0.0, 0.3, 1.0)
        report = yield from scaled(agreement_report(study, project=str(path), options=options),
                                   0.3, 0.85, 1.0)
        labels: LabelReport | None = None
        absent: str | None = None
        yield Progress(0.85, 1.0, "contracts")
        # The collector is paused for the contracts' reading and the curves (see gc_paused):
        # on a million-item study each full collection walks tens of millions of objects in
        # one call that holds the interpreter lock, which the GUI thread would wait for.
        with gc_paused():
            if load_engine_config(path, study) is None:
                absent = NO_ENGINE
            else:
                labels = label_report(path, study=study, certify=certify, only=contract,
                                      retest=retest, schedule=schedule, preview=preview)
            scores = all_item_scores(report)
            curves = coverage_curves(labels)
            accepted = None if labels is None else labels.accepted()
    yield Progress(1.0, 1.0, "done")
    return ProjectData(path=path, study=study, report=report, labels=labels,
                       labels_absent=absent, item_scores=scores, coverage_curves=curves,
                       accepted=accepted)
