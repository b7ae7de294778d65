"""Potato 2.12.1's reading of image answers and its matching and clustering rules.

The pieces :mod:`app.core.agreement.regions.potato_reading` scores a scheme with, as that
module's docstring describes them: each object as Potato's report reads it beside
Accord's copy (:class:`Shape`, one annotator's set prepared once: :class:`ShapeSet`),
Potato's similarity (:func:`potato_similarity`: one type against its own type only; boxes
by the closed form with IoU 0 without area, polygons and 36-gon ellipses in normalized
coordinates, landmarks, keypoint sets and open paths by
:func:`~app.core.geometry.point_objects.similarity` on the stored fractions), its matching
(:func:`most_pairs`) and its detection clusters (:class:`FirstFit`). Written from Potato's
behaviour, not copied from its code.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core.agreement.sets.matching import match
from app.core.agreement.sets.structured import (
    IMAGE_POINT_TYPES,
    REGION_TYPES,
    region_set_similarity,
)
from app.core.geometry.point_objects import similarity_matrix
from app.core.geometry.regions import RegionSet, prepare, region_iou_matrix
from app.core.objects import BoxRegion, EllipseRegion, ObjectSet, PolygonRegion, SceneObject

POTATO_ELLIPSE_VERTICES = 36


@dataclass(frozen=True, slots=True)
class Shape:
    """One object as Potato reads it (``potato``, compared by ``tag``) beside Accord's."""

    tag: str
    label: str
    potato: SceneObject
    accord: SceneObject
    index: int
    """Its position in Accord's selection (the rows of Accord's similarity matrices)."""


def _potato_ellipse(e: EllipseRegion) -> PolygonRegion:
    turn = math.radians(e.angle_deg)
    c, s = math.cos(turn), math.sin(turn)
    points = []
    for k in range(POTATO_ELLIPSE_VERTICES):
        phi = 2.0 * math.pi * k / POTATO_ELLIPSE_VERTICES
        dx, dy = e.rx * math.cos(phi), e.ry * math.sin(phi)
        points.append((e.cx + dx * c - dy * s, e.cy + dx * s + dy * c))
    return PolygonRegion(e.label, tuple(points))


def _tag(obj: SceneObject) -> str:
    if isinstance(obj, BoxRegion):
        return "bbox"
    if isinstance(obj, PolygonRegion):
        return "polygon"
    return "ellipse" if isinstance(obj, EllipseRegion) else "point"


def shapes(raw: ObjectSet, accord: Sequence[SceneObject]) -> tuple[Shape, ...]:
    """``raw``'s objects in stored order, each beside Accord's copy of it (``accord`` is
    the scheme's selection: the regions, then the point objects, each in stored order)."""
    kept = [o for o in raw.objects if isinstance(o, REGION_TYPES + IMAGE_POINT_TYPES)]
    regions = [o for o in kept if isinstance(o, REGION_TYPES)]
    n_regions, k_region, k_point = len(regions), 0, 0
    out = []
    for obj in kept:
        if isinstance(obj, REGION_TYPES):
            index, k_region = k_region, k_region + 1
        else:
            index, k_point = n_regions + k_point, k_point + 1
        potato = _potato_ellipse(obj) if isinstance(obj, EllipseRegion) else obj
        out.append(Shape(_tag(obj), str(getattr(obj, "label", "")), potato, accord[index],
                         index))
    return tuple(out)


TAGS = ("bbox", "polygon", "ellipse", "point")


class ShapeSet(Sequence[Shape]):
    """One annotator's shapes, with each type's objects prepared once for every pair and
    cluster they take part in (converting shapes dominates the cost otherwise)."""

    def __init__(self, shapes: Sequence[Shape]) -> None:
        self.shapes = tuple(shapes)
        self._potato: dict[str, tuple[list[int], Any]] | None = None

    def __len__(self) -> int:
        return len(self.shapes)

    def __getitem__(self, k: int) -> Shape:  # type: ignore[override]
        return self.shapes[k]

    def potato_blocks(self) -> dict[str, tuple[list[int], Any]]:
        """Per type: the shapes' indices and their prepared form in Potato's reading."""
        if self._potato is None:
            self._potato = {}
            for tag in TAGS:
                idx = [i for i, x in enumerate(self.shapes) if x.tag == tag]
                if idx:
                    objs = [self.shapes[i].potato for i in idx]
                    self._potato[tag] = (idx, _box_rows(objs) if tag == "bbox" else objs
                                         if tag == "point" else prepare(objs))  # type: ignore[arg-type]
        return self._potato


def _as_set(shapes: Sequence[Shape]) -> ShapeSet:
    return shapes if isinstance(shapes, ShapeSet) else ShapeSet(shapes)


def _box_rows(boxes: Sequence[SceneObject]) -> np.ndarray:
    return np.array([[o.x, o.y, o.width, o.height] for o in boxes if isinstance(o, BoxRegion)])


