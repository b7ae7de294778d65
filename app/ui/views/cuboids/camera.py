"""The 3D view's camera as plain numbers: pyqtgraph's orbit camera, its matrices, framing.

Why here and in numpy: framing, the top-down toggle and the label layout all need to
know where a 3D point lands on screen, and that must be testable without OpenGL (the
offscreen tests, the software drawing of :mod:`.flat_canvas`). The matrices are the
ones ``pyqtgraph.opengl.GLViewWidget`` builds (``viewMatrix``: translate by
``-distance``, rotate by ``elevation - 90`` about x and ``azimuth + 90`` about -z,
translate by ``-center``; ``projectionMatrix``: a frustum whose *horizontal* half-angle
is ``fov / 2``), so a :class:`Camera` copied into the GL canvas shows the same picture;
``tests/gl`` checks that against Qt's own matrices.

Framing (:func:`fit`) is exact, not a bounding-sphere estimate: in the camera's axes a
point ``(x, y, z)`` is inside the frustum shrunk by the margin when
``|x - ex| <= s (ez - z)`` (and the same for y), which is linear in the eye position
``(ex, ey, ez)``. The closest eye that sees every point is then closed-form: for x,
``ez = (A + B) / 2`` and ``ex = s (A - B) / 2`` with ``A = max(z + x/s)`` and
``B = max(z - x/s)``; the larger of the x and y answers wins (moving back only relaxes the
other axis). So every box corner lands inside the viewport with the margin, and the
boxes touch the margin on at least one side: they fill the view as much as they can.

The top-down view (a choice; the spec is silent) looks straight down z (elevation 90°)
through a 2° field of view from far away: perspective so weak it reads as an
orthographic bird's-eye plan, while pyqtgraph's orbit, pan and zoom keep working
unchanged. It is turned so the boxes come out largest in the widget: +x (forward, for a
lidar sweep) up the screen with +y to the left (azimuth 180°), or +x to the right with
+y up (azimuth -90°), whichever fits closer: a sweep that runs along the road fills a
wide window lying down, a tall one standing up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

ELEVATION = 30.0
AZIMUTH = 200.0
FOV = 60.0
TOP_ELEVATION = 90.0
TOP_AZIMUTH = 180.0
"""With elevation 90, azimuth 180 puts world +x up the screen and +y left (tested)."""
TOP_AZIMUTH_X_RIGHT = -90.0
"""With elevation 90, azimuth -90 puts world +x right and +y up (tested)."""
TOP_FOV = 2.0
MARGIN = 0.1
"""Fraction of each half-extent of the viewport kept free around the boxes."""
MIN_HALF_EXTENT = 0.5
"""Metres: a single tiny box is not zoomed into a wall of pixels."""


@dataclass(frozen=True, slots=True)
class Camera:
    center: tuple[float, float, float] = (0.0, 0.0, 0.0)
    distance: float = 20.0
    elevation: float = ELEVATION
    azimuth: float = AZIMUTH
    fov: float = FOV

    @property
    def top_down(self) -> bool:
        return self.elevation == TOP_ELEVATION


def perspective(camera: Camera) -> Camera:
    """The default oblique camera (same centre; :func:`fit` places it)."""
    return replace(camera, elevation=ELEVATION, azimuth=AZIMUTH, fov=FOV)


def top_down(camera: Camera) -> Camera:
    """The bird's-eye camera looking down z (same centre; :func:`fit` places it)."""
    return replace(camera, elevation=TOP_ELEVATION, azimuth=TOP_AZIMUTH, fov=TOP_FOV)


def _rotation_x(degrees: float) -> np.ndarray:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _rotation_z(degrees: float) -> np.ndarray:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotation(camera: Camera) -> np.ndarray:
    """World → camera axes (rows: right, up, back), as ``GLViewWidget.viewMatrix``."""
    # QMatrix4x4.rotate(angle, 0, 0, -1) is a rotation by -angle about +z.
    out: np.ndarray = _rotation_x(camera.elevation - 90.0) @ _rotation_z(-(camera.azimuth + 90.0))
    return out


