"""Every unit conversion of the model, against values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.agreement.kinds.registry import kind_for
from app.core.model import Kind
from app.core.objects import (
    BoxRegion,
    Cuboid,
    Mask,
    Segment,
    normalized_quaternion,
    quaternion_to_matrix,
)


def test_box_from_pixels_is_normalized_top_left() -> None:
    box = BoxRegion.from_pixels("car", 64, 48, 320, 240, image_width=640, image_height=480)
    assert (box.x, box.y, box.width, box.height) == (0.1, 0.1, 0.5, 0.5)
    assert box.bounds() == (0.1, 0.1, 0.6, 0.6)


def test_box_from_percent() -> None:
    box = BoxRegion.from_percent("car", 10, 20, 30, 40)
    assert (box.x, box.y, box.width, box.height) == pytest.approx((0.1, 0.2, 0.3, 0.4))


def test_mask_row_major_round_trip() -> None:
    array = np.zeros((3, 4), dtype=bool)
    array[0, 1:3] = True  # run: 1 background, 2 set
    array[2, 3] = True
    mask = Mask.from_array("tumour", array)
    assert mask.counts == (1, 2, 8, 1)
    assert np.array_equal(mask.to_array(), array)


def test_mask_starting_with_foreground_has_empty_background_run() -> None:
    array = np.ones((2, 2), dtype=bool)
    assert Mask.from_array("x", array).counts == (0, 4)


def test_coco_column_major_rle_is_transposed_walk() -> None:
    # 2×3 image, pixel (row 0, col 1) set. Column-major order: (0,0),(1,0),(0,1),...
    # so the set pixel is the 3rd in that walk: runs [2, 1, 3].
    mask = Mask.from_column_major("x", 2, 3, [2, 1, 3])
    expected = np.zeros((2, 3), dtype=bool)
    expected[0, 1] = True
    assert np.array_equal(mask.to_array(), expected)
    # Row-major the same pixel is the 2nd: runs [1, 1, 4].
    assert mask.counts == (1, 1, 4)


def test_coco_rle_with_wrong_total_is_refused() -> None:
    with pytest.raises(ValueError, match="sum to 5"):
        Mask.from_column_major("x", 2, 3, [2, 3])


def test_yaw_quaternion_and_corners() -> None:
    box = Cuboid.from_yaw("car", (1.0, 2.0, 0.5), (4.0, 2.0, 1.5), math.pi / 2)
    assert box.rotation == pytest.approx((0, 0, math.sin(math.pi / 4), math.cos(math.pi / 4)))
    corners = box.corners()
    # Turned 90° about z: the 4 m length now runs along y.
    assert corners[:, 0].max() - corners[:, 0].min() == pytest.approx(2.0)
    assert corners[:, 1].max() - corners[:, 1].min() == pytest.approx(4.0)
    assert corners.mean(axis=0) == pytest.approx([1.0, 2.0, 0.5])
    assert box.volume == pytest.approx(12.0)


def test_quaternion_matrix_is_a_rotation() -> None:
    q = normalized_quaternion((0.3, -0.2, 0.5, 0.7))
    r = quaternion_to_matrix(q)
    assert r @ r.T == pytest.approx(np.eye(3))
    assert np.linalg.det(r) == pytest.approx(1.0)


def test_quaternion_is_normalized_and_zero_refused() -> None:
    assert normalized_quaternion((0, 0, 0, 2)) == (0.0, 0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="no direction"):
        normalized_quaternion((0, 0, 0, 0))
    with pytest.raises(ValueError):
        normalized_quaternion((math.nan, 0, 0, 1))


def test_kitti_bottom_centre_becomes_box_centre() -> None:
    # KITTI: camera frame, +y down; location is the bottom-face centre.
    box = Cuboid.from_kitti("Car", h=1.5, w=1.6, l=3.9, x=2.0, y=1.7, z=10.0, rotation_y=0.0)
    assert box.center == pytest.approx((2.0, 0.95, 10.0))
    assert box.size == (3.9, 1.5, 1.6)
    corners = box.corners()
    assert corners[:, 1].max() == pytest.approx(1.7)  # the bottom face is at y = 1.7
    turned = Cuboid.from_kitti("Car", 1.5, 1.6, 3.9, 0.0, 0.0, 0.0, rotation_y=math.pi / 2)
    c = turned.corners()
    # rotation_y = 90° turns the length from camera x onto camera z.
    assert c[:, 2].max() - c[:, 2].min() == pytest.approx(3.9)


def test_nuscenes_size_and_quaternion_order() -> None:
    half = math.pi / 8
    box = Cuboid.from_nuscenes("car", [1, 2, 3], [1.8, 4.5, 1.6],
                               [math.cos(half), 0, 0, math.sin(half)])
    assert box.size == (4.5, 1.8, 1.6)
    assert box.rotation == pytest.approx((0, 0, math.sin(half), math.cos(half)))


def test_segments_in_seconds() -> None:
    s = Segment.from_milliseconds(1500, 2250, "speech", tier="A")
    assert (s.start, s.end, s.duration) == (1.5, 2.25, 0.75)
    f = Segment.from_frames(30, 45, 30.0, "wave")
    assert (f.start, f.end) == (1.0, 1.5)


@pytest.mark.parametrize(("annotation_type", "config", "kind"), [
    ("radio", {}, Kind.NOMINAL),
    ("select", {}, Kind.NOMINAL),
    ("multiselect", {}, Kind.MULTILABEL),
    ("multiselect", {"max_selections": 1}, Kind.NOMINAL),
    ("likert", {}, Kind.ORDINAL),
    ("slider", {}, Kind.ORDINAL),
    ("spatial_annotation", {}, Kind.CUBOIDS),
    ("audio_annotation", {}, Kind.SEGMENTS),
    ("video_annotation", {}, Kind.SEGMENTS),
    ("temporal_grounding", {}, Kind.SEGMENTS),
    ("tiered_annotation", {}, Kind.TIERS),
    ("image_annotation", {}, Kind.REGIONS),
    ("process_reward", {}, Kind.TRACE),
    ("failure_attribution", {}, Kind.TRACE),
    ("text", {}, None),
])
def test_kind_follows_annotation_type(annotation_type: str, config: dict[str, object],
                                      kind: Kind | None) -> None:
    assert kind_for(annotation_type, config) is kind
