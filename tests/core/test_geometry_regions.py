"""2D region IoU and GIoU: hand-worked values, a per-pair shapely oracle, properties.

The oracle builds each shape independently of ``app`` (``shapely.geometry.box``, a
``Polygon`` of the points, an ellipse as ``Point.buffer`` with 16 segments a quarter,
scaled, rotated and moved with ``shapely.affinity``) and computes, pair by pair,
``a.intersection(b).area / a.union(b).area`` and GIoU from the union's ``envelope``
(both boxes) or ``convex_hull`` (anything else), as ``agreement.md`` defines them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import MultiPolygon, Point, Polygon
from shapely.geometry import box as shapely_box
from shapely.geometry.base import BaseGeometry

from app.core.geometry.region_overlap import prepare
from app.core.geometry.region_shapes import (
    Region,
    clamp_boxes,
    region_outlines,
    to_geometries,
)
from app.core.geometry.regions import (
    giou_distance,
    region_giou_matrix,
    region_giou_pairs,
    region_iou_matrix,
    region_iou_pairs,
)
from app.core.objects import BoxRegion, EllipseRegion, PolygonRegion

EXACT = 1e-12  # hand values in floating point
ORACLE = 1e-9  # the brief's bound against the per-pair oracle


def box(x: float, y: float, w: float, h: float) -> BoxRegion:
    return BoxRegion("car", x, y, w, h)


def poly(*points: tuple[float, float]) -> PolygonRegion:
    return PolygonRegion("car", tuple(points))


def ellipse(cx: float, cy: float, rx: float, ry: float, angle: float = 0.0) -> EllipseRegion:
    return EllipseRegion("car", cx, cy, rx, ry, angle)


def iou(a: Region, b: Region) -> float:
    return float(region_iou_matrix([a], [b])[0, 0])


def giou(a: Region, b: Region) -> float:
    return float(region_giou_matrix([a], [b])[0, 0])


# --------------------------------------------------------------------------- oracle


def oracle_shape(region: Region) -> BaseGeometry:
    if isinstance(region, BoxRegion):
        return shapely_box(region.x, region.y, region.x + region.width,
                           region.y + region.height)
    if isinstance(region, PolygonRegion):
        shape = Polygon(region.points)
        if shape.is_valid:
            return shape
        repaired = shapely.make_valid(shape)  # the repair the spec names
        polygons: list[Polygon] = []
        for part in getattr(repaired, "geoms", [repaired]):
            if isinstance(part, Polygon):
                polygons.append(part)
            elif isinstance(part, MultiPolygon):
                polygons.extend(part.geoms)
        return MultiPolygon(polygons)
    unit = Point(0.0, 0.0).buffer(1.0, quad_segs=16)  # 64 vertices from angle 0
    shape = affinity.scale(unit, region.rx, region.ry, origin=(0.0, 0.0))
    shape = affinity.rotate(shape, region.angle_deg, origin=(0.0, 0.0))
    return affinity.translate(shape, region.cx, region.cy)


def oracle_iou_giou(a: Region, b: Region) -> tuple[float, float]:
    ga, gb = oracle_shape(a), oracle_shape(b)
    union = ga.union(gb)
    value = ga.intersection(gb).area / union.area
    both_boxes = isinstance(a, BoxRegion) and isinstance(b, BoxRegion)
    enclosing = (union.envelope if both_boxes else union.convex_hull).area
    return value, value - (enclosing - union.area) / enclosing


def random_regions(rng: np.random.Generator, n: int, kinds: str = "bpe") -> list[Region]:
    """Shapes crowded into the middle of the image so that many pairs overlap."""
    out: list[Region] = []
    for k in range(n):
        kind = kinds[k % len(kinds)]
        cx, cy = rng.uniform(0.25, 0.75, 2)
        if kind == "b":
            w, h = rng.uniform(0.02, 0.4, 2)
            out.append(box(cx - w / 2, cy - h / 2, w, h))
        elif kind == "p":
            m = int(rng.integers(3, 12))
            if rng.random() < 0.2:  # points in random order: often self-intersecting
                pts = rng.uniform(-0.2, 0.2, (m, 2)) + np.array([cx, cy])
            else:  # star-shaped, always simple
                angles = np.sort(rng.uniform(0, 2 * math.pi, m))
                radii = rng.uniform(0.03, 0.25, m)
                pts = np.column_stack((cx + radii * np.cos(angles),
                                       cy + radii * np.sin(angles)))
            out.append(poly(*((float(x), float(y)) for x, y in pts)))
        else:
            rx, ry = rng.uniform(0.02, 0.25, 2)
            out.append(ellipse(float(cx), float(cy), float(rx), float(ry),
                               float(rng.uniform(-180, 180))))
    return out


def test_matrices_equal_the_per_pair_oracle_on_mixed_shapes() -> None:
    rng = np.random.default_rng(20261129)
    a, b = random_regions(rng, 60), random_regions(rng, 55)
    got_iou, got_giou = region_iou_matrix(a, b), region_giou_matrix(a, b)
    want = np.array([[oracle_iou_giou(x, y) for y in b] for x in a])
    assert np.abs(got_iou - want[..., 0]).max() <= ORACLE
    assert np.abs(got_giou - want[..., 1]).max() <= ORACLE
    overlapping = int((want[..., 0] > 0).sum())
    assert 300 < overlapping < want[..., 0].size  # both paths exercised


def test_box_matrices_equal_the_per_pair_oracle() -> None:
    """Box × box never touches a polygon overlay: closed form and enclosing box."""
    rng = np.random.default_rng(7)
    a, b = random_regions(rng, 70, "b"), random_regions(rng, 65, "b")
    got_iou, got_giou = region_iou_matrix(a, b), region_giou_matrix(a, b)
    want = np.array([[oracle_iou_giou(x, y) for y in b] for x in a])
    assert np.abs(got_iou - want[..., 0]).max() <= ORACLE
    assert np.abs(got_giou - want[..., 1]).max() <= ORACLE


def test_aligned_pairs_equal_the_per_pair_oracle() -> None:
    rng = np.random.default_rng(11)
    a, b = random_regions(rng, 3000), random_regions(rng, 3000, "pbe")
    want = np.array([oracle_iou_giou(x, y) for x, y in zip(a, b, strict=True)])
    assert np.abs(region_iou_pairs(a, b) - want[:, 0]).max() <= ORACLE
    assert np.abs(region_giou_pairs(a, b) - want[:, 1]).max() <= ORACLE


def test_a_prepared_set_gives_the_same_numbers_as_regions() -> None:
    rng = np.random.default_rng(5)
    a, b = random_regions(rng, 20), random_regions(rng, 20)
    np.testing.assert_array_equal(region_giou_matrix(prepare(a), prepare(b)),
                                  region_giou_matrix(a, b))


# --------------------------------------------------------------------------- hand values


@pytest.mark.parametrize("shape", [
    box(0.1, 0.2, 0.3, 0.4),
    poly((0.1, 0.1), (0.6, 0.2), (0.3, 0.7)),
    ellipse(0.5, 0.5, 0.2, 0.1, 30.0),
])
def test_identical_shapes(shape: Region) -> None:
    assert iou(shape, shape) == pytest.approx(1.0, abs=EXACT)
    assert giou(shape, shape) == pytest.approx(1.0, abs=EXACT)
    assert float(giou_distance(giou(shape, shape))) == pytest.approx(0.0, abs=EXACT)


@pytest.mark.parametrize(("a", "b", "want_iou", "want_giou"), [
    # disjoint boxes: C = 0.3 × 0.1, union 0.02: GIoU = −(0.03 − 0.02)/0.03
    (box(0.0, 0.0, 0.1, 0.1), box(0.2, 0.0, 0.1, 0.1), 0.0, -1.0 / 3.0),
    # far apart diagonally: C = 0.9², union 0.02
    (box(0.0, 0.0, 0.1, 0.1), box(0.8, 0.8, 0.1, 0.1), 0.0, -(0.81 - 0.02) / 0.81),
    # nested: 0.2² inside 0.4², C is the outer box
    (box(0.3, 0.3, 0.2, 0.2), box(0.2, 0.2, 0.4, 0.4), 0.25, 0.25),
    # touching along an edge: they fill C exactly
    (box(0.0, 0.0, 0.5, 1.0), box(0.5, 0.0, 0.5, 1.0), 0.0, 0.0),
    # touching at a corner: C = 0.4², union 0.08
    (box(0.0, 0.0, 0.2, 0.2), box(0.2, 0.2, 0.2, 0.2), 0.0, -(0.16 - 0.08) / 0.16),
    # partial overlap: 0.01 / 0.07; C = 0.3²
    (box(0.0, 0.0, 0.2, 0.2), box(0.1, 0.1, 0.2, 0.2), 1.0 / 7.0, 1.0 / 7.0 - 0.02 / 0.09),
    # a rectangle drawn as a polygon is not a box: C is the hull (0.09 minus two corner
    # triangles of 0.02 each = 0.05), not the enclosing box (0.09, which gives −7/9)
    (poly((0.0, 0.0), (0.1, 0.0), (0.1, 0.1), (0.0, 0.1)), box(0.2, 0.2, 0.1, 0.1),
     0.0, -(0.05 - 0.02) / 0.05),
    # two triangles: hull is the trapezoid (0,0) (0.7,0) (0.5,0.2) (0,0.2), area 0.12
    (poly((0.0, 0.0), (0.2, 0.0), (0.0, 0.2)), poly((0.5, 0.0), (0.7, 0.0), (0.5, 0.2)),
     0.0, -(0.12 - 0.04) / 0.12),
    # triangle in the unit box: half of it; hull = the box = the union
    (poly((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)), box(0.0, 0.0, 1.0, 1.0), 0.5, 0.5),
])
def test_hand_worked_pairs(a: Region, b: Region, want_iou: float, want_giou: float) -> None:
    assert iou(a, b) == pytest.approx(want_iou, abs=EXACT)
    assert iou(b, a) == pytest.approx(want_iou, abs=EXACT)
    assert giou(a, b) == pytest.approx(want_giou, abs=EXACT)
    assert giou(b, a) == pytest.approx(want_giou, abs=EXACT)


def test_disjoint_boxes_distance_by_hand() -> None:
    g = giou(box(0.0, 0.0, 0.1, 0.1), box(0.2, 0.0, 0.1, 0.1))
    assert float(giou_distance(g)) == pytest.approx((1 + 1 / 3) / 2, abs=EXACT)
    np.testing.assert_allclose(giou_distance(np.array([1.0, 0.0, -1.0])), [0.0, 0.5, 1.0])


def test_bow_tie_is_repaired_into_its_two_triangles() -> None:
    bow_tie = poly((0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0))
    (geometry,) = to_geometries([bow_tie])
    assert geometry.is_valid and geometry.area == pytest.approx(0.5, abs=EXACT)
    unit = box(0.0, 0.0, 1.0, 1.0)
    assert math.isfinite(iou(bow_tie, unit))
    assert iou(bow_tie, unit) == pytest.approx(0.5, abs=EXACT)
    assert giou(bow_tie, unit) == pytest.approx(0.5, abs=EXACT)
    assert iou(bow_tie, bow_tie) == pytest.approx(1.0, abs=EXACT)


def test_repair_keeps_only_the_polygonal_part() -> None:
    """A triangle with a dangling spike: make_valid gives polygon + line; the line goes."""
    spiky = poly((0.0, 0.0), (0.4, 0.0), (0.4, 0.4), (0.4, 0.0), (0.8, 0.0), (0.0, 0.0))
    (geometry,) = to_geometries([spiky])
    assert geometry.geom_type in ("Polygon", "MultiPolygon")
    assert geometry.is_valid


def test_ellipse_is_the_64_gon() -> None:
    """Area of a regular 64-gon inscribed in an ellipse: 32 · rx · ry · sin(2π/64)."""
    e = ellipse(0.5, 0.5, 0.2, 0.1, 17.0)
    (geometry,) = to_geometries([e])
    assert len(geometry.exterior.coords) == 65
    assert geometry.area == pytest.approx(32 * 0.2 * 0.1 * math.sin(2 * math.pi / 64),
                                          rel=1e-12)
    # turning a circle by a 64th of a turn maps the 64-gon onto itself
    circle = ellipse(0.5, 0.5, 0.2, 0.2)
    assert iou(circle, ellipse(0.5, 0.5, 0.2, 0.2, 360 / 64)) == pytest.approx(1.0, abs=1e-12)
    # a quarter turn with swapped radii is the same shape
    assert iou(ellipse(0.5, 0.5, 0.3, 0.1), ellipse(0.5, 0.5, 0.1, 0.3, 90.0)) == \
        pytest.approx(1.0, abs=1e-12)


def test_ellipse_rotation_direction() -> None:
    """angle_deg uses [[cos, −sin], [sin, cos]]: the rx axis turns from +x toward +y."""
    (outline,) = region_outlines([ellipse(0.5, 0.5, 0.2, 0.05, 90.0)])
    np.testing.assert_allclose(outline[0], [0.5, 0.7], atol=1e-15)
    np.testing.assert_allclose(outline.min(axis=0), [0.45, 0.3], atol=1e-12)


# --------------------------------------------------------------------------- zero area


def test_zero_area_regions_follow_the_identity_rule() -> None:
    line = box(0.1, 0.5, 0.2, 0.0)
    assert iou(line, line) == 1.0 and giou(line, line) == 1.0
    other = box(0.5, 0.5, 0.2, 0.0)  # on the same line: C has no area
    assert iou(line, other) == 0.0 and giou(line, other) == -1.0
    dot = box(0.9, 0.1, 0.0, 0.0)  # C has area, the union has none
    assert iou(line, dot) == 0.0 and giou(line, dot) == -1.0
    inside = box(0.0, 0.0, 1.0, 1.0)  # C = the unit box = the union
    assert iou(line, inside) == 0.0 and giou(line, inside) == 0.0
    two_points = poly((0.2, 0.2), (0.4, 0.4))
    assert iou(two_points, two_points) == 1.0
    flat = poly((0.1, 0.1), (0.2, 0.2), (0.3, 0.3))  # collinear: repaired to nothing
    assert prepare([flat]).area[0] == 0.0
    matrices = (region_iou_matrix([line, other, dot, flat], [line, other, dot, flat]),
                region_giou_matrix([line, other, dot, flat], [line, other, dot, flat]))
    for m in matrices:
        assert np.isfinite(m).all()
    np.testing.assert_array_equal(np.diag(matrices[0]), [1.0, 1.0, 1.0, 1.0])


def test_a_far_away_speck_still_widens_the_enclosing_shape() -> None:
    speck = poly((0.9, 0.9), (0.9, 0.9), (0.9, 0.9))
    near = poly((0.0, 0.0), (0.1, 0.0), (0.0, 0.1))
    assert giou(near, speck) == pytest.approx(-1.0 + 0.005 / hull_area(), abs=EXACT)


def hull_area() -> float:
    """Hull of (0,0), (0.1,0), (0,0.1), (0.9,0.9): two triangles on the diagonal."""
    return float(Polygon([(0, 0), (0.1, 0), (0.9, 0.9), (0, 0.1)]).area)


def test_non_finite_coordinates_are_refused() -> None:
    with pytest.raises(ValueError, match="non-finite"):
        region_iou_matrix([box(float("nan"), 0.0, 0.1, 0.1)], [box(0.0, 0.0, 0.1, 0.1)])
    with pytest.raises(ValueError, match="non-finite"):
        to_geometries([poly((0.0, 0.0), (math.inf, 0.0), (0.0, 1.0))])


def test_empty_inputs_give_empty_matrices() -> None:
    assert region_iou_matrix([], [box(0, 0, 1, 1)]).shape == (0, 1)
    assert region_giou_matrix([box(0, 0, 1, 1)], []).shape == (1, 0)
    with pytest.raises(ValueError, match="equal lengths"):
        region_giou_pairs([box(0, 0, 1, 1)], [])


# --------------------------------------------------------------------------- clamping, outlines


def test_clamping_counts_boxes_reaching_outside() -> None:
    inside = box(0.2, 0.2, 0.3, 0.3)
    left = box(-0.01, 0.5, 0.2, 0.3)
    both = box(0.9, -0.02, 0.12, 1.05)
    shape = ellipse(0.98, 0.5, 0.1, 0.1)  # not a box: left alone
    fixed, n = clamp_boxes([inside, left, shape, both])
    assert n == 2
    assert fixed[0] is inside and fixed[2] is shape
    moved = fixed[1]
    assert isinstance(moved, BoxRegion) and moved.width == pytest.approx(0.19)
    assert moved == BoxRegion("car", 0.0, 0.5, moved.width, 0.3)  # y untouched
    assert isinstance(fixed[3], BoxRegion)
    assert fixed[3].bounds() == pytest.approx((0.9, 0.0, 1.0, 1.0))
    assert clamp_boxes([]) == ([], 0)


def test_outlines_are_closed_and_as_drawn() -> None:
    bow_tie = poly((0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0))
    outlines = region_outlines([box(0.1, 0.2, 0.3, 0.4), bow_tie, ellipse(0.5, 0.5, 0.1, 0.2)])
    assert [o.shape for o in outlines] == [(5, 2), (5, 2), (65, 2)]
    for o in outlines:
        np.testing.assert_array_equal(o[0], o[-1])
    np.testing.assert_allclose(outlines[0][2], [0.4, 0.6])
    np.testing.assert_array_equal(outlines[1][:4], [[0, 0], [1, 1], [1, 0], [0, 1]])
    assert region_outlines([poly()])[0].shape == (0, 2)


# --------------------------------------------------------------------------- properties

GRID = 64  # coordinates on a dyadic grid: translations are exact in floating point

coord = st.integers(0, 48).map(lambda k: k / GRID)
size = st.integers(1, 16).map(lambda k: k / GRID)
boxes = st.builds(box, coord, coord, size, size)
polygons = st.lists(st.tuples(coord, coord), min_size=3, max_size=7).map(
    lambda pts: poly(*pts))
ellipses = st.builds(ellipse, coord, coord, size, size,
                     st.integers(-180, 180).map(float))
regions = st.lists(st.one_of(boxes, polygons, ellipses), min_size=1, max_size=6)
shift = st.integers(-16, 16).map(lambda k: k / GRID)


def translated(region: Region, dx: float, dy: float) -> Region:
    if isinstance(region, BoxRegion):
        return box(region.x + dx, region.y + dy, region.width, region.height)
    if isinstance(region, PolygonRegion):
        return poly(*((x + dx, y + dy) for x, y in region.points))
    return ellipse(region.cx + dx, region.cy + dy, region.rx, region.ry, region.angle_deg)


@settings(max_examples=150, deadline=None)
@given(regions, regions)
def test_iou_and_giou_are_symmetric_and_bounded(a: list[Region], b: list[Region]) -> None:
    ab, ba = region_iou_matrix(a, b), region_iou_matrix(b, a)
    gab, gba = region_giou_matrix(a, b), region_giou_matrix(b, a)
    np.testing.assert_allclose(ab, ba.T, atol=EXACT, rtol=0)
    np.testing.assert_allclose(gab, gba.T, atol=EXACT, rtol=0)
    assert np.all((ab >= 0.0) & (ab <= 1.0))
    assert np.all((gab >= -1.0) & (gab <= 1.0))
    assert np.all(gab <= ab + EXACT)
    d = giou_distance(gab)
    assert np.all((d >= 0.0) & (d <= 1.0))
    np.testing.assert_array_equal(region_iou_pairs(a, a), np.diag(region_iou_matrix(a, a)))


@settings(max_examples=150, deadline=None)
@given(regions, regions, shift, shift)
def test_translating_both_sets_together_changes_nothing(
        a: list[Region], b: list[Region], dx: float, dy: float) -> None:
    moved_a = [translated(r, dx, dy) for r in a]
    moved_b = [translated(r, dx, dy) for r in b]
    np.testing.assert_allclose(region_iou_matrix(moved_a, moved_b), region_iou_matrix(a, b),
                               atol=ORACLE, rtol=0)
    np.testing.assert_allclose(region_giou_matrix(moved_a, moved_b),
                               region_giou_matrix(a, b), atol=ORACLE, rtol=0)