def _box_iou(ra: np.ndarray, rb: np.ndarray) -> np.ndarray:
    ax, ay, aw, ah = (ra[:, k, None] for k in range(4))
    bx, by, bw, bh = (rb[None, :, k] for k in range(4))
    ix = np.maximum(0.0, np.minimum(ax + aw, bx + bw) - np.maximum(ax, bx))
    iy = np.maximum(0.0, np.minimum(ay + ah, by + bh) - np.maximum(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    ok = (aw > 0) & (ah > 0) & (bw > 0) & (bh > 0) & (union > 0)
    return np.where(ok, inter / np.where(ok, union, 1.0), 0.0)


def _polygon_iou(pa: RegionSet, pb: RegionSet) -> np.ndarray:
    iou = region_iou_matrix(pa, pb)
    return np.where((pa.area[:, None] > 0) & (pb.area[None, :] > 0), iou, 0.0)


def potato_similarity(a: Sequence[Shape], b: Sequence[Shape]) -> np.ndarray:
    """Potato's similarity: one type against its own type only, in its own reading."""
    sa, sb = _as_set(a), _as_set(b)
    out = np.zeros((len(sa), len(sb)))
    blocks_b = sb.potato_blocks()
    for tag, (ia, xa) in sa.potato_blocks().items():
        if tag not in blocks_b:
            continue
        ib, xb = blocks_b[tag]
        block = (_box_iou(xa, xb) if tag == "bbox" else similarity_matrix(xa, xb)
                 if tag == "point" else _polygon_iou(xa, xb))
        out[np.ix_(ia, ib)] = block
    return out


def accord_similarity(a: ShapeSet, b: ShapeSet, kept: np.ndarray | None) -> np.ndarray:
    """Accord's similarity of the same pair, in stored order: the matrix Accord's own
    scoring kept (``kept``), else computed again."""
    if kept is None:
        return region_set_similarity([x.accord for x in a], [y.accord for y in b])
    return kept[np.ix_([x.index for x in a], [y.index for y in b])]


class Similarities:
    """Potato's similarity matrices of the annotator pairs, each computed once: the
    clusters compare an annotator's shapes with earlier annotators' shapes, whose
    matrices the pair scores already hold (the similarity is symmetric)."""

    def __init__(self, sets: Sequence[ShapeSet]) -> None:
        self._matrices: dict[tuple[int, int], np.ndarray] = {}
        self._owner = {id(x): (s, k) for s in sets for k, x in enumerate(s.shapes)}

    def matrix(self, a: ShapeSet, b: ShapeSet) -> np.ndarray:
        key = (id(a), id(b))
        if key not in self._matrices:
            back = self._matrices.get((id(b), id(a)))
            self._matrices[key] = back.T if back is not None else potato_similarity(a, b)
        return self._matrices[key]

    def __call__(self, mine: Sequence[Shape], firsts: Sequence[Shape]) -> np.ndarray:
        """``mine`` (one annotator's set) against shapes of the registered sets."""
        assert isinstance(mine, ShapeSet)
        out = np.zeros((len(mine), len(firsts)))
        for j, shape in enumerate(firsts):
            owner, k = self._owner[id(shape)]
            out[:, j] = self.matrix(mine, owner)[:, k]
        return out


def most_pairs(s: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """The most pairs at or above ``threshold``, then the largest total (Potato's rule)."""
    eligible = s >= threshold
    if not eligible.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    cost = np.where(eligible, 1.0 - s, float(min(s.shape) + 1))
    # Imported here: scipy.optimize costs every report ~0.25 s of start-up.
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(cost)
    keep = eligible[rows, cols]
    return rows[keep].astype(np.int64), cols[keep].astype(np.int64)


class FirstFit:
    """Potato's clusters: each object joins the first earlier cluster whose first member it
    reaches. ``departs`` turns true when Accord's matching would have placed an object of
    the same step elsewhere (until then both build the same clusters)."""

    def __init__(self, similarity: Similarities) -> None:
        self.similarity = similarity
        self.departs = False

    def __call__(self, objects: Mapping[str, Sequence[Shape]], threshold: float
                 ) -> list[dict[str, Shape]]:
        clusters: list[dict[str, Shape]] = []
        for name in sorted(objects):
            mine = objects[name]
            firsts = [next(iter(c.values())) for c in clusters]
            s = self.similarity(mine, firsts) if mine and firsts else np.zeros(
                (len(mine), 0))
            joined: dict[int, int] = {}
            for i in range(len(mine)):
                k = next((k for k in range(len(firsts)) if k not in joined.values()
                          and s[i, k] >= threshold), None)
                if k is not None:
                    joined[i] = k
            if s.size and not self.departs:
                rows, cols = match(s, threshold)
                self.departs = dict(zip(rows.tolist(), cols.tolist(), strict=True)) != joined
            for i, obj in enumerate(mine):
                if i in joined:
                    clusters[joined[i]][name] = obj
                else:
                    clusters.append({name: obj})
        return clusters
