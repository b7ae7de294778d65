"""One annotator's grounding, caption, episode or rollout answer in a few words, for the
answers view's cell: the layers side by side, so two annotators' answers can be read
across a row of cells.

Where the spec is silent: these answers are never put to a vote (a majority of two
captions or two reward curves means nothing); their column's majority cell says they
are scored layer by layer, and the cards hold the numbers. Coordinates are normalized
image units (two decimals), times seconds. A grounding region is any shape the canvas
draws: boxes and points with their coordinates, ellipses with centre, radii and turn,
polygons and keypoint sets with their number of points, masks with their set pixels,
2-D cuboids with their front face; a type Accord does not read is named "(not read)".
"""

from __future__ import annotations

from app.core.agreement.vlm.reading import Caption, Cuboid2D, Episode, Grounded, Rollout
from app.core.model import LayeredAnswer
from app.core.objects import (
    BoxRegion,
    EllipseRegion,
    KeypointSet,
    Landmark,
    Mask,
    OpenPath,
    PolygonRegion,
    SceneObject,
)

NO_VOTE = "no vote: scored layer by layer (see the cards)"
LAYERED_KINDS = frozenset({"grounding", "captions", "episodes", "rollouts"})


def _shape(obj: SceneObject | Cuboid2D | None) -> str:
    if obj is None:
        return "no region"
    if isinstance(obj, BoxRegion):
        return f"box ({obj.x:.2f}, {obj.y:.2f}) {obj.width:.2f}×{obj.height:.2f}"
    if isinstance(obj, Landmark):
        return f"point ({obj.x:.2f}, {obj.y:.2f})"
    if isinstance(obj, EllipseRegion):
        return (f"ellipse ({obj.cx:.2f}, {obj.cy:.2f}) r {obj.rx:.2f}×{obj.ry:.2f} "
                f"{obj.angle_deg:.0f}°")
    if isinstance(obj, PolygonRegion | KeypointSet):
        kind = "polygon" if isinstance(obj, PolygonRegion) else "keypoint set"
        return f"{kind}, {len(obj.points)} points"
    if isinstance(obj, OpenPath):
        return "open path"
    if isinstance(obj, Mask):
        return f"mask, {sum(obj.counts[1::2]):,} of {obj.height}×{obj.width} px"
    if isinstance(obj, Cuboid2D):
        (x0, y0), (x1, y1) = obj.front[0], obj.front[2]
        return f"2-D cuboid, front ({x0:.2f}, {y0:.2f})–({x1:.2f}, {y1:.2f})"
    return type(obj).__name__.replace("Region", "").lower()


def _grounding(parsed: dict[str, Grounded]) -> str:
    if not parsed:
        return "no expression answered"
    return "\n".join(
        f"{e}: " + ("not present" if g.absent else "; ".join(
            [_shape(r) for r in g.shapes] + [f"{t} (not read)" for t in g.unread]))
        for e, g in sorted(parsed.items()))


def _captions(parsed: tuple[Caption, ...]) -> str:
    if not parsed:
        return "no region"
    return "\n".join(f"{k + 1}. “{c.text.strip() or '(no caption)'}” — {_shape(c.region)}"
                     for k, c in enumerate(parsed))


def _t(seconds: float) -> str:
    return f"{seconds + 0.0:.1f}".replace("-0.0", "0.0")  # no "-0.0" from rounding


def _episode(e: Episode) -> str:
    phases = ", ".join(f"{s.label or '?'} {_t(s.start)}–{_t(s.end)} s" for s in e.phases)
    n = len(e.reward)
    reward = (f"{n} point{'' if n == 1 else 's'}, {_t(e.reward[0][0])}–"
              f"{_t(e.reward[-1][0])} s" if e.reward else "none")
    return (f"phases: {phases or 'none'}\noutcome: {e.outcome or '—'}\n"
            f"reward: {reward}")


def _rollout(r: Rollout) -> str:
    lines = []
    for stream in sorted({v.stream for v in r.violations} | set(r.clean)):
        marks = [v for v in r.violations if v.stream == stream]
        said = ", ".join(f"{v.t:.2f} s ({v.type or '?'}, severity {v.severity})"
                         for v in sorted(marks, key=lambda v: v.t))
        lines.append(f"{stream}: {said or 'clean'}")
    lines.append(f"prefers: {r.winner if r.winner is not None else '—'}")
    lines.append(f"counterfactual: {r.verdict if r.verdict is not None else '—'}")
    return "\n".join(lines)


def layered_text(answer: LayeredAnswer) -> str:
    parsed = answer.parsed
    if isinstance(parsed, dict):
        return _grounding(parsed)
    if isinstance(parsed, tuple):
        return _captions(parsed)
    if isinstance(parsed, Episode):
        return _episode(parsed)
    if isinstance(parsed, Rollout):
        return _rollout(parsed)
    return answer.annotation_type
