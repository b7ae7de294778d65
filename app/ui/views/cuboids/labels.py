"""What the 3D view writes next to the boxes: one label per cluster of matched boxes.

Why clusters: three annotators boxing one car give three matched pairs; labelled pair by
pair, at the midpoint of each link, neighbouring objects' IoU lines ran together. So the
boxes are grouped into clusters (connected components of the matches: the boxes the
matching says are one object), and each cluster gets **one** label, anchored above its
highest box: its class name on the first line, then one ``a–b IoU`` line per matched pair.
A box nobody matched is a cluster of one: its class and ``unmatched: a only``, in red.
A frame of a point-cloud sequence adds each box's track under the class: ``track A 1 ·
B 4`` (who called the object which track), so an ID switch can be seen on the boxes.
3D points (``point_3d``, drawn as small octahedra) are compared by distance, not overlap:
their pair lines say ``a–b distance 0.4 m`` (the short form ``distance 0.4 m``), the
distance between the two points; the similarity Potato scores them by is ``1 − d / 2 m``.

The class line says what the annotators called the object: ``car`` when they agree,
``car · B: cyclist`` when some called it something else (the majority class first, ties
alphabetical), so a class disagreement is visible where it happens.

Priority (who keeps a place on screen when there is not room for all; a choice, the spec
is silent): unmatched boxes first, then clusters whose annotators disagree on the class,
then the others by their lowest IoU, worst first: the less an object is disagreed on,
the sooner its label gives way. Each label also has a one-line short form (the class
and the IoU range) used before giving up on it (:mod:`.layout`).

Pure Python on the scene's arrays; no Qt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from app.core.agreement.drawing import CuboidScene, scene_objects
from app.core.agreement.sets.agreement import SetAgreement
from app.core.agreement.sets.spatial_points import metres


@dataclass(frozen=True, slots=True)
class ClusterLabel:
    anchor: tuple[float, float, float]
    """World point above the cluster's highest box top (the fallback anchor)."""
    lines: tuple[str, ...]
    """Full text, first line the class."""
    short: str
    """One-line form used when the full one finds no room."""
    unmatched: bool
    priority: float
    """Smaller is placed first."""
    boxes: tuple[int, ...]
    corners: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)), compare=False)
    """Every corner of the cluster's boxes (world), to anchor the label on screen."""


def link_boxes(agreement: SetAgreement, item: str) -> list[tuple[int, int]]:
    """The two box indices (into the scene's boxes) of each link of ``cuboid_scene``.

    ``cuboid_scene`` numbers the objects it draws annotator by annotator (sorted), answer
    by answer (:func:`scene_objects`), and lists links outcome by outcome, row by row,
    skipping pairs of objects it does not draw; this walks them the same way.
    """
    _, _, index = scene_objects(agreement, item)
    return [
        (index[(o.a, r)], index[(o.b, c)])
        for o in agreement.outcomes
        if o.item == item
        for r, c in zip(o.rows.tolist(), o.cols.tolist(), strict=True)
        if (o.a, r) in index and (o.b, c) in index
    ]



