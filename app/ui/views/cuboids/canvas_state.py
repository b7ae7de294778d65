"""What the GL canvas and the software canvas of the 3D view keep alike.

The view draws with OpenGL when the machine has it (:mod:`.canvas`) and with QPainter
when it does not (:mod:`.flat_canvas`); both must frame, orbit back and mark unmatched
boxes the same way, so a screenshot without GL shows what the window shows. The state
of the framing and the unmatched-edge mask live here once.
"""

from __future__ import annotations

import numpy as np

from app.core.agreement.drawing import CuboidScene
from app.ui.views.cuboids.camera import Camera, framed


class Framing:
    """The points the camera is fitted to, top-down or oblique, and whether the user has
    moved the camera since (then a resize keeps their camera instead of refitting)."""

    def __init__(self) -> None:
        self.points: np.ndarray | None = None
        self.top = False
        self.user_moved = False

    def set_points(self, points: np.ndarray | None) -> None:
        self.points = None if points is None or not len(points) else np.asarray(points)

    def fitted(self, width: float, height: float) -> Camera:
        """The camera that frames :attr:`points` in ``width × height``; the user's own
        moves are forgotten."""
        self.user_moved = False
        return framed(self.top, self.points, width, height)

    @property
    def refit_on_resize(self) -> bool:
        return not self.user_moved


def unmatched_edges(scene: CuboidScene) -> np.ndarray:
    """Per edge of ``scene``: does it belong to a box nobody else matched? (Each box has
    12 edges, in box order; a scene that breaks that marks nothing.)"""
    if len(scene.edges) != 12 * len(scene.unmatched):
        return np.zeros(len(scene.edges), dtype=bool)
    mask: np.ndarray = np.repeat(scene.unmatched, 12)
    return mask
