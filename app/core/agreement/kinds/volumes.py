"""Volumes: label masks on 3-D medical volumes (``volume_annotation``), ``kinds.md`` B §2.7.

Metrics under Potato 2.12.1's names: ``mean_dice`` (headline) and ``dice_by_label.<label>``
for every label of the scheme (:mod:`app.core.agreement.volumes.report`). Accord reports
the exact means; ``potato_iaa`` holds Potato's own numbers, rounded to 4 decimals as its
report prints them, with a note when they differ from Accord's only by that rounding.
Pairs where neither annotator painted a label are left out, as Potato does, and counted
(``n_pairs_both_empty``, ``kinds.md`` A.5).

Where the spec is silent: ``potato_iaa`` is computed over Accord's scored items, as the
other kinds' Potato blocks are; Potato's ``/admin/iaa`` also leaves out items below their
``num_annotators_per_item`` cap, which the coverage counts (``n_items_below_cap``). Per
annotator pair (the pair matrix): the pair's own per-label means, then their mean.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.kinds.common import NOBODY, ONE_ANNOTATOR
from app.core.agreement.kinds.spec import KindSpec
from app.core.model import Kind, VolumeMasks

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job

METRICS = ("mean_dice",)
"""Declared metrics; ``dice_by_label.<label>`` joins them per label of the scheme once an
item is scored (a scheme with no scored item reports ``mean_dice`` alone, undefined with
its sentence: its labels have nothing to say apart)."""
NO_LABEL_PAIR = ("no annotator pair painted this label on any scored item (pairs where "
                 "both painted nothing are left out, as Potato does)")


def scheme_labels(scheme: Scheme) -> tuple[str, ...]:
    """The scheme's label names, in the config's order (names or ``{name: …}``)."""
    if scheme.labels:
        return tuple(scheme.labels)
    names: list[str] = []
    for entry in scheme.config.get("labels") or []:
        name = entry if isinstance(entry, str) else (entry or {}).get("name")
        if name:
            names.append(str(name))
    return tuple(names)


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    from app.core.agreement.result import pair_key
    from app.core.agreement.volumes.report import volume_agreement

    yield from ()
    labels = scheme_labels(scheme)
    answers = {item: {a: v for a, v in by.items() if isinstance(v, VolumeMasks)}
               for item, by in study.answers_for(scheme.name).items()}
    agreement = volume_agreement(answers, labels)
    undefined = NOBODY if not answers else ONE_ANNOTATOR
    if agreement.n_items == 0:
        if agreement.items_skipped:
            undefined = ("no item has two or more answers on one volume shape "
                         f"({len(agreement.items_skipped)} items skipped)")
        result.put("mean_dice", Coefficient.undefined(undefined))
    elif agreement.mean_dice is None:
        result.put("mean_dice", Coefficient.undefined(NO_LABEL_PAIR))
    else:
        result.put("mean_dice", Coefficient(agreement.mean_dice))
    for label in labels if agreement.n_items else ():  # none scored: mean_dice says why
        value = agreement.dice_by_label[label]
        name = f"dice_by_label.{label}"
        result.put(name, Coefficient.undefined(NO_LABEL_PAIR) if value is None
                   else Coefficient(value))
    result.n_items = agreement.n_items
    result.n_items_skipped += len(agreement.items_skipped)
    result.n_pairs = sum(1 for c in agreement.comparisons if c.label == labels[0]) \
        if labels else 0
    result.coverage["n_items_scored"] = agreement.n_items
    if agreement.items_skipped:
        result.coverage["n_items_different_shapes"] = len(agreement.items_skipped)
        result.notes.append(f"{len(agreement.items_skipped)} items whose answers are not on "
                            "one volume shape are skipped, as Potato does.")
    result.extra["n_pairs_by_label"] = dict(agreement.n_pairs_by_label)
    result.extra["n_pairs_both_empty"] = dict(agreement.n_pairs_both_empty)
    both = sum(agreement.n_pairs_both_empty.values())
    if both:
        result.notes.append(f"{both} (item, pair, label) comparisons where neither annotator "
                            "painted the label are left out of Dice, as Potato does, and "
                            "counted under n_pairs_both_empty.")
    result.pairs = {pair_key(a, b): {"mean_dice": v, "n_items": agreement.pair_items[(a, b)]}
                    for (a, b), v in agreement.pairs.items()}
    _potato(result, agreement.mean_dice, agreement.dice_by_label, agreement.n_items)
    result.details = agreement
    return [result]


def _potato(result: SchemeResult, mean: float | None, by_label: dict[str, float | None],
            n_items: int) -> None:
    """Potato's own report of the same answers: the same means, rounded to 4 dp."""
    def r4(v: float | None) -> float | None:
        return None if v is None else round(v, 4)

    rounded = {k: r4(v) for k, v in by_label.items()}
    potato_mean = [v for v in rounded.values() if v is not None]
    result.extra["potato_iaa"] = {
        "mean_dice": round(sum(potato_mean) / len(potato_mean), 4) if potato_mean else None,
        "dice_by_label": rounded, "n_items": n_items}
    exact = [mean, *by_label.values()]
    shown = [result.extra["potato_iaa"]["mean_dice"], *rounded.values()]
    if any(a != b for a, b in zip(exact, shown, strict=True)):
        result.notes.append("Potato 2.12.1 rounds mean_dice and dice_by_label to 4 decimals "
                            "(its mean over labels of the rounded values); Accord reports "
                            "the exact means, Potato's are under potato_iaa.")


SPEC = KindSpec(
    kind=Kind.VOLUMES, potato_types=frozenset({"volume_annotation"}), metrics=METRICS,
    score=score, summary="Dice per label on 3-D label masks",
)
