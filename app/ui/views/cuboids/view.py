"""The 3D cuboids view: every annotator's boxes of one item, where they agree and not.

Draws the selected item of a cuboids scheme from the report's :class:`SetAgreement`
through :func:`app.core.agreement.drawing.cuboid_scene` (the geometry is the core's;
this module only picks colours, builds the cluster labels (:mod:`.labels`) and lays out
widgets). The OpenGL part is :class:`~app.ui.views.cuboids.canvas.CuboidCanvas`; when
this platform has no OpenGL (:func:`app.ui.gl_support.gl_available`, false on Qt's
``offscreen`` platform) the same scene, camera and labels are painted in software by
:class:`~app.ui.views.cuboids.flat_canvas.FlatCanvas` and the header says so, so a
screenshot without a display still shows the boxes, and offscreen tests print nothing.

Layout (choices; the spec is silent): a header row (scheme, item, counts; then the
*Top-down* toggle, shortcut T, and *Fit*, shortcut F, which frames the boxes again
after an orbit or zoom), the canvas, and a legend panel on the right listing each
annotator in their colour (names through :meth:`ViewContext.annotator_label`, so
presentation mode shows A, B, C) with their box count and how many of their boxes nobody
else matched, then a key. The legend wraps its text at its width and sits in a scroll
area, so a short dock scrolls it instead of cutting its last lines. The point cloud is
read with :func:`app.core.formats.media.read_point_cloud` (bounded to 200 000 points, so
drawing stays quick on the GUI thread).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.core.agreement.drawing import CuboidScene, cuboid_scene
from app.core.errors import InputError
from app.core.formats.media import POINT_CLOUD_SUFFIXES, read_point_cloud
from app.ui.gl_support import gl_available, platform_name
from app.ui.palette import annotator_color
from app.ui.views.base import View, ViewContext
from app.ui.views.cuboids.flat_canvas import FlatCanvas
from app.ui.views.cuboids.labels import cluster_labels, link_boxes
from app.ui.views.cuboids.track_ids import unit_track_ids
from app.ui.views.set_pick import SetPick, annotator_index, pick_set_item, picked_media

if TYPE_CHECKING:
    from app.ui.views.cuboids.canvas import CuboidCanvas

KINDS = ("cuboids",)
WHAT = "3D boxes"
LEGEND_WIDTH = 230
NO_GL_NOTE = "no OpenGL here (Qt platform '{platform}'): software drawing"


class CuboidsView(View):
    name = "cuboids"
    title = "3D cuboids"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setWordWrap(True)
        self.top_button = QPushButton("Top-down")
        self.top_button.setCheckable(True)
        self.top_button.setToolTip("Look straight down z (bird's-eye view) and back (T)")
        self.top_button.toggled.connect(self._set_top_down)
        self.fit_button = QPushButton("Fit")
        self.fit_button.setToolTip("Frame every box again after orbiting or zooming (F)")
        self.fit_button.clicked.connect(self._reframe)
        for key, slot in (("T", self.top_button.toggle), ("F", self._reframe)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self.legend = QLabel()
        self.legend.setObjectName("cuboids_legend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.legend.setWordWrap(True)
        self.legend.setContentsMargins(8, 8, 8, 8)
        self.legend_area = QScrollArea()
        self.legend_area.setWidget(self.legend)
        self.legend_area.setWidgetResizable(True)
        self.legend_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.legend_area.setFrameShape(QFrame.Shape.StyledPanel)
        self.legend_area.setFixedWidth(LEGEND_WIDTH)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.canvas: CuboidCanvas | FlatCanvas
        self.gl_message: str | None = None
        if gl_available():
            from app.ui.views.cuboids.canvas import CuboidCanvas

            self.canvas = CuboidCanvas(self)
        else:
            self.canvas = FlatCanvas(self)
            self.gl_message = NO_GL_NOTE.format(platform=platform_name() or "none")

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.header, 1)
        top.addWidget(self.top_button)
        top.addWidget(self.fit_button)
        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.addWidget(self.message, 1)
        body.addWidget(self.canvas, 1)
        body.addWidget(self.legend_area)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addLayout(body, 1)
        self.show_context(ViewContext())

    # ----------------------------------------------------------------- contract

    def show_context(self, context: ViewContext) -> None:
        draw = self._show_around_canvas(context)
        if draw is not None:
            draw()

    def context_steps(self, context: ViewContext) -> list[Callable[[], object]]:
        """Two steps: the header and legend, then the canvas. The canvas's first paint
        with a new sweep (its labels laid out) is the longest of the window's repaints
        (25-35 ms on the 2,000-sweep study); in the same turn as the legend's first
        layout it stalled the window 50-70 ms (``bench_gui_stall.py``)."""
        pending: list[Callable[[], None]] = []

        def around() -> None:
            draw = self._show_around_canvas(context)
            if draw is not None:
                pending.append(draw)

        return [around, lambda: [draw() for draw in pending]]

    def _show_around_canvas(self, context: ViewContext) -> Callable[[], None] | None:
        """Show ``context`` except on the canvas; the call that draws it there (None
        when the canvas shows nothing)."""
        pick = pick_set_item(context, KINDS, WHAT)
        scale = context.font_scale
        font = self.font()
        font.setPointSizeF(max(6.0, 10.0 * scale))
        for widget in (self.header, self.legend, self.message, self.top_button, self.fit_button):
            widget.setFont(font)
        self.legend_area.setFixedWidth(round(LEGEND_WIDTH * max(1.0, scale)))  # grows with it
        if pick.empty:
            self.show_empty(pick.message)
        else:
            self.hide_empty()
        if not pick.ok:
            self._show_message(pick.message)
            self.header.setText(f"Scheme {pick.scheme}" if pick.scheme else "3D cuboids")
            self.legend.setText("")
            self.legend_area.hide()
            return None
        assert pick.agreement is not None
        scene = cuboid_scene(pick.agreement, pick.item)
        colors = [annotator_color(annotator_index(context, a)) for a in scene.annotators]
        cloud, cloud_note = self._cloud(context, pick)
        header = self._header(pick, scene, cloud, cloud_note)
        self.header.setText(header + (f" · {self.gl_message}" if self.gl_message else ""))
        self.legend.setText(self._legend_html(context, scene, colors))
        self.legend_area.show()
        self.message.hide()
        self.canvas.show()
        self.top_button.setEnabled(True)
        self.fit_button.setEnabled(True)
        agreement, item = pick.agreement, pick.item

        tracks = (unit_track_ids(context.project, pick.scheme, item, scene.annotators,
                                 len(scene.box_owner)) if context.project is not None else None)

        def draw() -> None:
            labels = cluster_labels(scene, link_boxes(agreement, item), context.annotator_label,
                                    tracks)
            self.canvas.draw(scene, colors, cloud, labels, scale)

        return draw

    # ----------------------------------------------------------------- pieces

    def _set_top_down(self, on: bool) -> None:
        self.canvas.set_top_down(on)

    def _reframe(self) -> None:
        self.canvas.reframe()

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()
        self.canvas.hide()
        self.canvas.clear()
        self.top_button.setEnabled(False)
        self.fit_button.setEnabled(False)

    @staticmethod
    def _cloud(context: ViewContext, pick: SetPick) -> tuple[np.ndarray | None, str]:
        if context.project is None:
            return None, ""
        path = picked_media(context, pick, POINT_CLOUD_SUFFIXES)
        if path is None:
            return None, "no point cloud"
        try:
            cloud = read_point_cloud(path)
        except InputError as exc:
            return None, f"point cloud {path.name} unreadable: {exc.problem}"
        return cloud, f"{len(cloud):,} points"

    @staticmethod
    def _header(
        pick: SetPick, scene: CuboidScene, cloud: np.ndarray | None, cloud_note: str
    ) -> str:
        default = " (first item; pick one in Items)" if pick.by_default else ""
        n_points = int(scene.is_point.sum())
        n_boxes = len(scene.box_owner) - n_points
        points = f", {_count(n_points, 'point', 'points')}" if n_points else ""
        n_unmatched = int(scene.unmatched.sum())
        held = pick.agreement.objects.get(pick.item, {}) if pick.agreement is not None else {}
        n_undrawn = sum(len(objects) for objects in held.values()) - len(scene.box_owner)
        undrawn = (f" · {n_undrawn} 3D polylines and segments scored, not drawn"
                   if n_undrawn > 0 else "")
        return (
            f"Scheme {pick.scheme} · item {pick.item}{default} · "
            f"{_count(n_boxes, 'box', 'boxes')}{points}, "
            f"{len(scene.links)} matched pairs, {n_unmatched} unmatched{undrawn} · {cloud_note}"
        )

    @staticmethod
    def _legend_html(context: ViewContext, scene: CuboidScene, colors: list[QColor]) -> str:
        rows = []
        for k, (name, n_boxes, n_alone) in enumerate(legend_entries(scene)):
            swatch = colors[k].name()
            label = _escape(context.annotator_label(name))
            n_points = int((scene.is_point & (scene.box_owner == k)).sum()) if len(
                scene.is_point) else 0
            drawn = _count(n_boxes - n_points, "box", "boxes") + (
                f", {_count(n_points, 'point', 'points')}" if n_points else "")
            rows.append(
                f"<tr><td style='background:{swatch}' width='18'>&nbsp;</td>"
                f"<td>&nbsp;<b>{label}</b></td></tr>"
                f"<tr><td></td><td>&nbsp;{drawn}, {n_alone} unmatched</td></tr>"
            )
        key = (
            "<p><b>Key</b><br>thin edges: a box someone else also drew<br>"
            "<b>thick edges</b>: unmatched (nobody else found it; red label)<br>"
            "label: the class (<i>car · B: cyclist</i> when someone called it "
            "otherwise), then <i>a–b 0.62</i>, the IoU of each matched pair (a dark line "
            "joins their centres); a grey leader line points to a label moved off its "
            "boxes; labels with no room are counted in a corner<br>"
            + (
                "small diamonds: 3D points, compared by the distance between them "
                "(<i>a–b distance 0.4 m</i>), not by an IoU<br>"
                if scene.is_point.any() else ""
            )
            + "grey dots: the lidar points<br>"
            + "<i>drag to orbit, wheel to zoom, middle-drag to pan (OpenGL); T: top-down; "
            "F: fit</i></p>"
        )
        return "<p><b>Annotators</b></p><table cellspacing='2'>" + "".join(rows) + "</table>" + key


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def legend_entries(scene: CuboidScene) -> list[tuple[str, int, int]]:
    """(annotator, boxes, unmatched boxes) per legend row, for tests and exports."""
    return [
        (
            name,
            int((scene.box_owner == k).sum()),
            int((scene.unmatched & (scene.box_owner == k)).sum()),
        )
        for k, name in enumerate(scene.annotators)
    ]
