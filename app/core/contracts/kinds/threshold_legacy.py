"""The ``threshold_legacy`` contract: a fixed confidence threshold with no test.

``evaluate_threshold_legacy(spec, data) -> KindOutcome`` is always ``met`` with
``certified: false`` (``contracts.md``): the labels it accepts are delivered as
``accepted_uncertified``. It reports ``measured_error``, the error of the labels it
accepts over the **dev** labels, and spends no look.

Choices where the spec is silent (each with its reason):

- ``accepts`` is ``{tier: threshold}`` for **every** tier: an item goes to the first
  tier, cheapest first, whose confidence is at least the threshold (the cascade's
  routing rule). The old ``icl_labeling`` block had one labeller and one threshold, so a
  migrated configuration (one tier) behaves exactly as before; with several tiers the
  same threshold applies to each rather than silently dropping the cheaper ones.
- The measured error follows that routing: each dev item accepted by some tier is
  scored with that tier's label. **Every dev label counts once** (an item labelled by
  three people gives three comparisons), so it is the error "over the dev labels" the
  spec names. A label is an error when its loss is above the default tolerance 0.5
  (the contract has no ``tolerance`` key); a pair whose loss is undefined (a trace with
  no shared step) is left out with a note.
- No accepted dev label leaves ``measured_error`` ``None`` with ``measured_error_reason``.
- ``by_tier`` gives the same counts per accepting tier, so a certificate can say which
  labeller made the errors.
"""

from __future__ import annotations

from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.kinds.base import KindContext, KindOutcome, MachineLabel, SchemaData
from app.core.contracts.labels.losses import DEFAULT_TOLERANCE, is_correct


def accepting_tier(data: SchemaData, item: str, threshold: float
                   ) -> tuple[str, MachineLabel] | None:
    """The first tier whose prediction for ``item`` has confidence ≥ ``threshold``."""
    for tier in data.tiers:
        label = data.predictions.get(tier, {}).get(item)
        if label is not None and label.confidence >= threshold:
            return tier, label
    return None


def evaluate_threshold_legacy(spec: ContractSpec, data: SchemaData) -> KindOutcome:
    """Always ``met``, uncertified; the measured dev error of what it accepts."""
    threshold = float(spec.params["threshold"])
    notes: list[str] = []
    by_tier: dict[str, dict[str, int]] = {t: {"n_labels": 0, "errors": 0, "n_items": 0}
                                          for t in data.tiers}
    undefined = 0
    for item in sorted(data.dev):
        labels = data.dev[item]
        if not labels:
            continue
        accepted = accepting_tier(data, item, threshold)
        if accepted is None:
            continue
        tier, machine = accepted
        counts = by_tier.setdefault(tier, {"n_labels": 0, "errors": 0, "n_items": 0})
        counts["n_items"] += 1
        for human in labels:
            correct = is_correct(data.scheme, machine.label, human.label, DEFAULT_TOLERANCE)
            if correct is None:
                undefined += 1
                continue
            counts["n_labels"] += 1
            counts["errors"] += not correct
    n_labels = sum(c["n_labels"] for c in by_tier.values())
    errors = sum(c["errors"] for c in by_tier.values())
    result: dict[str, Any] = {
        "threshold": threshold,
        "certified": False,
        "measured_error": errors / n_labels if n_labels else None,
        "n_labels": n_labels,
        "errors": errors,
        "n_items": sum(c["n_items"] for c in by_tier.values()),
        "by_tier": by_tier,
    }
    if undefined:
        notes.append(f"{undefined} dev labels have an undefined loss against the machine "
                     "label and are not counted")
    if not n_labels:
        reason = (f"no dev label falls on an item the threshold {threshold} accepts, so "
                  "the error of its labels cannot be measured yet")
        result["measured_error_reason"] = reason
        notes.append(reason)
    notes.append("threshold_legacy accepts labels without a test: they are uncertified")
    accepts: dict[str, Any] = dict.fromkeys(data.tiers, threshold)
    return KindOutcome("met", result, notes, tested=False, accepts=accepts,
                       data={"threshold": threshold})


def evaluate(spec: ContractSpec, data: SchemaData, context: KindContext) -> KindOutcome:
    """The registry's entry: the fixed threshold (the context is not read)."""
    return evaluate_threshold_legacy(spec, data)


def claim(schema: str, params: dict[str, Any]) -> str:
    """What a ``threshold_legacy`` contract promises, in one sentence."""
    return (f"machine labels on '{schema}' with confidence at least "
            f"{float(params['threshold']):g} are accepted without a test (uncertified)")
