"""The stored blobs of ``grounding_eval``, ``region_caption``, ``episode_annotation`` and
``rollout_evaluation`` → their layers, checked when the project is read.

Shapes (Potato 2.12.1, ``kinds.md`` B §2.9-2.12):

- grounding: ``{"regions": {expression: [shape, …]}, "absent": [expression, …]}``; an
  expression listed absent is absent even if stale regions remain (Potato's rule); an
  expression with an empty region list is not answered; a shape the image reader does
  not read is not dropped: the grounding widget draws with whatever tools the page's
  ``image_annotation`` scheme enables, so a ``cuboid_2d`` is read here
  (:class:`Cuboid2D`, four corners per face, else an input error) and a type unknown to
  Potato's canvas is kept as its name in ``Grounded.unread`` (the pair is reported
  unscored);
- caption: ``{"captions": [{"region": shape, "caption": text}, …]}``; a ``cuboid_2d``
  region is read as for grounding (it was dropped, so it matched nothing where Potato
  matches it by its front face); a region of a type Potato's canvas does not draw is
  no region (Potato scores it 0 against anything, and so does Accord);
- episode: ``{"phases": [{start, end, label}], "outcome": {"result", "cause"},
  "reward": [{t, value}], …}``; phases may spell their times ``start_time``/``end_time``
  and reversed ends are swapped, as Potato reads them; reward points sorted by time;
- rollout: ``{"violations": [{stream, t, type, severity, note}], "clean": [stream],
  "preference": {"winner", …}, "counterfactual": {"verdict", …}}``.

Where Potato silently drops a malformed part (a phase without times, a break without a
time, a shape it cannot read), Accord raises an :class:`InputError` naming the file,
item, scheme and object: a dropped mark changes every number it would have joined. A
blob that is one object wrapped under the scheme's name is unwrapped, as Potato does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.core.formats.potato.place import Place
from app.core.model import LayeredAnswer, Scheme
from app.core.objects import SceneObject, Segment

READ_SHAPES = frozenset({"bbox", "polygon", "ellipse", "landmark", "keypoint_set",
                         "polyline", "freeform", "mask"})
"""The image shape types ``formats/potato/objects.parse_image`` reads; it skips others."""

VLM_TYPES = ("grounding_eval", "region_caption", "episode_annotation", "rollout_evaluation")


@dataclass(frozen=True, slots=True)
class Grounded:
    """One expression's answer: its regions, or absent (``regions`` empty)."""

    regions: tuple[SceneObject, ...]
    absent: bool
    unread: tuple[str, ...] = ()
    """The types of shapes drawn for the expression that Accord does not read (a type
    unknown to Potato 2.12.1's canvas): kept so the pair is named unscored, not dropped."""
    faces: tuple[Cuboid2D, ...] = ()
    """The ``cuboid_2d`` regions (the image reader has no such object)."""

    @property
    def shapes(self) -> tuple[SceneObject | Cuboid2D, ...]:
        """Every region scored: the image objects, then the cuboids."""
        return (*self.regions, *self.faces)


@dataclass(frozen=True, slots=True)
class Cuboid2D:
    """A ``cuboid_2d`` region: a 3-D box drawn into the picture as its front and back
    faces, four ``(x, y)`` corners each, normalized. Potato scores it by the IoU of the
    front faces (the back is a guess about depth, ``iaa/geometry.similarity``)."""

    label: str
    front: tuple[tuple[float, float], ...]
    back: tuple[tuple[float, float], ...]


@dataclass(frozen=True, slots=True)
class Caption:
    region: SceneObject | Cuboid2D | None
    text: str


@dataclass(frozen=True, slots=True)
class Episode:
    phases: tuple[Segment, ...]
    outcome: str | None
    reward: tuple[tuple[float, float], ...]
    """``(t, value)`` sorted by ``t``."""


@dataclass(frozen=True, slots=True)
class Violation:
    stream: str
    t: float
    type: str | None
    severity: Any


@dataclass(frozen=True, slots=True)
class Rollout:
    violations: tuple[Violation, ...]
    clean: tuple[str, ...]
    winner: Any
    verdict: Any


