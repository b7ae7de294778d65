"""Drawing data for the disagreement views, computed in numpy from the pair outcomes.

Views hold no state and do no geometry (architecture rule 3): the 3D view draws the line
segments and links given here, the timeline draws the rectangles. Everything is tested
without OpenGL.

- :func:`cuboid_scene`: every annotator's cuboids as wireframe line segments (12 edges
  each, one batch), the matched pairs as links between box centres with their IoU, and
  which boxes nobody else matched (drawn highlighted). A 3D point (``point_3d``) is drawn
  as a small octahedron around it (12 edges too, so it is counted, coloured, labelled and
  highlighted like a box) and its matched pairs carry the distance between the two points
  in metres (:attr:`CuboidScene.link_distance`): points are compared by distance, not
  overlap (Potato 2.12.1's ``1 − d / 2 m``). 3D polylines and point-cloud segments are
  scored but not drawn (a choice: they have no centre to link); their pairs are left out.
- :func:`timeline`: one row per (tier, annotator); segments as rectangles
  ``[start, row + 0.1, end, row + 0.9]`` in seconds and row units; matched pairs as links
  between rectangle centres with their IoU; unmatched segments flagged.

A box or segment is *unmatched* when no pair it took part in matched it: nobody else
found that object.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from app.core.agreement.sets.agreement import SetAgreement
from app.core.geometry.cuboid_boxes import boxes_array, wireframe_segments
from app.core.objects import Cuboid, Point3D, SceneObject, Segment

ROW_MARGIN = 0.1
POINT_MARKER = 0.25
"""Half the size, in metres, of the octahedron a 3D point is drawn as."""


@dataclass(frozen=True, slots=True)
class CuboidScene:
    annotators: tuple[str, ...]
    edges: np.ndarray
    """(k·12, 2, 3) line segments, in box order."""
    edge_owner: np.ndarray
    """(k·12,) index into ``annotators`` per segment."""
    box_owner: np.ndarray
    centers: np.ndarray
    labels: tuple[str, ...]
    unmatched: np.ndarray
    links: np.ndarray
    """(m, 2, 3) from a box centre to its match's centre."""
    link_iou: np.ndarray
    """(m,) each link's similarity: the IoU of two boxes, ``1 − d / 2`` of two points."""
    link_distance: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """(m,) metres between two matched points, NaN for a pair of boxes; empty (no points)
    in scenes built before points were drawn."""
    is_point: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """(k,) which objects are 3D points (the rest boxes); empty: all boxes."""


@dataclass(frozen=True, slots=True)
class Timeline:
    rows: tuple[tuple[str | None, str], ...]
    """(tier, annotator) per row, tiers then annotators sorted."""
    rects: np.ndarray
    """(n, 4): start, bottom, end, top."""
    owner_row: np.ndarray
    labels: tuple[str, ...]
    unmatched: np.ndarray
    links: np.ndarray
    """(m, 2, 2) between rectangle centres."""
    link_iou: np.ndarray


def _flat(agreement: SetAgreement, item: str) -> tuple[tuple[str, ...], list[tuple[str, int,
                                                                                   SceneObject]]]:
    objects = agreement.objects.get(item, {})
    annotators = tuple(sorted(objects))
    flat = [(name, k, obj) for name in annotators for k, obj in enumerate(objects[name])]
    return annotators, flat


def _matches(agreement: SetAgreement, item: str, index: dict[tuple[str, int], int]
             ) -> tuple[list[tuple[int, int]], list[float], np.ndarray]:
    pairs: list[tuple[int, int]] = []
    ious: list[float] = []
    matched = np.zeros(len(index), dtype=bool)
    for o in agreement.outcomes:
        if o.item != item:
            continue
        for r, c, iou in zip(o.rows.tolist(), o.cols.tolist(), o.matched_iou.tolist(),
                             strict=True):
            if (o.a, r) not in index or (o.b, c) not in index:
                continue  # an object the scene does not draw (a 3D polyline or segment)
            i, j = index[(o.a, r)], index[(o.b, c)]
            pairs.append((i, j))
            ious.append(iou)
            matched[[i, j]] = True
    return pairs, ious, matched


