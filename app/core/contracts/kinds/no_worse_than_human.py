"""The ``no_worse_than_human`` contract: the alternative annotator test on dev labels.

``evaluate_no_worse_than_human(spec, data) -> KindOutcome`` runs
:func:`~app.core.contracts.statistics.annotator_test.alternative_annotator_test` (Calderon,
Reichart and Dror 2025) on the dev items labelled by several people, with the machine
label per item, margin ``epsilon`` and Benjamini–Yekutieli at ``1 − confidence``
(``contracts.md``). It never spends a look.

States: ``pending`` without dev labels; ``insufficient`` until at least 3 people have
30 comparable items each (the primitive's defaults, the spec's numbers); then ``met``
at a winning rate of at least 0.5 and ``unmet`` below.

Choices where the spec is silent (each with its reason):

- **Machine label**: the one the cascade would deliver under the current rules (the
  engine's ``delivered``, as for ``ppi``): whether a machine can replace a person is a
  question about the labels it would deliver in that person's place, on the items where
  it delivers them (the cascade's choice reads only the machine's confidence, and the
  person and the machine are compared on the same items). Before any rule delivers
  anything (``delivered`` is ``None``) the first tier, cheapest first, with a prediction
  stands in (:func:`app.core.contracts.kinds.ppi.delivered_labels`), with the engine's
  note.
- **Agreement** is ``1 − loss`` of the schema's loss family
  (:func:`app.core.contracts.labels.losses.loss`), so graded families give partial credit the
  way a machine is scored elsewhere; for categorical schemes it is exact match, the
  paper's accuracy. An undefined loss (a trace pair with no step labelled by both)
  counts as agreement 1: nothing in it disagrees, the same leniency as the trace loss's
  "compare only the shared steps", and it applies alike to the machine and to people.
- **Several labels by one person on an item** cannot occur (edits are resolved); if
  they did, the last one listed wins.
- The ``projection`` of an ``insufficient`` result lists, per person, how many more
  comparable items they need (30 − what they have) and how many more people must reach
  30 (3 − those who did).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.core.contracts.config.contract_specs import DEFAULT_CONFIDENCE, ContractSpec
from app.core.contracts.kinds.base import KindContext, KindOutcome, MachineLabel, SchemaData
from app.core.contracts.labels.losses import loss
from app.core.contracts.labels.machine_labels import dev_label_count, machine_labels
from app.core.contracts.statistics.annotator_test import (
    MIN_ITEMS_PER_PERSON,
    MIN_PEOPLE,
    alternative_annotator_test,
)
from app.core.model import Answer, Scheme

#: The winning rate at which the machine passes (the paper's threshold).
PASSING_RATE = 0.5


def agreement_for(scheme: Scheme) -> Callable[[Answer, Answer], float]:
    """``agreement(candidate, reference) = 1 − loss``; an undefined loss counts as 1."""

    def agreement(candidate: Answer, reference: Answer) -> float:
        value = loss(scheme, candidate, reference)
        return 1.0 if value is None else 1.0 - value

    return agreement


def evaluate_no_worse_than_human(spec: ContractSpec, data: SchemaData,
                                 delivered: Mapping[str, MachineLabel] | None = None
                                 ) -> KindOutcome:
    """The alternative annotator test on dev labels; see the module for the states."""
    epsilon = float(spec.params["epsilon"])
    confidence = float(spec.params.get("confidence") or DEFAULT_CONFIDENCE)
    notes: list[str] = []
    result: dict[str, Any] = {"winning_rate": None, "machine_alignment": None,
                              "human_alignment": None, "per_annotator": {},
                              "epsilon": epsilon, "confidence": confidence}
    if dev_label_count(data) == 0:
        notes.append("no dev labels yet: nothing to compare")
        return KindOutcome("pending", result, notes)
    machine = {item: m.label for item, m in machine_labels(data, delivered).items()}
    humans: dict[str, dict[str, Answer]] = {}
    for item in sorted(data.dev):
        labels = data.dev[item]
        if len(labels) >= 2:
            humans[item] = {h.annotator: h.label for h in labels}
    test = alternative_annotator_test(humans, machine, epsilon, confidence,
                                      agreement_for(data.scheme),
                                      min_items_per_person=MIN_ITEMS_PER_PERSON,
                                      min_people=MIN_PEOPLE)
    result.update({
        "winning_rate": test.winning_rate,
        "advantage_probability": test.advantage_probability,
        "machine_alignment": test.machine_alignment,
        "human_alignment": test.human_alignment,
        "per_annotator": {str(person): {"n_items": c.n_items, "p": c.p,
                                        "advantage": c.advantage, "beaten": c.beaten}
                          for person, c in test.per_annotator.items()},
        "skipped": {str(person): why for person, why in test.skipped.items()},
    })
    if test.winning_rate is None:
        counts = _comparable_items(data, machine)
        ready = sum(1 for n in counts.values() if n >= MIN_ITEMS_PER_PERSON)
        result["projection"] = {
            "more_people": max(0, MIN_PEOPLE - ready),
            "more_items": {person: MIN_ITEMS_PER_PERSON - n for person, n in counts.items()
                           if n < MIN_ITEMS_PER_PERSON},
        }
        if test.reason:
            notes.append(test.reason)
        notes.append(f"the test needs at least {MIN_PEOPLE} people with "
                     f"{MIN_ITEMS_PER_PERSON} items each, labelled by the machine and "
                     "another person")
        return KindOutcome("insufficient", result, notes)
    if test.winning_rate >= PASSING_RATE:
        return KindOutcome("met", result, notes)
    notes.append(f"the machine beats {test.winning_rate:.0%} of the people; it needs "
                 f"{PASSING_RATE:.0%}")
    return KindOutcome("unmet", result, notes)


def _comparable_items(data: SchemaData, machine: Mapping[str, Answer]) -> dict[str, int]:
    """Every dev person → items they share with the machine and another person."""
    counts: dict[str, int] = {}
    for item in sorted(data.dev):
        labels = data.dev[item]
        for h in labels:
            counts.setdefault(h.annotator, 0)
            if item in machine and len({x.annotator for x in labels}) >= 2:
                counts[h.annotator] += 1
    return counts


def evaluate(spec: ContractSpec, data: SchemaData, context: KindContext) -> KindOutcome:
    """The registry's entry: the test on the delivered labels (it spends no look)."""
    return evaluate_no_worse_than_human(spec, data, context.delivered)


def claim(schema: str, params: dict[str, Any]) -> str:
    """What a ``no_worse_than_human`` contract promises, in one sentence."""
    return (f"the machine agrees with people on '{schema}' no worse than a person does "
            f"(margin {params.get('epsilon', 0):g}), beating at least half of them")
