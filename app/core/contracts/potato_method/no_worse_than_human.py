"""``no_worse_than_human`` as Potato 2.12.1 evaluates it: is the machine as good as a person?

A target of absolute accuracy against people's labels partly measures their noise; this
kind asks instead whether the machine could stand in for one of the people, with the
alternative annotator test (:mod:`app.core.contracts.potato_method.alt_test`) on every
calibration item, dev and cert alike, and the routed output as the machine's label, the
label the engine would deliver (``potato-engine.md`` §4,
``contracts/no_worse_than_human.py``). Each look tests at its own stricter level, the
Benjamini–Yekutieli target being the look's share of ``1 − confidence``.

Failing to show that the machine is as good is not showing that it is worse: the state
is ``violated`` only when even the point estimates put the machine's advantage below
the people's by more than ``epsilon``; otherwise it stays ``insufficient``, with more
overlap items as the way forward.
"""

from __future__ import annotations

import math
from typing import Any

from app.core.contracts.potato_method.alt_test import PEOPLE_NEEDED, alternative_annotator_test
from app.core.contracts.potato_method.view import MethodContract, MethodResult, MethodView

DEFAULT_EPSILON = 0.1
"""Potato's default allowance (the paper's rule of thumb for crowd workers)."""
DEFAULT_ITEMS = 30
"""Usable items a person needs to be tested; below 30 the test is Wilcoxon's."""


def _level(delta: float, look: int) -> float:
    """The level of look ``look``: ``delta · 6 / (π² k²)``, Potato's ``look_alpha``."""
    k = max(1, int(look))
    return delta * 6.0 / (math.pi ** 2 * k * k)


def evaluate_no_worse_than_human(contract: MethodContract, view: MethodView,
                                 look: int = 1) -> MethodResult:
    """Potato's verdict for a ``no_worse_than_human`` contract at look ``look``."""
    result = MethodResult(state="insufficient", look=look)
    if not view.output_complete:
        result.notes.append("Some items have no routed machine label yet.")
    machine = {c.item: (c.output.value if c.output is not None and c.output.answered
                        else None) for c in view.calibration}
    people: dict[str, dict[str, Any]] = {}
    for c in view.calibration:
        for person, label in c.people.items():
            people.setdefault(person, {})[c.item] = label
    epsilon = float(contract.params.get("epsilon", DEFAULT_EPSILON))
    metric = contract.params.get("metric", "accuracy")
    needed = int(contract.params.get("min_items_per_annotator", DEFAULT_ITEMS))
    alpha = _level(1.0 - float(contract.confidence), look)
    out = alternative_annotator_test(machine, people, epsilon=epsilon, alpha=alpha,
                                     metric=metric, items_needed=needed,
                                     test="ttest" if needed >= DEFAULT_ITEMS else "wilcoxon")
    overlap = sum(1 for c in view.calibration if len(c.people) >= 2)
    result.metrics = {"alt_test": out, "overlap_items": overlap}
    result.alpha = alpha
    if out["passed"] is None:
        result.ran = False
        result.notes.append(out["insufficient"] or "not enough overlapping human labels")
        result.projection = {"more_overlap_items": max(0, needed - overlap),
                             "note": f"The alt-test needs at least {PEOPLE_NEEDED} "
                                     f"annotators with {needed} shared items each."}
    elif out["passed"]:
        result.state = "met"
    else:
        tested = out["per_annotator"]
        ours = sum(row["llm_advantage"] for row in tested) / len(tested)
        theirs = sum(row["human_advantage"] for row in tested) / len(tested)
        result.metrics["mean_advantage"] = {"machine": ours, "people": theirs}
        if ours < theirs - epsilon:
            result.state = "violated"
        else:
            result.projection = {
                "note": "The machine's point estimates are within the allowance of the "
                        "people's, but the test could not confirm it. More items labeled "
                        "by several people would.",
                "more_overlap_items": max(10, overlap // 2)}
    verdict = "is" if out["passed"] else "is not shown to be"
    result.statement = (
        f"The machine {verdict} as good as a person here: it beat "
        f"{out['winning_rate'] or 0:.0%} of {out['n_annotators']} annotators at epsilon "
        f"{epsilon} (alt-test, FDR {alpha:.2f}); advantage probability "
        f"{(out['advantage_probability'] or 0):.2f}.")
    return result
