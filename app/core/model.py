"""The one in-memory model every reader produces and every computation reads.

Units are fixed once, in :mod:`app.core.objects` (the objects with geometry and their
``from_*`` conversions): **metres** for 3D, **seconds** for time, image coordinates
**normalized to [0, 1]** with the origin top-left.

Answers are stored as ``Study.answers[scheme][item_id][annotator]``. An entry means the
annotator *answered* the scheme on that item, possibly with an empty answer (an empty
tuple of objects, an empty label set); no entry means they did not answer it.

Answer shapes by kind:

- nominal / ordinal: ``str`` (the chosen label name; ordinal order is ``Scheme.scale``)
- multilabel: ``frozenset[str]``
- cuboids: ``ObjectSet`` of :class:`Cuboid` (plus :class:`Point3D`, :class:`Polyline3D`,
  :class:`Segment3D` kept beside them, not scored)
- regions / masks: ``ObjectSet`` of :class:`BoxRegion`, :class:`PolygonRegion`,
  :class:`EllipseRegion`, :class:`Mask`
- segments / tiers: ``ObjectSet`` of :class:`Segment` (tiers carry ``tier``)
- trace: :class:`TraceJudgement` (one label per step key)
- spans: ``ObjectSet`` of :class:`Span` (empty: the annotator saved the item and marked
  nothing; ``agreement/spans/reading.py``)
- continuous: ``float`` (slider-like numbers: number, vas, confidence slider, pairwise
  scale)
- ranking: ``tuple[str, ...]`` (the options, best first)
- matrix: :class:`SubAnswers` (multirate, constant_sum, soft_label, …: one stored value
  per sub-answer)
- volumes: :class:`VolumeMasks` (``volume_annotation``: run-length slices per label)
- grounding, captions, episodes, rollouts: :class:`LayeredAnswer` (the stored blob and
  its parsed layers)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeAlias

from app.core.objects import ObjectSet

# --------------------------------------------------------------------------- kinds


class Kind(StrEnum):
    """How a scheme's answers are compared (``agreement.md``, section Kinds)."""

    NOMINAL = "nominal"
    ORDINAL = "ordinal"
    MULTILABEL = "multilabel"
    CUBOIDS = "cuboids"
    SEGMENTS = "segments"
    TIERS = "tiers"
    REGIONS = "regions"
    MASKS = "masks"
    TRACE = "trace"
    CONTINUOUS = "continuous"
    RANKING = "ranking"
    MATRIX = "matrix"
    SPANS = "spans"
    VOLUMES = "volumes"
    GROUNDING = "grounding"
    CAPTIONS = "captions"
    EPISODES = "episodes"
    ROLLOUTS = "rollouts"


TRACE_TYPES = frozenset(
    {"process_reward", "trajectory_eval", "tool_call_review", "failure_attribution",
     "gui_trajectory"}
)
"""Potato's agent-trace schemes: one label per step (or per trace for attribution)."""

@dataclass(frozen=True, slots=True)
class TraceJudgement:
    """One annotator's labels on one trace: a label (or ``None``) per step key.

    Step keys are strings: the step's ``index`` (or ``step_index``) for the step schemes,
    ``"responsible_agent"`` and ``"decisive_step"`` for failure attribution. ``None``
    means the annotator gave no label on that step; such a step is not a unit for them.
    ``details`` keeps the rest of each judged step (error type, severity, comments).
    """

    labels: Mapping[str, str | None]
    details: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def labelled(self) -> dict[str, str]:
        return {k: v for k, v in self.labels.items() if v is not None}


@dataclass(frozen=True, slots=True)
class SubAnswers:
    """A matrix scheme's answer: each sub-answer (a row, an option, ``best``) with the
    value Potato stored for it (a scale label or a number, as text or a JSON number)."""

    values: tuple[tuple[str, Any], ...]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.values)


@dataclass(frozen=True, slots=True, eq=False)
class VolumeMasks:
    """A ``volume_annotation`` answer: per label, per axial slice ``k``, the run-length
    counts of its (nj, ni) mask, C-order, starting with zeros, as Potato stores them
    (``agreement/volumes/reading.py``). ``shape`` is ``(ni, nj, nk)``, ``None`` when the
    answer names none (Potato then skips the item). Compared by identity: the counts are
    numpy arrays."""

    shape: tuple[int, int, int] | None
    masks: Mapping[str, Mapping[int, Any]]
    labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class LayeredAnswer:
    """A blob answer of several independent layers: ``grounding_eval``,
    ``region_caption``, ``episode_annotation``, ``rollout_evaluation``. ``data`` is the
    stored JSON object (the answers view shows it); ``parsed`` its layers as the kind's
    reader checked them (``agreement/vlm/reading.py``), so a broken blob is an error
    naming its file when the project is read, not when it is scored."""

    annotation_type: str
    data: Mapping[str, Any]
    parsed: Any