def scene_objects(agreement: SetAgreement, item: str
                  ) -> tuple[tuple[str, ...], list[tuple[str, int, SceneObject]],
                             dict[tuple[str, int], int]]:
    """What the 3D view draws of ``item``: (annotators, [(annotator, index in the answer,
    object)] for the cuboids and 3D points, annotator by annotator, and the scene index of
    each (annotator, index in the answer))."""
    annotators, flat = _flat(agreement, item)
    drawn: list[tuple[str, int, SceneObject]] = [
        (name, k, obj) for name, k, obj in flat if isinstance(obj, Cuboid | Point3D)]
    return annotators, drawn, {(name, k): n for n, (name, k, _) in enumerate(drawn)}


def _octahedron(center: tuple[float, float, float]) -> np.ndarray:
    """(12, 2, 3): the edges of a small octahedron around a 3D point."""
    c = np.asarray(center, dtype=np.float64)
    tips = [c + POINT_MARKER * np.asarray(v, dtype=np.float64) for v in (
        (1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))]
    ring = [(tips[i], tips[(i + 1) % 4]) for i in range(4)]
    spokes = [(tips[i], tips[pole]) for pole in (4, 5) for i in range(4)]
    return np.asarray(ring + spokes, dtype=np.float64)


def cuboid_scene(agreement: SetAgreement, item: str) -> CuboidScene:
    annotators, flat, index = scene_objects(agreement, item)
    owner = np.array([annotators.index(name) for name, _, _ in flat], dtype=np.int64)
    boxes = [obj for _, _, obj in flat if isinstance(obj, Cuboid)]
    array = boxes_array(boxes) if boxes else np.zeros((0, 10))
    box_edges = (wireframe_segments(array) if boxes else np.zeros((0, 2, 3))).reshape(-1, 12, 2, 3)
    edges: list[np.ndarray] = []
    centers: list[np.ndarray] = []
    k = 0
    for _, _, obj in flat:
        if isinstance(obj, Cuboid):
            edges.append(box_edges[k])
            centers.append(array[k, :3])
            k += 1
        else:
            assert isinstance(obj, Point3D)
            edges.append(_octahedron(obj.position))
            centers.append(np.asarray(obj.position, dtype=np.float64))
    center_rows = np.asarray(centers, dtype=np.float64).reshape(-1, 3)
    pairs, ious, matched = _matches(agreement, item, index)
    links = (np.stack([np.stack([center_rows[i], center_rows[j]]) for i, j in pairs])
             if pairs else np.zeros((0, 2, 3)))
    distance = [math.dist(center_rows[i], center_rows[j])
                if isinstance(flat[i][2], Point3D) else math.nan for i, j in pairs]
    return CuboidScene(
        annotators=annotators,
        edges=np.concatenate(edges) if edges else np.zeros((0, 2, 3)),
        edge_owner=np.repeat(owner, 12),
        box_owner=owner,
        centers=center_rows,
        labels=tuple(str(getattr(o, "label", "")) for _, _, o in flat),
        unmatched=~matched,
        links=links,
        link_iou=np.asarray(ious, dtype=np.float64),
        link_distance=np.asarray(distance, dtype=np.float64),
        is_point=np.array([isinstance(o, Point3D) for _, _, o in flat], dtype=bool),
    )


def timeline(agreement: SetAgreement, item: str) -> Timeline:
    annotators, flat = _flat(agreement, item)
    segments = [obj for _, _, obj in flat if isinstance(obj, Segment)]
    tiers = sorted({s.tier for s in segments}, key=lambda t: (t is not None, t or ""))
    rows = tuple((tier, name) for tier in tiers for name in annotators)
    row_of = {row: k for k, row in enumerate(rows)}
    owner_row = np.array([row_of[(obj.tier, name)] for name, _, obj in flat
                          if isinstance(obj, Segment)], dtype=np.int64)
    rects = np.array([[s.start, r + ROW_MARGIN, s.end, r + 1 - ROW_MARGIN]
                      for s, r in zip(segments, owner_row.tolist(), strict=True)],
                     dtype=np.float64).reshape(len(segments), 4)
    index = {(name, k): n for n, (name, k, _) in enumerate(flat)}
    pairs, ious, matched = _matches(agreement, item, index)
    centers = np.column_stack([(rects[:, 0] + rects[:, 2]) / 2, (rects[:, 1] + rects[:, 3]) / 2])
    links = (np.stack([np.stack([centers[i], centers[j]]) for i, j in pairs])
             if pairs else np.zeros((0, 2, 2)))
    return Timeline(rows=rows, rects=rects, owner_row=owner_row,
                    labels=tuple(s.label for s in segments), unmatched=~matched, links=links,
                    link_iou=np.asarray(ious, dtype=np.float64))