def clusters(n_boxes: int, links: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Connected components of the match graph, each sorted, in order of first box."""
    parent = list(range(n_boxes))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in links:
        parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(n_boxes):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def class_line(classes: Sequence[str], owners: Sequence[str]) -> str:
    """``car`` or ``car · B: cyclist``: the majority class, then who said otherwise."""
    counts = Counter(classes)
    majority = sorted(counts, key=lambda c: (-counts[c], c))[0]
    others = [
        f"{owner}: {cls or '(no class)'}"
        for cls, owner in sorted(zip(classes, owners, strict=True))
        if cls != majority
    ]
    return " · ".join([majority or "(no class)", *others])


def cluster_labels(
    scene: CuboidScene, pairs: Sequence[tuple[int, int]], label_of: Callable[[str], str],
    tracks: Sequence[str] | None = None,
) -> list[ClusterLabel]:
    """One label per cluster, in priority order; ``label_of`` names annotators (A, B, C
    in presentation mode); ``tracks``: each box's track id (a sequence's frame)."""
    n = len(scene.box_owner)
    if n == 0 or len(scene.edges) != 12 * n:
        return []
    corners = scene.edges.reshape(n, 24, 3)
    tops = corners[:, :, 2].max(axis=1)
    owner = [label_of(scene.annotators[k]) for k in scene.box_owner.tolist()]
    iou_of = {
        tuple(sorted(p)): float(v) for p, v in zip(pairs, scene.link_iou.tolist(), strict=True)
    }
    distances = scene.link_distance.tolist() or [float("nan")] * len(pairs)
    metres_of = {
        tuple(sorted(p)): float(d) for p, d in zip(pairs, distances, strict=True) if d == d
    }
    out = []
    for group in clusters(n, pairs):
        xy = corners[group][:, :, :2].reshape(-1, 2).mean(axis=0)
        anchor = (float(xy[0]), float(xy[1]), float(tops[group].max()))
        classes = [scene.labels[i] if i < len(scene.labels) else "" for i in group]
        head = class_line(classes, [owner[i] for i in group])
        track_line = (("track " + " · ".join(f"{owner[i]} {tracks[i]}" for i in group),)
                      if tracks is not None and len(tracks) == n else ())
        links = sorted((owner[i], owner[j], iou) for (i, j), iou in iou_of.items() if i in group)
        if not links:
            out.append(
                ClusterLabel(
                    anchor,
                    (head, *track_line, f"unmatched: {owner[group[0]]} only"),
                    f"{head} · unmatched",
                    True,
                    -1.0,
                    tuple(group),
                    corners[group].reshape(-1, 3),
                )
            )
            continue
        values = [iou for _, _, iou in links]
        low, high = min(values), max(values)
        apart = sorted(d for (i, j), d in metres_of.items() if i in group)
        if apart:  # 3D points: the distance, in metres, not an IoU
            lines = tuple(
                f"{owner[i]}–{owner[j]} distance {metres(metres_of[(i, j)])}"
                for i, j in sorted(metres_of, key=lambda p: (owner[p[0]], owner[p[1]]))
                if i in group
            )
            near, far = metres(apart[0]), metres(apart[-1])
            short = f"{head} · distance {near if near == far else near[:-2] + '–' + far}"
        else:
            lines = tuple(f"{a}–{b} {iou:.2f}" for a, b, iou in links)
            span = f"{low:.2f}" if low == high else f"{low:.2f}–{high:.2f}"
            short = f"{head} · IoU {span}"
        disagree = len(set(classes)) > 1
        out.append(
            ClusterLabel(
                anchor,
                (head, *track_line, *lines),
                short,
                False,
                low + (0.0 if disagree else 1.0),
                tuple(group),
                corners[group].reshape(-1, 3),
            )
        )
    return sorted(out, key=lambda c: (c.priority, c.boxes))


def anchors(labels: Sequence[ClusterLabel]) -> np.ndarray:
    """The labels' world anchors as an ``(n, 3)`` array."""
    return np.array([c.anchor for c in labels], dtype=float).reshape(-1, 3)


def screen_outlines(
    labels: Sequence[ClusterLabel], to_screen: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """``(n, 4)`` pixels ``x0, y0, x1, y1``: each cluster's boxes' outline on screen.

    ``to_screen`` maps world points to pixels (NaN behind the eye); a cluster with a
    corner behind the eye (or no corners) gets a NaN row.
    """
    sizes = [len(c.corners) for c in labels]
    out = np.full((len(labels), 4), np.nan)
    if not labels or not all(sizes):
        return out
    px = to_screen(np.concatenate([c.corners for c in labels]))
    starts = np.cumsum([0, *sizes[:-1]])
    for axis, col in ((0, 0), (1, 1)):
        out[:, col] = np.minimum.reduceat(px[:, axis], starts)
        out[:, col + 2] = np.maximum.reduceat(px[:, axis], starts)
    return out


def screen_anchors(
    labels: Sequence[ClusterLabel],
    outlines: np.ndarray,
    to_screen: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """``(n, 2)`` pixels: the top-right corner of each cluster's outline on screen.

    Why there: a label placed right of (or above) that corner leaves the boxes it names
    visible, where one at the projected box centre covered them. A cluster without an
    outline falls back to its world anchor.
    """
    out = to_screen(anchors(labels))
    ok = ~np.isnan(outlines).any(axis=1)
    out[ok] = outlines[ok][:, [2, 1]]
    return out
