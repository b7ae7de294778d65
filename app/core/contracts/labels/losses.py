"""Loss families: how wrong a machine label is against a person's (``contracts.md``).

| family     | loss |
|------------|------|
| categorical| 0 if equal, else 1 |
| ordinal    | \\|a − b\\| / (scale range), positions on the scheme's scale |
| numeric    | \\|a − b\\| / (max − min) of the slider |
| multilabel | 1 − Jaccard (two empty sets: 0) |
| spans      | 1 − span F1 with exact offsets (a span is its start, end and label) |
| regions, segments, 3D objects | 1 − the agreement report's item score |
| traces     | share of the steps both labelled that they labelled differently |

The structured losses call the agreement report's own matching and item score
(:func:`app.core.agreement.sets.agreement.score_pair` with the scheme kind's similarity and
default threshold), so a machine is scored against a person exactly as two people are
scored against each other. A trace loss with no step labelled by both sides is
undefined (``None``): there is nothing to compare.

The agreement modules are imported where a set or multilabel loss is computed, not at
import: through the Hungarian matching they pull in ``scipy.optimize`` (about 0.2 s),
which ``label status`` on a categorical schema never needs.

A label is *correct* when its loss is at most ``tolerance`` (default 0.5 for the
graded families; categorical losses are 0 or 1, so only equality is correct).
"""

from __future__ import annotations

from app.core.contracts.labels.families import loss_family
from app.core.model import Answer, Scheme, TraceJudgement
from app.core.objects import ObjectSet, Span

DEFAULT_TOLERANCE = 0.5


def family(scheme: Scheme) -> str | None:
    """The loss family's name (:func:`app.core.contracts.labels.families.loss_family`)."""
    fam = loss_family(scheme)
    return None if fam is None else fam.value


def loss(scheme: Scheme, machine: Answer, human: Answer) -> float | None:
    """The machine label's loss against the human label, in [0, 1]; ``None``: undefined."""
    fam = family(scheme)
    if fam is None:
        raise ValueError(f"scheme '{scheme.name}' ({scheme.annotation_type}) has no loss family")
    if fam == "categorical":
        return 0.0 if machine == human else 1.0
    if fam in ("ordinal", "numeric"):
        return _scale_loss(scheme, machine, human, numeric=fam == "numeric")
    if fam == "multilabel":
        from app.core.agreement.categorical.alpha import jaccard

        assert isinstance(machine, frozenset) and isinstance(human, frozenset)
        return 1.0 - jaccard(machine, human)
    if fam == "spans":
        assert isinstance(machine, ObjectSet) and isinstance(human, ObjectSet)
        return 1.0 - _span_f1(machine, human)
    if fam == "traces":
        assert isinstance(machine, TraceJudgement) and isinstance(human, TraceJudgement)
        return _trace_loss(machine, human)
    return _set_loss(scheme, machine, human)


def is_correct(scheme: Scheme, machine: Answer, human: Answer,
               tolerance: float = DEFAULT_TOLERANCE) -> bool | None:
    """Loss at most ``tolerance``; ``None`` where the loss is undefined."""
    value = loss(scheme, machine, human)
    return None if value is None else value <= tolerance


def _scale_loss(scheme: Scheme, machine: Answer, human: Answer, *, numeric: bool) -> float:
    if numeric:
        low, high = float(scheme.scale[0]), float(scheme.scale[-1])
        return abs(float(str(machine)) - float(str(human))) / (high - low)
    position = {value: k for k, value in enumerate(scheme.scale)}
    return abs(position[str(machine)] - position[str(human)]) / (len(scheme.scale) - 1)


def _span_f1(machine: ObjectSet, human: ObjectSet) -> float:
    a = {(s.start, s.end, s.label) for s in machine.objects if isinstance(s, Span)}
    b = {(s.start, s.end, s.label) for s in human.objects if isinstance(s, Span)}
    if not a and not b:
        return 1.0
    return 2.0 * len(a & b) / (len(a) + len(b))


def _trace_loss(machine: TraceJudgement, human: TraceJudgement) -> float | None:
    m, h = machine.labelled(), human.labelled()
    shared = [step for step in m if step in h]
    if not shared:
        return None
    return sum(1 for step in shared if m[step] != h[step]) / len(shared)


def _set_loss(scheme: Scheme, machine: Answer, human: Answer) -> float:
    from app.core.agreement.sets.agreement import score_pair
    from app.core.agreement.sets.structured import DEFAULT_THRESHOLDS, selector_and_similarity

    assert scheme.kind is not None and isinstance(machine, ObjectSet) \
        and isinstance(human, ObjectSet)
    select, similarity = selector_and_similarity(scheme.kind)
    a, b = select(machine), select(human)
    (matrix,) = similarity([(a, b)])
    outcome = score_pair("", "machine", "human", a, b, matrix, DEFAULT_THRESHOLDS[scheme.kind])
    return 1.0 - outcome.score
