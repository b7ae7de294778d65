"""Potato's stored answers → model answers, one scheme on one item at a time.

Input is the list of ``(label name, value)`` entries one annotator has for one scheme on
one item (``formats.md``). The rules:

- A label is chosen unless its value is one of ``False, None, "", "false", "False",
  0, "0"``. The answer is read from the label *name* (the value can be a digit or a
  ``key_value``). ``free_response`` (and likert's ``bad_text``) are not options.
- Single choice with several options kept (Potato issue #167): the latest ``select``
  or ``update`` of one of them in ``annotation_changes`` wins, else the last entry;
  the caller counts each such repair.
- Structured answers are one JSON string under ``_data`` (media schemes) or under the
  scheme's own name (traces, temporal grounding); an already-parsed object is accepted.
- A single-choice scheme with entries but no chosen option has no answer. A multiselect
  with entries but none chosen is an empty answer (the empty set).

Every problem raises :class:`InputError` naming file, item, scheme and object, through
the :class:`Place` the caller passes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.core.errors import InputError, RejectedAnswerError
from app.core.formats.files import parse_json_text
from app.core.formats.potato_config import number_label
from app.core.model import (
    Answer,
    BoxRegion,
    Cuboid,
    EllipseRegion,
    Kind,
    Mask,
    ObjectSet,
    Point3D,
    PolygonRegion,
    Polyline3D,
    SceneObject,
    Scheme,
    Segment,
    Segment3D,
    TraceJudgement,
    normalized_quaternion,
)

NOT_OPTIONS = frozenset({"free_response", "bad_text"})
NOT_CHOSEN_TEXT = frozenset({"", "false", "False", "0"})


@dataclass(slots=True)
class Place:
    """Where an answer was read, for error messages."""

    file: Path
    item: str
    scheme: str
    annotator: str

    @property
    def key(self) -> str:
        return f"instance_id_to_label_to_value.{self.item}.{self.scheme}"

    def error(self, problem: str, obj: int | None = None) -> InputError:
        what = f"annotator '{self.annotator}', item '{self.item}', scheme '{self.scheme}'"
        if obj is not None:
            return RejectedAnswerError(f"{what}, object {obj}: {problem}", file=self.file,
                                  key=self.key)
        return InputError(f"{what}: {problem}", file=self.file, key=self.key)


Entries = Sequence[tuple[str, Any]]
Changes = Sequence[Any]


def is_chosen(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, str):
        return value.strip() not in NOT_CHOSEN_TEXT
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value != 0
    return True


@dataclass(slots=True)
class Parsed:
    """An answer (``None``: not answered) and whether the #167 repair was needed."""

    answer: Answer | None
    repaired: bool = False


def parse_answer(scheme: Scheme, entries: Entries, changes: Changes, place: Place) -> Parsed:
    """Parse one scheme's entries on one item for one annotator."""
    kind = scheme.kind
    if scheme.annotation_type == "slider":
        return Parsed(_slider(scheme, entries, place))
    if kind in (Kind.NOMINAL, Kind.ORDINAL):
        return _single_choice(scheme, entries, changes, place)
    if kind is Kind.MULTILABEL:
        return Parsed(frozenset(sys_intern(n) for n, v in entries
                                if n not in NOT_OPTIONS and is_chosen(v)))
    parser = STRUCTURED.get(scheme.annotation_type)
    if parser is None:
        return Parsed(None)
    raw = _structured_value(scheme, entries)
    if raw is None:
        return Parsed(None)
    if isinstance(raw, str):
        if not raw.strip():
            return Parsed(None)
        try:
            raw = parse_json_text(raw, file=place.file, key=place.key,
                                  expected=f"a {scheme.annotation_type} answer")
        except InputError as exc:
            raise place.error(exc.problem) from None
    return Parsed(parser(raw, scheme, place))


_interned: dict[str, str] = {}


def sys_intern(text: str) -> str:
    """Share one string object per label across a study (100,000 items × 10 people)."""
    return _interned.setdefault(text, text)


