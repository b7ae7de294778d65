"""The 3D view's numpy camera: pyqtgraph's matrices, exact framing, the top-down turn.

The reference for the matrices is Qt's own ``QMatrix4x4`` built step by step as
``GLViewWidget.viewMatrix`` / ``projectionMatrix`` build it (frustum, rotate, translate),
not the numpy code under test. Framing is checked on every demo sweep and on random
scenes, at window-like sizes, by projecting every box corner.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QMatrix4x4, QVector4D

from app.core.agreement.drawing import cuboid_scene
from app.core.geometry.cuboid_boxes import boxes_array, wireframe_segments
from app.core.objects import Cuboid
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.cuboids.camera import (
    MARGIN,
    Camera,
    fit,
    frame_points,
    framed,
    project,
    top_down,
)

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "lidar_sweeps"
SIZES = ((1280, 800), (750, 260), (300, 900), (200, 200), (1920, 1080))
FILL = 0.97
"""Boxes must span this share of the free width or height (inside the margin)."""


@pytest.fixture(scope="module")
def lidar() -> ProjectData:
    return run(open_project(DEMO))


def qt_pixels(camera: Camera, point: np.ndarray, width: int, height: int) -> tuple[float, float]:
    """The pixel of ``point`` through QMatrix4x4 built as pyqtgraph 0.14 builds it."""
    near, far = camera.distance * 0.001, camera.distance * 1000.0
    r = near * math.tan(0.5 * math.radians(camera.fov))
    t = r * height / width
    projection = QMatrix4x4()
    projection.frustum(-r, r, -t, t, near, far)
    view = QMatrix4x4()
    view.translate(0.0, 0.0, -camera.distance)
    view.rotate(camera.elevation - 90, 1, 0, 0)
    view.rotate(camera.azimuth + 90, 0, 0, -1)
    view.translate(-camera.center[0], -camera.center[1], -camera.center[2])
    v = (projection * view).map(QVector4D(float(point[0]), float(point[1]), float(point[2]), 1.0))
    return ((v.x() / v.w() + 1) / 2 * width, (1 - v.y() / v.w()) / 2 * height)


def test_projection_matches_qts_matrices() -> None:
    rng = np.random.default_rng(3)
    for _ in range(30):
        camera = Camera(
            tuple(rng.uniform(-20, 20, 3).tolist()),
            float(rng.uniform(2, 200)),
            float(rng.uniform(-89, 90)),
            float(rng.uniform(-360, 360)),
            float(rng.choice([60.0, 2.0, 35.0])),
        )
        width, height = int(rng.integers(200, 2000)), int(rng.integers(200, 1200))
        # Points in front of the eye: near the look-at centre.
        points = np.asarray(camera.center) + rng.uniform(-1, 1, (5, 3)) * camera.distance * 0.3
        ours = project(camera, points, width, height)
        for p, mine in zip(points, ours, strict=True):
            # QMatrix4x4 is single precision: agree to its ~1e-7 relative rounding.
            assert mine == pytest.approx(qt_pixels(camera, p, width, height), rel=1e-5, abs=1e-3)


def test_a_flat_square_seen_from_above_sits_at_the_hand_computed_distance() -> None:
    # A 2 m × 2 m square at z = 0 in a square widget, looking straight down through a
    # 2° fov with a 10% margin: the eye is 1 / (0.9 · tan 1°) = 63.66 m above it.
    square = np.array([[x, y, 0.0] for x in (-1, 1) for y in (-1, 1)], dtype=float)
    camera = fit(top_down(Camera()), square, 500, 500)
    assert camera.distance == pytest.approx(1 / (0.9 * math.tan(math.radians(1.0))), rel=1e-9)
    assert camera.center == pytest.approx((0.0, 0.0, 0.0), abs=1e-9)
    px = project(camera, square, 500, 500)
    # Each corner 5% (half the margin) of the width in from its edge.
    assert sorted(px[:, 0].round(6).tolist()) == pytest.approx([25, 25, 475, 475])
    assert sorted(px[:, 1].round(6).tolist()) == pytest.approx([25, 25, 475, 475])


def assert_framed(camera: Camera, corners: np.ndarray, width: int, height: int) -> None:
    px = project(camera, corners, width, height)
    assert not np.isnan(px).any()
    mx, my = MARGIN / 2 * width, MARGIN / 2 * height
    assert px[:, 0].min() >= mx - 1e-6 and px[:, 0].max() <= width - mx + 1e-6
    assert px[:, 1].min() >= my - 1e-6 and px[:, 1].max() <= height - my + 1e-6
    span_x = (px[:, 0].max() - px[:, 0].min()) / (width - 2 * mx)
    span_y = (px[:, 1].max() - px[:, 1].min()) / (height - 2 * my)
    assert max(span_x, span_y) >= FILL, (span_x, span_y)


@pytest.mark.parametrize("top", [False, True])
def test_every_demo_sweep_is_framed_at_every_size(lidar: ProjectData, top: bool) -> None:
    agreement = lidar.report.schemes["objects"].details
    framed_items = 0
    for item in lidar.study.items:
        scene = cuboid_scene(agreement, item)
        corners = frame_points(scene.edges, None)
        if corners is None:
            continue
        framed_items += 1
        for width, height in SIZES:
            camera = framed(top, corners, width, height)
            assert camera.elevation == (90.0 if top else 30.0)
            assert_framed(camera, corners, width, height)
    assert framed_items == 20  # sweep_013 has lena's one box


def test_random_scenes_are_framed_from_any_angle() -> None:
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(1, 12))
        boxes = [
            Cuboid(
                "car",
                tuple(rng.uniform(-40, 40, 3).tolist()),
                tuple(rng.uniform(0.3, 5, 3).tolist()),
                tuple((q / np.linalg.norm(q)).tolist()),
            )
            for q in rng.normal(size=(n, 4))
        ]
        corners = wireframe_segments(boxes_array(boxes)).reshape(-1, 3)
        camera = Camera(elevation=float(rng.uniform(-80, 90)), azimuth=float(rng.uniform(0, 360)))
        width, height = int(rng.integers(200, 2000)), int(rng.integers(200, 1200))
        assert_framed(fit(camera, corners, width, height), corners, width, height)


def test_top_down_turns_the_road_along_the_longer_side() -> None:
    # A road of boxes 60 m along x, 4 m across: lying down in a wide widget (+x right),
    # standing up in a tall one (+x up), and +y follows as a right-handed plan.
    road = np.array([[x, y, 0.0] for x in (-30, 30) for y in (-2, 2)], dtype=float)
    wide = framed(True, road, 1200, 400)
    origin, ahead, left = project(wide, np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]]), 1200, 400)
    assert ahead[0] > origin[0] and ahead[1] == pytest.approx(origin[1])
    assert left[1] < origin[1]  # +y up the screen
    tall = framed(True, road, 400, 1200)
    origin, ahead, left = project(tall, np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]]), 400, 1200)
    assert ahead[1] < origin[1] and ahead[0] == pytest.approx(origin[0])
    assert left[0] < origin[0]  # +y to the left
    assert wide.elevation == tall.elevation == 90.0


def test_nothing_to_frame_keeps_the_default_camera() -> None:
    assert frame_points(np.zeros((0, 2, 3)), None) is None
    assert framed(False, None, 800, 600) == Camera()
    cloud = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert frame_points(np.zeros((0, 2, 3)), cloud) is not None