Answer: TypeAlias = (str | frozenset[str] | ObjectSet | TraceJudgement | float
                     | tuple[str, ...] | SubAnswers | VolumeMasks | LayeredAnswer)


# --------------------------------------------------------------------------- items

_scale_sets: dict[tuple[str, ...], frozenset[str]] = {}


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One step of an agent trace as shown to annotators (from the data file)."""

    index: int
    text: str
    tool_call: str | None = None
    screenshot: Path | None = None


class NoEntries(Mapping[str, Any]):
    """The empty read-only mapping every :class:`Item` without media or steps shares:
    two new dicts per item were a third of making a million items."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"

    def __reduce__(self) -> str:
        return "NO_ENTRIES"  # copied or unpickled, still the one shared mapping


NO_ENTRIES = NoEntries()


@dataclass(slots=True)
class Item:
    """One data instance. ``record`` is the row of the data file as read. ``media`` and
    ``steps`` are read-only (a reader gives an item its own mapping of either)."""

    id: str
    record: Mapping[str, Any]
    text: str | None = None
    media: Mapping[str, Path] = NO_ENTRIES
    steps: Mapping[str, tuple[TraceStep, ...]] = NO_ENTRIES
    """Trace steps by the data key they were read from (a scheme's ``steps_key``)."""


@dataclass(frozen=True, slots=True)
class Scheme:
    """One annotation question: a name, Potato's ``annotation_type`` and its options.

    ``scale`` is the ordered list of values for ordinal schemes (likert ``1..size``,
    slider ``min..max``), used for ordinal α and for weighted κ over the *full* scale.
    """

    name: str
    annotation_type: str
    kind: Kind | None
    labels: tuple[str, ...] = ()
    scale: tuple[str, ...] = ()
    config: Mapping[str, Any] = field(default_factory=dict)

    @property
    def scale_set(self) -> frozenset[str]:
        """The scale as a set, for membership tests on every answer."""
        return _scale_sets.setdefault(self.scale, frozenset(self.scale))


@dataclass(slots=True)
class Study:
    """A whole project in memory: items, schemes, annotators and their answers."""

    root: Path
    items: Mapping[str, Item]
    schemes: dict[str, Scheme]
    annotators: tuple[str, ...]
    answers: dict[str, dict[str, dict[str, Answer]]]
    annotators_per_item: int | None = None
    single_choice_repairs: dict[str, int] = field(default_factory=dict)
    rejected: dict[str, list[str]] = field(default_factory=dict)
    """Per scheme, the answers left out for an unusable object, one message each."""
    notes: list[str] = field(default_factory=list)
    origins: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The machine raters (``kinds.md`` A.4): per annotator whose ``user_state.json``
    carries an ``origin`` that is not a person, that origin as read
    (:func:`machine_origin`). Everyone else is a person."""

    def answers_for(self, scheme: str) -> dict[str, dict[str, Answer]]:
        return self.answers.get(scheme, {})

    @property
    def machine_raters(self) -> frozenset[str]:
        return frozenset(self.origins)

    def add_origin(self, annotator: str, raw: Any) -> None:
        """Keep ``annotator``'s ``origin`` (as read from its user state) if it is a machine."""
        origin = machine_origin(raw)
        if origin is not None:
            self.origins[annotator] = origin


def machine_origin(raw: Any) -> dict[str, Any] | None:
    """``None`` for a person, else the origin of a machine rater as Potato 2.12.1 reads it.

    Potato's rule (``annotator_origin.py``): absent means human, present but unreadable
    means machine, because counting a machine as a person corrupts human-human agreement
    while the converse only withholds one rater from a partition. Potato loads the key
    as ``origin or {}``, so ``null``, ``{}`` and other empty values are absent (every
    person's file written by 2.12.1 holds ``"origin": {}``). A value that is not an object,
    or an object without a non-blank string ``kind``, is a machine of kind ``tool``
    marked ``malformed``; only ``kind == "human"`` exactly is a person.
    """
    if not raw:
        return None
    if not isinstance(raw, Mapping):
        return {"kind": "tool", "id": None, "malformed": True}
    kind = raw.get("kind")
    if not isinstance(kind, str) or not kind.strip():
        return {**raw, "kind": "tool", "malformed": True}
    return None if kind == "human" else dict(raw)