def view_matrix(camera: Camera) -> np.ndarray:
    """The 4×4 world → eye matrix."""
    r = rotation(camera)
    out = np.eye(4)
    out[:3, :3] = r
    out[:3, 3] = -r @ np.asarray(camera.center, dtype=float)
    out[2, 3] -= camera.distance
    return out


def projection_matrix(camera: Camera, width: float, height: float) -> np.ndarray:
    """The 4×4 eye → clip matrix of ``GLViewWidget.projectionMatrix`` (full viewport)."""
    near, far = camera.distance * 0.001, camera.distance * 1000.0
    r = near * math.tan(math.radians(camera.fov) / 2)
    t = r * height / max(width, 1.0)
    out = np.zeros((4, 4))
    out[0, 0], out[1, 1] = near / r, near / t
    out[2, 2], out[2, 3] = -(far + near) / (far - near), -2 * far * near / (far - near)
    out[3, 2] = -1.0
    return out


def project(camera: Camera, points: np.ndarray, width: float, height: float) -> np.ndarray:
    """Widget pixels ``(n, 2)`` (x right, y down) of world ``points``; NaN behind the eye."""
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    matrix = projection_matrix(camera, width, height) @ view_matrix(camera)
    clip = np.column_stack([pts, np.ones(len(pts))]) @ matrix.T
    w = clip[:, 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        ndc = clip[:, :2] / np.where(w > 0, w, np.nan)[:, None]
    out: np.ndarray = np.column_stack([(ndc[:, 0] + 1) / 2 * width, (1 - ndc[:, 1]) / 2 * height])
    return out


def fit(
    camera: Camera, points: np.ndarray | None, width: float, height: float, margin: float = MARGIN
) -> Camera:
    """``camera`` (its angles and fov kept) moved so every point is inside the viewport
    with ``margin``, as close as possible (see the module docstring)."""
    if points is None or not len(points):
        return camera
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    r = rotation(camera)
    local = pts @ r.T
    low, high = local.min(axis=0), local.max(axis=0)
    middle = (low + high) / 2
    # A degenerate extent (one point, a flat box seen edge-on) still gets some size.
    pad = np.maximum(MIN_HALF_EXTENT - (high - low) / 2, 0.0)
    local = np.vstack([local, middle - pad, middle + pad])
    s_x = math.tan(math.radians(camera.fov) / 2) * (1 - margin)
    s_y = s_x * height / max(width, 1.0)
    eye = np.zeros(3)
    depth = []
    for axis, s in ((0, s_x), (1, s_y)):
        a = float(np.max(local[:, 2] + local[:, axis] / s))
        b = float(np.max(local[:, 2] - local[:, axis] / s))
        eye[axis] = s * (a - b) / 2
        depth.append((a + b) / 2)
    eye[2] = max(depth)
    distance = float(eye[2] - middle[2])
    center_local = np.array([eye[0], eye[1], middle[2]])
    center = center_local @ r  # back to world axes (r is orthonormal)
    return replace(
        camera, center=(float(center[0]), float(center[1]), float(center[2])), distance=distance
    )


def framed(top: bool, points: np.ndarray | None, width: float, height: float) -> Camera:
    """The camera a canvas starts from: oblique or top-down, fitted to ``points``; the
    top-down one turned whichever way shows the points larger."""
    if not top:
        return fit(Camera(), points, width, height)
    turns = [
        fit(replace(top_down(Camera()), azimuth=a), points, width, height)
        for a in (TOP_AZIMUTH, TOP_AZIMUTH_X_RIGHT)
    ]
    return min(turns, key=lambda c: c.distance)


def frame_points(scene_edges: np.ndarray, cloud: np.ndarray | None) -> np.ndarray | None:
    """What the camera frames: every box corner of every annotator, else the cloud."""
    if len(scene_edges):
        out: np.ndarray = np.asarray(scene_edges, dtype=float).reshape(-1, 3)
        return out
    return None if cloud is None or not len(cloud) else np.asarray(cloud, dtype=float)
