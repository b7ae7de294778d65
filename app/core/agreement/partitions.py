"""Machine raters apart from people: the headline over people, and three partitions.

Why: a coefficient over a reliability matrix that mixes people and machines estimates
neither group's reliability, and a language model run against a live study would quietly
move the number a study exists to publish. Potato 2.12.1 marks a declared machine
annotator with an ``origin`` on its ``user_state.json``; which origins are machines is
:func:`app.core.model.machine_origin`. When a study holds at least one machine rater,
its report is computed three times on the same pipeline, each time over a study
restricted to one set of raters (what Potato's ``/admin/iaa`` does with its
``partition``): ``human_human`` (people only: also the headline of every scheme),
``machine_machine`` (machine raters only) and ``pooled`` (everyone). The report's top
level carries the ``annotators`` block (``n_human``, ``n_machine``, ``human``,
``machine``, ``machine_detail``) in the shape of Potato's ``annotator_origin.summarize``,
and ``pooling`` says which partition the headline is. A study without a machine rater
gets exactly the report it had, with none of these keys (as Potato's).

Choices where the spec is silent:

- The ``annotators`` block counts every annotator of the project; Potato counts those
  who answered an item that reached its cap. With every item at its cap they are the
  same people.
- A partition is a whole report (coverage, every scheme, its notes); the project's own
  notes are on the headline only. Counts of repaired or rejected answers are the
  project's, so each partition repeats them.
- ``coverage.n_annotators`` of the report is the whole project's; each partition has
  its own. ``num_annotators_per_item`` counts every rater of the project, so only
  ``pooled`` counts the scored items below it: three people on an item capped at six
  raters are not "below the cap".
- A scheme nobody of a partition answered says so in those words ("no person answered
  this scheme; only machine raters did") instead of "nobody answered this scheme".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from app.core.agreement.result import AgreementReport, SchemeResult
from app.core.model import Answer, Study
from app.core.progress import Job, Progress, scaled

HUMAN_HUMAN = "human_human"
MACHINE_MACHINE = "machine_machine"
POOLED = "pooled"
PARTITIONS = (HUMAN_HUMAN, MACHINE_MACHINE, POOLED)
POOLING_NOTE = (
    "Machine raters are declared in this project, so every headline number is over "
    "people only. Agreement among the machine raters is under partitions.machine_machine, "
    "and everyone together under partitions.pooled: a coefficient over people and "
    "machines mixed estimates neither group's reliability.")
NOBODY = "nobody answered this scheme"
WHO = {HUMAN_HUMAN: ("no person answered this scheme; only machine raters did"),
       MACHINE_MACHINE: ("no machine rater answered this scheme; only people did")}


def describe(origin: Mapping[str, Any]) -> str:
    """A machine rater in a few words: its id (else its kind), version, database version
    and kind in brackets, e.g. ``ner_tool 3.7.2 db en_core_web_sm-3.7.1 (tool)``; the
    wording of Potato's ``machine_detail``, so the two reports read the same."""
    kind = origin.get("kind", "human")
    parts = [str(origin.get("id") or kind)]
    if origin.get("version"):
        parts.append(str(origin["version"]))
    if origin.get("database_version"):
        parts.append(f"db {origin['database_version']}")
    return f"{' '.join(parts)} ({kind})"


def annotators_block(study: Study) -> dict[str, Any]:
    """Who is a person and who a machine, in the shape of Potato's ``annotators`` block."""
    machines = sorted(a for a in study.annotators if a in study.origins)
    humans = sorted(a for a in study.annotators if a not in study.origins)
    return {"n_human": len(humans), "n_machine": len(machines), "human": humans,
            "machine": machines,
            "machine_detail": {a: describe(study.origins[a]) for a in machines}}


def restrict(study: Study, keep: Iterable[str]) -> Study:
    """``study`` with the answers of the annotators in ``keep`` only (items, schemes and
    the project's counts unchanged; the project's notes left to the headline; no
    ``num_annotators_per_item`` cap, which counts every rater of the project)."""
    wanted = frozenset(keep)
    answers: dict[str, dict[str, dict[str, Answer]]] = {}
    for scheme, by_item in study.answers.items():
        answers[scheme] = {item: sub for item, by in by_item.items()
                           if (sub := {a: v for a, v in by.items() if a in wanted})}
    return Study(root=study.root, items=study.items, schemes=study.schemes,
                 annotators=tuple(a for a in study.annotators if a in wanted),
                 answers=answers, annotators_per_item=None,
                 single_choice_repairs=study.single_choice_repairs,
                 rejected=study.rejected,
                 origins={a: o for a, o in study.origins.items() if a in wanted})


def partitioned(study: Study, one: Callable[[Study], Job[AgreementReport]]
                ) -> Job[AgreementReport]:
    """The report of a study with machine raters: ``one`` (the per-study pipeline) run over
    the people, the machines and everyone; the people's report is the headline."""
    machines = study.machine_raters
    people = [a for a in study.annotators if a not in machines]
    human = yield from scaled(one(restrict(study, people)), 0, 1, 3)
    machine = yield from scaled(one(restrict(study, machines)), 1, 2, 3)
    pooled = yield from scaled(one(study), 2, 3, 3)
    for name, part in ((HUMAN_HUMAN, human), (MACHINE_MACHINE, machine)):
        _say_who(part, pooled, WHO[name])
    human.members = tuple(people)
    machine.members = tuple(a for a in study.annotators if a in machines)
    pooled.members = study.annotators
    yield Progress(3, 3, "done")
    return AgreementReport(
        project=pooled.project, n_items=pooled.n_items, n_annotators=len(study.annotators),
        schemes=human.schemes, notes=list(pooled.notes), version=pooled.version,
        partitions={HUMAN_HUMAN: human, MACHINE_MACHINE: machine, POOLED: pooled},
        annotators=annotators_block(study),
        pooling={"headline": HUMAN_HUMAN, "note": POOLING_NOTE})


def _say_who(part: AgreementReport, pooled: AgreementReport, sentence: str) -> None:
    """"Nobody answered" is not true of a partition when the others did answer."""
    for name, result in part.schemes.items():
        other = pooled.schemes.get(name)
        if other is None or other.coverage.get("n_items_answered", 0) == 0:
            continue
        for metric, reason in result.undefined.items():
            if reason == NOBODY:
                result.undefined[metric] = sentence


def drawn(report: AgreementReport, scheme: str) -> SchemeResult | None:
    """The result a view draws per annotator: everyone (``pooled``) when the project has
    machine raters, so they are shown beside the people and marked; else the headline."""
    pooled = report.partitions.get(POOLED)
    source = pooled if pooled is not None else report
    return source.schemes.get(scheme)