def _unwrap(raw: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(raw, dict) and len(raw) == 1 and not any(k in raw for k in keys):
        inner = next(iter(raw.values()))
        if isinstance(inner, dict):
            return inner
    return raw


def _number(value: Any, place: Place, obj: int, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise place.error(f"{what} must be a number, got {value!r}", obj)
    try:
        out = float(value)
    except ValueError:
        raise place.error(f"{what} must be a number, got {value!r}", obj) from None
    if out != out or abs(out) == float("inf"):
        raise place.error(f"{what} must be a finite number, got {value!r}", obj)
    return out


def _shapes(shapes: list[Any], scheme: Scheme, place: Place) -> tuple[SceneObject, ...]:
    from app.core.formats.potato.objects import parse_image

    return parse_image(shapes, scheme, place).objects


def _cuboid(shape: dict[str, Any], place: Place, obj: int) -> Cuboid2D:
    coords = shape.get("coordinates")
    faces: list[tuple[tuple[float, float], ...]] = []
    for face in ("front", "back"):
        points = coords.get(face) if isinstance(coords, dict) else None
        if not isinstance(points, list) or len(points) != 4 or not all(
                isinstance(p, dict) for p in points):
            raise place.error(f"a cuboid_2d needs coordinates.{face}: four {{x, y}} corners",
                              obj)
        faces.append(tuple((_number(p.get("x"), place, obj, f"cuboid_2d {face} x"),
                            _number(p.get("y"), place, obj, f"cuboid_2d {face} y"))
                           for p in points))
    label = shape.get("label")
    return Cuboid2D("" if label is None else str(label), faces[0], faces[1])


def parse_grounding_eval(raw: Any, scheme: Scheme, place: Place) -> LayeredAnswer:
    raw = _unwrap(raw, ("regions", "absent"))
    if not isinstance(raw, dict):
        raise place.error("expected a grounding answer {regions, absent}")
    regions, absent = raw.get("regions"), raw.get("absent")
    if not isinstance(regions, dict) and not isinstance(absent, list):
        raise place.error("a grounding answer needs 'regions' (an object) or 'absent' "
                          "(a list)")
    out: dict[str, Grounded] = {}
    for expression, shapes in (regions or {}).items():
        if not isinstance(shapes, list):
            raise place.error(f"the regions of expression '{expression}' must be a list")
        if shapes:
            faces = tuple(_cuboid(x, place, i) for i, x in enumerate(shapes)
                          if isinstance(x, dict) and x.get("type") == "cuboid_2d")
            unread = tuple(sorted({str(x.get("type")) for x in shapes if isinstance(x, dict)
                                   and x.get("type") not in READ_SHAPES and "rle" not in x
                                   and x.get("type") != "cuboid_2d"}))
            out[str(expression)] = Grounded(_shapes(shapes, scheme, place), False, unread,
                                            faces)
    for expression in absent or []:
        out[str(expression)] = Grounded((), True)
    return LayeredAnswer(scheme.annotation_type, raw, out)


def parse_region_caption(raw: Any, scheme: Scheme, place: Place) -> LayeredAnswer:
    raw = _unwrap(raw, ("captions",))
    captions = raw.get("captions") if isinstance(raw, dict) else None
    if not isinstance(captions, list):
        raise place.error("expected a region caption answer {captions: [...]}")
    out: list[Caption] = []
    for i, entry in enumerate(captions):
        if not isinstance(entry, dict):
            raise place.error("a caption must be an object {region, caption}", i)
        region = entry.get("region")
        shape: tuple[SceneObject | Cuboid2D, ...] = (
            (_cuboid(region, place, i),) if isinstance(region, dict)
            and region.get("type") == "cuboid_2d"
            else _shapes([region], scheme, place) if isinstance(region, dict) and region
            else ())
        text = entry.get("caption")
        out.append(Caption(shape[0] if shape else None, "" if text is None else str(text)))
    return LayeredAnswer(scheme.annotation_type, raw, tuple(out))


def parse_episode(raw: Any, scheme: Scheme, place: Place) -> LayeredAnswer:
    raw = _unwrap(raw, ("phases", "outcome", "reward", "instructions"))
    if not isinstance(raw, dict):
        raise place.error("expected an episode answer {phases, outcome, reward}")
    phases: list[Segment] = []
    for i, seg in enumerate(raw.get("phases") or []):
        if not isinstance(seg, dict):
            raise place.error("a phase must be an object {start, end, label}", i)
        start = _number(seg["start_time"] if "start_time" in seg else seg.get("start"),
                        place, i, "phase start")
        end = _number(seg["end_time"] if "end_time" in seg else seg.get("end"),
                      place, i, "phase end")
        start, end = min(start, end), max(start, end)
        label = seg.get("label")
        phases.append(Segment(start, end, "" if label is None else str(label)))
    reward: list[tuple[float, float]] = []
    for i, point in enumerate(raw.get("reward") or []):
        if not isinstance(point, dict):
            raise place.error("a reward point must be an object {t, value}", i)
        reward.append((_number(point.get("t"), place, i, "reward time"),
                       _number(point.get("value"), place, i, "reward value")))
    reward.sort(key=lambda p: p[0])
    outcome = raw.get("outcome")
    result = outcome.get("result") if isinstance(outcome, dict) else None
    return LayeredAnswer(scheme.annotation_type, raw,
                         Episode(tuple(phases), str(result) if result else None,
                                 tuple(reward)))


def parse_rollout(raw: Any, scheme: Scheme, place: Place) -> LayeredAnswer:
    raw = _unwrap(raw, ("violations", "clean", "preference", "counterfactual"))
    if not isinstance(raw, dict):
        raise place.error("expected a rollout answer {violations, clean, preference, "
                          "counterfactual}")
    marks: list[Violation] = []
    for i, mark in enumerate(raw.get("violations") or []):
        if not isinstance(mark, dict):
            raise place.error("a violation must be an object {stream, t, type, severity}", i)
        kind = mark.get("type")
        marks.append(Violation(str(mark.get("stream", "")),
                               _number(mark.get("t"), place, i, "violation time"),
                               None if kind in (None, "") else str(kind),
                               mark.get("severity")))
    clean = raw.get("clean") or []
    if not isinstance(clean, list):
        raise place.error("'clean' must be a list of stream names")

    def leaf(layer: str, key: str) -> Any:
        node = raw.get(layer)
        value = node.get(key) if isinstance(node, Mapping) else None
        return None if value in (None, "", []) else value

    return LayeredAnswer(scheme.annotation_type, raw,
                         Rollout(tuple(marks), tuple(str(s) for s in clean),
                                 leaf("preference", "winner"),
                                 leaf("counterfactual", "verdict")))


PARSERS = {
    "grounding_eval": parse_grounding_eval,
    "region_caption": parse_region_caption,
    "episode_annotation": parse_episode,
    "rollout_evaluation": parse_rollout,
}