def _single_choice(scheme: Scheme, entries: Entries, changes: Changes, place: Place) -> Parsed:
    if len(entries) == 1:  # the common case, kept cheap for 100,000-item studies
        name, value = entries[0]
        if name in NOT_OPTIONS or not is_chosen(value):
            return Parsed(None)
        if scheme.kind is Kind.ORDINAL and name not in scheme.scale_set:
            raise place.error(f"value '{name}' is not on the scale {list(scheme.scale)}")
        return Parsed(sys_intern(name))
    chosen = [n for n, v in entries if n not in NOT_OPTIONS and is_chosen(v)]
    chosen = list(dict.fromkeys(chosen))
    if not chosen:
        return Parsed(None)
    repaired = False
    value = chosen[0]
    if len(chosen) > 1:
        repaired = True
        value = _latest_selected(scheme.name, chosen, changes) or chosen[-1]
    if scheme.kind is Kind.ORDINAL and value not in scheme.scale_set:
        raise place.error(f"value '{value}' is not on the scale {list(scheme.scale)}")
    return Parsed(sys_intern(value), repaired)


def _latest_selected(scheme: str, candidates: list[str], changes: Changes) -> str | None:
    best: tuple[float, int] | None = None
    winner: str | None = None
    for order, change in enumerate(changes):
        if not isinstance(change, dict):  # the log is user data: skip what is not a change
            continue
        if change.get("schema_name") != scheme or change.get("action") not in ("select", "update"):
            continue
        label = change.get("label_name")
        if label not in candidates:
            continue
        stamp = change.get("timestamp")
        when = float(stamp) if isinstance(stamp, int | float) else -math.inf
        key = (when, order)
        if best is None or key >= best:
            best, winner = key, str(label)
    return winner


def _slider(scheme: Scheme, entries: Entries, place: Place) -> str | None:
    values = [v for n, v in entries if n not in NOT_OPTIONS and v not in (None, "")]
    if not values:
        return None
    try:
        number = float(values[-1])
    except (TypeError, ValueError):
        raise place.error(f"slider value {values[-1]!r} is not a number") from None
    label = number_label(number)
    if label not in scheme.scale_set:
        raise place.error(f"slider value {label} is not a position of the slider "
                          f"({scheme.scale[0]}..{scheme.scale[-1]})")
    return sys_intern(label)


def _structured_value(scheme: Scheme, entries: Entries) -> Any:
    for name, value in reversed(entries):
        if name in ("_data", scheme.name):
            return value
    return None


# ----------------------------------------------------------------------- structured


def _list_of(raw: Any, keys: tuple[str, ...], place: Place, expected: str) -> list[Any]:
    if isinstance(raw, list):
        return raw
    if isinstance(raw, dict):
        for key in keys:
            if isinstance(raw.get(key), list):
                return list(raw[key])
        if not raw:
            return []
    raise place.error(f"expected {expected}")


