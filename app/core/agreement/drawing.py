"""Drawing data for the disagreement views, computed in numpy from the pair outcomes.

Views hold no state and do no geometry (architecture rule 3): the 3D view draws the line
segments and links given here, the timeline draws the rectangles. Everything is tested
without OpenGL.

- :func:`cuboid_scene`: every annotator's cuboids as wireframe line segments (12 edges
  each, one batch), the matched pairs as links between box centres with their IoU, and
  which boxes nobody else matched (drawn highlighted).
- :func:`timeline`: one row per (tier, annotator); segments as rectangles
  ``[start, row + 0.1, end, row + 0.9]`` in seconds and row units; matched pairs as links
  between rectangle centres with their IoU; unmatched segments flagged.

A box or segment is *unmatched* when no pair it took part in matched it: nobody else
found that object.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.core.agreement.sets.agreement import SetAgreement
from app.core.geometry.cuboid_boxes import boxes_array, wireframe_segments
from app.core.objects import Cuboid, SceneObject, Segment

ROW_MARGIN = 0.1


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
            i, j = index[(o.a, r)], index[(o.b, c)]
            pairs.append((i, j))
            ious.append(iou)
            matched[[i, j]] = True
    return pairs, ious, matched


def cuboid_scene(agreement: SetAgreement, item: str) -> CuboidScene:
    annotators, flat = _flat(agreement, item)
    boxes = [obj for _, _, obj in flat if isinstance(obj, Cuboid)]
    index = {(name, k): n for n, (name, k, _) in enumerate(flat)}
    owner = np.array([annotators.index(name) for name, _, _ in flat], dtype=np.int64)
    array = boxes_array(boxes) if boxes else np.zeros((0, 10))
    pairs, ious, matched = _matches(agreement, item, index)
    centers = array[:, :3] if boxes else np.zeros((0, 3))
    links = (np.stack([np.stack([centers[i], centers[j]]) for i, j in pairs])
             if pairs else np.zeros((0, 2, 3)))
    return CuboidScene(
        annotators=annotators,
        edges=wireframe_segments(array) if boxes else np.zeros((0, 2, 3)),
        edge_owner=np.repeat(owner, 12),
        box_owner=owner,
        centers=centers,
        labels=tuple(str(getattr(o, "label", "")) for _, _, o in flat),
        unmatched=~matched,
        links=links,
        link_iou=np.asarray(ious, dtype=np.float64),
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
