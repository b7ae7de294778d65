"""Which loss family a scheme belongs to (``contracts.md``, Loss families).

| family       | Potato annotation types |
|--------------|-------------------------|
| categorical  | radio, select, a multiselect limited to one choice (agreement kind nominal) |
| ordinal      | likert |
| numeric      | slider |
| multilabel   | multiselect |
| spans        | span |
| regions      | image_annotation |
| segments     | audio_annotation, video_annotation, tiered_annotation, temporal_grounding |
| objects3d    | spatial_annotation (cuboids) |
| traces       | process_reward, trajectory_eval, tool_call_review, gui_trajectory, |
|              | failure_attribution |

Everything else (free text, pairwise comparison, number inputs, display-only schemes)
has no family: no contract may name it and the certificate lists it as unsupported.

Choices where the spec is silent:

- This is the one mapping: ``app.core.contracts.labels.losses`` computes the loss of exactly
  these families, so a configuration can never name a scheme whose loss cannot be
  computed. In particular a
  Potato ``number`` input has no family yet although the table says "sliders, numbers":
  it has no scale range to divide by and the Potato reader keeps no answers for it.
  A scheme whose agreement kind is ``masks`` (the ``NAME#masks`` view the agreement
  report derives) has no family either; its image scheme is in ``regions``.
- Only ``categorical`` is not graded (0/1 loss), so ``tolerance`` means nothing there.
"""

from __future__ import annotations

from enum import StrEnum

from app.core.model import Kind, Scheme


class Family(StrEnum):
    """A loss family; the value is the name used in messages and results."""

    CATEGORICAL = "categorical"
    ORDINAL = "ordinal"
    NUMERIC = "numeric"
    MULTILABEL = "multilabel"
    SPANS = "spans"
    REGIONS = "regions"
    SEGMENTS = "segments"
    OBJECTS3D = "objects3d"
    TRACES = "traces"


GRADED = frozenset(Family) - {Family.CATEGORICAL}
"""Families whose loss takes values between 0 and 1, where ``tolerance`` applies."""

LABEL_FAMILIES = frozenset({Family.CATEGORICAL, Family.ORDINAL, Family.NUMERIC,
                            Family.MULTILABEL})
"""Families whose answers are label names (or scale values) rather than objects."""

SINGLE_LABEL = frozenset({Family.CATEGORICAL, Family.ORDINAL, Family.NUMERIC})
"""Families with one predicted class per item (``per_class``, distributions)."""

_BY_KIND = {
    Kind.NOMINAL: Family.CATEGORICAL,
    Kind.ORDINAL: Family.ORDINAL,
    Kind.MULTILABEL: Family.MULTILABEL,
    Kind.REGIONS: Family.REGIONS,
    Kind.SEGMENTS: Family.SEGMENTS,
    Kind.TIERS: Family.SEGMENTS,
    Kind.CUBOIDS: Family.OBJECTS3D,
    Kind.TRACE: Family.TRACES,
}


def loss_family(scheme: Scheme) -> Family | None:
    """The loss family of ``scheme``, or ``None`` when it has none (unsupported)."""
    if scheme.annotation_type == "slider":
        return Family.NUMERIC
    if scheme.annotation_type == "span":
        return Family.SPANS
    return _BY_KIND.get(scheme.kind) if scheme.kind is not None else None


POTATO_TOLERANCE = {Family.CATEGORICAL: 0.0, Family.ORDINAL: 0.0, Family.MULTILABEL: 0.0,
                    Family.TRACES: 0.0, Family.NUMERIC: 0.05}
"""Potato 2.12.1's default ``tolerance`` per family (``families.py``); every other
family (the geometric ones; spans, which Potato has no family for, with them) 0.5."""


def default_tolerance(scheme: Scheme) -> float:
    """Potato's default tolerance for ``scheme``'s family (0.5 when it has none)."""
    family = loss_family(scheme)
    return 0.5 if family is None else POTATO_TOLERANCE.get(family, 0.5)