def _number(value: Any, place: Place, obj: int, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise place.error(f"{what} must be a number, found {value!r}", obj)
    try:
        number = float(value)
    except ValueError:
        raise place.error(f"{what} must be a number, found {value!r}", obj) from None
    if not math.isfinite(number):
        raise place.error(f"{what} must be finite, found {value!r}", obj)
    return number


_PLAIN_NUMBERS = (int, float)


def _vector(value: Any, n: int, place: Place, obj: int, what: str) -> tuple[float, ...]:
    if not isinstance(value, list | tuple) or len(value) != n:
        raise place.error(f"{what} must be a list of {n} numbers, found {value!r}", obj)
    # Fast path for the common case (plain finite JSON numbers): a lidar study holds
    # millions of them. Anything else takes the checked path for its exact message.
    if all(type(v) in _PLAIN_NUMBERS for v in value):
        vector = tuple(map(float, value))
        if all(map(math.isfinite, vector)):
            return vector
    return tuple(_number(v, place, obj, what) for v in value)


def _label(shape: Mapping[str, Any]) -> str:
    label = shape.get("label", "")
    return sys_intern(str(label) if label is not None else "")


def parse_image(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    shapes = _list_of(raw, ("annotations", "objects", "shapes"), place,
                      "a list of image shapes")
    out: list[SceneObject] = []
    for i, shape in enumerate(shapes):
        if not isinstance(shape, dict):
            raise place.error("expected a shape object", i)
        kind = shape.get("type")
        coords = shape.get("coordinates")
        if kind == "bbox":
            if not isinstance(coords, dict):
                raise place.error("bbox coordinates must be {x, y, width, height}", i)
            x, y, w, h = (_number(coords.get(k), place, i, f"bbox {k}")
                          for k in ("x", "y", "width", "height"))
            if w < 0 or h < 0:
                raise place.error(f"bbox width and height must not be negative ({w}, {h})", i)
            out.append(BoxRegion(_label(shape), x, y, w, h))
        elif kind == "polygon":
            points = coords if isinstance(coords, list) else shape.get("points")
            if not isinstance(points, list) or len(points) < 3:
                raise place.error("a polygon needs a list of at least 3 {x, y} points", i)
            pts = tuple(_point2(p, place, i) for p in points)
            out.append(PolygonRegion(_label(shape), pts))
        elif kind == "ellipse":
            if not isinstance(coords, dict):
                raise place.error("ellipse coordinates must be {cx, cy, rx, ry, angle}", i)
            cx, cy, rx, ry = (_number(coords.get(k), place, i, f"ellipse {k}")
                              for k in ("cx", "cy", "rx", "ry"))
            angle = _number(coords.get("angle", 0.0), place, i, "ellipse angle")
            if rx < 0 or ry < 0:
                raise place.error("ellipse radii must not be negative", i)
            out.append(EllipseRegion(_label(shape), cx, cy, rx, ry, angle))
        elif kind == "mask" or "rle" in shape:
            out.append(_mask(shape, place, i))
    return ObjectSet(tuple(out))


def _point2(p: Any, place: Place, obj: int) -> tuple[float, float]:
    if isinstance(p, dict):
        return (_number(p.get("x"), place, obj, "point x"), _number(p.get("y"), place, obj,
                                                                      "point y"))
    x, y = _vector(p, 2, place, obj, "point")
    return (x, y)


def _mask(shape: Mapping[str, Any], place: Place, obj: int) -> Mask:
    rle = shape.get("rle")
    if not isinstance(rle, dict):
        raise place.error("a mask needs rle {counts, size: [h, w]}", obj)
    size = rle.get("size")
    counts = rle.get("counts")
    if not isinstance(size, list) or len(size) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size):
        raise place.error(f"mask size must be [height, width] in pixels, found {size!r}", obj)
    if not isinstance(counts, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts):
        raise place.error("mask counts must be a list of non-negative run lengths "
                          "(row-major, starting with background)", obj)
    h, w = size
    if sum(counts) != h * w:
        raise place.error(f"mask runs sum to {sum(counts)}, expected h·w = {h}·{w} = {h * w}",
                          obj)
    return Mask(_label(shape), h, w, tuple(counts))


def _fast_cuboids(shapes: list[Any]) -> ObjectSet | None:
    """All-cuboid answers in one numpy pass (a lidar study holds hundreds of thousands).

    Returns ``None`` unless every object is a well-formed cuboid with finite numbers, a
    non-negative size and a usable quaternion: anything else takes the checked path,
    which names the object and what is wrong with it. (One leniency: numpy reads a JSON
    ``true`` inside a coordinate list as 1.0; checking every number's type would cost
    more than the whole fast path, and Potato never writes one.)
    """
    try:
        if not all(type(s) is dict and s.get("type") == "cuboid_3d" for s in shapes):
            return None
        coords = [s["coordinates"] for s in shapes]
        centers = np.array([c["center"] for c in coords], dtype=np.float64)
        sizes = np.array([c["size"] for c in coords], dtype=np.float64)
        turns = np.array([c.get("rotation", (0.0, 0.0, 0.0, 1.0)) for c in coords],
                         dtype=np.float64)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    n = len(shapes)
    if centers.shape != (n, 3) or sizes.shape != (n, 3) or turns.shape != (n, 4):
        return None
    norms = np.sqrt((turns * turns).sum(axis=1))
    if not (np.isfinite(centers).all() and np.isfinite(sizes).all() and np.isfinite(norms).all()
            and (sizes >= 0).all() and (norms >= 1e-12).all()):
        return None
    units = turns / norms[:, None]
    return ObjectSet(tuple(
        Cuboid(_label(shape), (c[0], c[1], c[2]), (z[0], z[1], z[2]), (q[0], q[1], q[2], q[3]))
        for shape, c, z, q in zip(shapes, centers.tolist(), sizes.tolist(), units.tolist(),
                                  strict=True)))


def parse_spatial(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    shapes = _list_of(raw, ("annotations", "objects", "shapes"), place,
                      "a list of 3D objects")
    if shapes:
        fast = _fast_cuboids(shapes)
        if fast is not None:
            return fast
    out: list[SceneObject] = []
    for i, shape in enumerate(shapes):
        if not isinstance(shape, dict):
            raise place.error("expected a 3D object", i)
        kind = shape.get("type")
        coords = shape.get("coordinates")
        if kind == "cuboid_3d":
            if not isinstance(coords, dict):
                raise place.error("cuboid coordinates must be {center, size, rotation}", i)
            cx, cy, cz = _vector(coords.get("center"), 3, place, i, "center")
            l, w, h = _vector(coords.get("size"), 3, place, i, "size")  # noqa: E741
            if min(l, w, h) < 0:
                raise place.error(f"size must not be negative, found {[l, w, h]}", i)
            rotation = coords.get("rotation", [0.0, 0.0, 0.0, 1.0])
            q = _vector(rotation, 4, place, i, "rotation quaternion [qx, qy, qz, qw]")
            try:
                unit = normalized_quaternion(q)
            except ValueError as exc:
                raise place.error(str(exc), i) from None
            out.append(Cuboid(_label(shape), (cx, cy, cz), (l, w, h), unit))
        elif kind == "point_3d":
            x, y, z = _vector(coords, 3, place, i, "point")
            out.append(Point3D(_label(shape), (x, y, z)))
        elif kind == "polyline_3d":
            if not isinstance(coords, list):
                raise place.error("polyline coordinates must be a list of [x, y, z]", i)
            pts = tuple(_vector(p, 3, place, i, "polyline point") for p in coords)
            out.append(Polyline3D(_label(shape), tuple((a, b, c) for a, b, c in pts)))
        elif kind == "segment_3d":
            indices = shape.get("indices", coords)
            if not isinstance(indices, list) or not all(
                    isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in indices):
                raise place.error("segment_3d indices must be non-negative integers", i)
            out.append(Segment3D(_label(shape), tuple(indices)))
    return ObjectSet(tuple(out))


def _segment(entry: Any, place: Place, i: int, scale: float, tier: str | None) -> Segment:
    if not isinstance(entry, dict):
        raise place.error("expected a segment object", i)
    start = _number(entry.get("start_time"), place, i, "start_time")
    end = _number(entry.get("end_time"), place, i, "end_time")
    if end < start:
        raise place.error(f"segment ends before it starts ({start} > {end})", i)
    label = entry.get("label", entry.get("value", ""))
    ident = entry.get("id")
    parent = entry.get("parent_id")
    return Segment(start * scale, end * scale, sys_intern(str(label) if label is not None else ""),
                   sys_intern(tier) if tier is not None else None,
                   str(ident) if ident is not None else None,
                   str(parent) if parent is not None else None)


def parse_timed(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    """Audio and video segments, in seconds."""
    entries = _list_of(raw, ("segments",), place, 'an object {"segments": [...]}')
    return ObjectSet(tuple(_segment(e, place, i, 1.0, None) for i, e in enumerate(entries)))


def parse_tiered(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    """Tiered annotations, stored in **milliseconds**, converted to seconds here."""
    tiers = raw.get("annotations") if isinstance(raw, dict) else None
    if tiers is None and isinstance(raw, dict) and not raw:
        tiers = {}
    if not isinstance(tiers, dict):
        raise place.error('expected {"annotations": {"<tier>": [segments in ms]}}')
    out: list[SceneObject] = []
    n = 0
    for tier, entries in tiers.items():
        if not isinstance(entries, list):
            raise place.error(f"tier '{tier}' must hold a list of segments")
        for entry in entries:
            out.append(_segment(entry, place, n, 1e-3, str(tier)))
            n += 1
    return ObjectSet(tuple(out))


def parse_grounding(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    """temporal_grounding: the event key is the label; no ``end`` makes an instant."""
    events = raw.get("events") if isinstance(raw, dict) else None
    if events is None and isinstance(raw, dict) and not raw:
        events = {}
    if not isinstance(events, dict):
        raise place.error('expected {"events": {"<label>": {"start", "end"}}}')
    out: list[SceneObject] = []
    for i, (label, event) in enumerate(events.items()):
        if not isinstance(event, dict):
            raise place.error("expected an event {start, end}", i)
        has_start = event.get("start") is not None
        has_end = event.get("end") is not None
        if not has_start and not has_end:
            continue
        start = _number(event["start"] if has_start else event["end"], place, i, "start")
        end = _number(event["end"], place, i, "end") if has_end else start
        if end < start:
            raise place.error(f"event ends before it starts ({start} > {end})", i)
        out.append(Segment(start, end, sys_intern(str(label))))
    return ObjectSet(tuple(out))


# ---------------------------------------------------------------------------- traces


def _step_label(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return sys_intern(str(value))


def _steps(raw: Any, place: Place, expected: str) -> list[dict[str, Any]]:
    steps = _list_of(raw, ("steps",), place, expected)
    for i, s in enumerate(steps):
        if not isinstance(s, dict):
            raise place.error("expected a step object", i)
    return steps


def _key(step: Mapping[str, Any], names: tuple[str, ...], place: Place, i: int) -> str:
    for name in names:
        value = step.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, str) and value.strip():
            return value.strip()
    raise place.error(f"step has no {' or '.join(names)}", i)


def parse_process_reward(raw: Any, scheme: Scheme, place: Place) -> TraceJudgement:
    """Reward 1 / −1 per step; 0 is neutral only where the scheme offers a neutral
    option (``allow_neutral`` with ``mode: per_step``), else it means not marked."""
    cfg = scheme.config
    neutral = bool(cfg.get("allow_neutral")) and cfg.get("mode", "first_error") == "per_step"
    labels: dict[str, str | None] = {}
    for i, step in enumerate(_steps(raw, place, '{"steps": [{"index", "reward"}]}')):
        key = _key(step, ("index", "step_index"), place, i)
        reward = step.get("reward")
        if reward is not None and not (isinstance(reward, int | float)
                                       and not isinstance(reward, bool) and reward in (1, -1, 0)):
            raise place.error(f"reward must be 1, -1, 0 or null, found {reward!r}", i)
        labels[key] = None if reward is None or (reward == 0 and not neutral) \
            else _step_label(reward)
    return TraceJudgement(labels, {})


def parse_trajectory_eval(raw: Any, scheme: Scheme, place: Place) -> TraceJudgement:
    labels: dict[str, str | None] = {}
    details: dict[str, dict[str, Any]] = {}
    for i, step in enumerate(_steps(raw, place, '{"steps": [{"step_index", "correctness"}]}')):
        key = _key(step, ("step_index", "index"), place, i)
        labels[key] = _step_label(step.get("correctness"))
        extra = {k: step[k] for k in ("error_type", "error_subtype", "severity", "rationale")
                 if step.get(k) not in (None, "")}
        if extra:
            details[key] = extra
    return TraceJudgement(labels, details)


def parse_verdicts(raw: Any, scheme: Scheme, place: Place) -> TraceJudgement:
    """tool_call_review and gui_trajectory: judged steps keyed by ``index``; steps not
    in the list carry no label."""
    labels: dict[str, str | None] = {}
    details: dict[str, dict[str, Any]] = {}
    for i, step in enumerate(_steps(raw, place, '[{"index", "verdict"}]')):
        key = _key(step, ("index",), place, i)
        labels[key] = _step_label(step.get("verdict"))
        extra = {k: step[k] for k in ("step", "tool", "notes") if step.get(k) not in (None, "")}
        if extra:
            details[key] = extra
    return TraceJudgement(labels, details)


def parse_failure_attribution(raw: Any, scheme: Scheme, place: Place) -> TraceJudgement:
    if not isinstance(raw, dict):
        raise place.error('expected {"responsible_agent", "decisive_step", "reason"}')
    decisive = raw.get("decisive_step")
    if decisive is not None and (isinstance(decisive, bool) or not isinstance(decisive, int)):
        raise place.error(f"decisive_step must be a step index or null, found {decisive!r}")
    # "step 3", not "3": the two units share one value table, and an agent named "3"
    # must not count as agreeing with step 3.
    labels = {"responsible_agent": _step_label(raw.get("responsible_agent")),
              "decisive_step": None if decisive is None else sys_intern(f"step {decisive}")}
    reason = raw.get("reason")
    return TraceJudgement(labels, {"reason": {"text": reason}} if reason else {})


Parser = Callable[[Any, Scheme, Place], Answer]

STRUCTURED: dict[str, Parser] = {
    "image_annotation": parse_image,
    "spatial_annotation": parse_spatial,
    "audio_annotation": parse_timed,
    "video_annotation": parse_timed,
    "tiered_annotation": parse_tiered,
    "temporal_grounding": parse_grounding,
    "process_reward": parse_process_reward,
    "trajectory_eval": parse_trajectory_eval,
    "tool_call_review": parse_verdicts,
    "gui_trajectory": parse_verdicts,
    "failure_attribution": parse_failure_attribution,
}
