"""The 3D cuboids view: every annotator's boxes of one item, where they agree and not.

Draws the selected item of a cuboids scheme from the report's :class:`SetAgreement`
through :func:`app.core.agreement.drawing.cuboid_scene` (the geometry is the core's;
this module only picks colours and lays out widgets). The OpenGL part is
:class:`~app.ui.views.cuboids.canvas.CuboidCanvas`; when this platform has no OpenGL
(:func:`app.ui.gl_support.gl_available`, false on Qt's ``offscreen`` platform) the view
shows a sentence in its place and everything else (header, legend) still works, so the
window never breaks and offscreen tests print nothing.

Layout (choices; the spec is silent): a one-line header (scheme, item, counts), the
canvas, and a legend panel on the right listing each annotator in their colour (names
through :meth:`ViewContext.annotator_label`, so presentation mode shows A, B, C) with
their box count and how many of their boxes nobody else matched, then a key for the
line styles. The point cloud is read with :func:`app.core.formats.media.read_point_cloud`
(bounded to 200 000 points, so drawing stays quick on the GUI thread).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.core.agreement.drawing import CuboidScene, cuboid_scene
from app.core.agreement.sets.agreement import SetAgreement
from app.core.errors import InputError
from app.core.formats.media import POINT_CLOUD_SUFFIXES, read_point_cloud
from app.ui.gl_support import gl_available, unavailable_sentence
from app.ui.palette import annotator_color
from app.ui.views.base import View, ViewContext
from app.ui.views.set_pick import SetPick, annotator_index, pick_set_item, picked_media

if TYPE_CHECKING:
    from app.ui.views.cuboids.canvas import CuboidCanvas

KINDS = ("cuboids",)
WHAT = "3D boxes"
LEGEND_WIDTH = 230


class CuboidsView(View):
    name = "cuboids"
    title = "3D cuboids"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setWordWrap(True)
        self.legend = QLabel()
        self.legend.setObjectName("cuboids_legend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.legend.setWordWrap(True)
        self.legend.setFixedWidth(LEGEND_WIDTH)
        self.legend.setFrameShape(QFrame.Shape.StyledPanel)
        self.legend.setContentsMargins(8, 8, 8, 8)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.canvas: CuboidCanvas | None = None
        self.gl_message: str | None = None
        if gl_available():
            from app.ui.views.cuboids.canvas import CuboidCanvas

            self.canvas = CuboidCanvas(self)
        else:
            self.gl_message = unavailable_sentence()

        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.addWidget(self.message, 1)
        if self.canvas is not None:
            body.addWidget(self.canvas, 1)
        body.addWidget(self.legend)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.header)
        layout.addLayout(body, 1)
        self.show_context(ViewContext())

    # ----------------------------------------------------------------- contract

    def show_context(self, context: ViewContext) -> None:
        pick = pick_set_item(context, KINDS, WHAT)
        scale = context.font_scale
        font = self.font()
        font.setPointSizeF(max(6.0, 10.0 * scale))
        for label in (self.header, self.legend, self.message):
            label.setFont(font)
        self.legend.setFixedWidth(round(LEGEND_WIDTH * max(1.0, scale)))  # grows with it
        if not pick.ok:
            self._show_message(pick.message)
            self.header.setText(f"Scheme {pick.scheme}" if pick.scheme else "3D cuboids")
            self.legend.setText("")
            self.legend.hide()
            return
        assert pick.agreement is not None
        scene = cuboid_scene(pick.agreement, pick.item)
        colors = [annotator_color(annotator_index(context, a)) for a in scene.annotators]
        cloud, cloud_note = self._cloud(context, pick)
        self.header.setText(self._header(pick, scene, cloud, cloud_note))
        self.legend.setText(self._legend_html(context, scene, colors))
        self.legend.show()
        if self.canvas is None:
            self._show_message(self.gl_message or "")
            return
        self.message.hide()
        self.canvas.show()
        pairs = link_pairs(pick.agreement, pick.item)
        texts = [f"{context.annotator_label(a)}–{context.annotator_label(b)} {iou:.2f}"
                 for (a, b), iou in zip(pairs, scene.link_iou.tolist(), strict=True)]
        alone = [f"unmatched: {context.annotator_label(scene.annotators[k])} only"
                 for k in scene.box_owner[scene.unmatched].tolist()]
        self.canvas.draw(scene, colors, cloud, texts, alone, scale)

    # ----------------------------------------------------------------- pieces

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()
        if self.canvas is not None:
            self.canvas.hide()
            self.canvas.clear()

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
            return None, f"point cloud unreadable: {exc.problem}"
        return cloud, f"{len(cloud):,} points"

    @staticmethod
    def _header(pick: SetPick, scene: CuboidScene, cloud: np.ndarray | None,
                cloud_note: str) -> str:
        default = " (first item; pick one in Items)" if pick.by_default else ""
        n_boxes = len(scene.box_owner)
        n_unmatched = int(scene.unmatched.sum())
        return (f"Scheme {pick.scheme} · item {pick.item}{default} · {n_boxes} boxes, "
                f"{len(scene.links)} matched pairs, {n_unmatched} unmatched · {cloud_note}")

    @staticmethod
    def _legend_html(context: ViewContext, scene: CuboidScene, colors: list[QColor]) -> str:
        rows = []
        for k, (name, n_boxes, n_alone) in enumerate(legend_entries(scene)):
            swatch = colors[k].name()
            label = _escape(context.annotator_label(name))
            rows.append(
                f"<tr><td style='background:{swatch}' width='18'>&nbsp;</td>"
                f"<td>&nbsp;<b>{label}</b></td></tr>"
                f"<tr><td></td><td>&nbsp;{n_boxes} boxes, {n_alone} unmatched</td></tr>")
        key = ("<p><b>Key</b><br>thin edges: a box someone else also drew<br>"
               "<b>thick edges</b>, red label: unmatched (nobody else found it)<br>"
               "label <i>a–b 0.62</i>: boxes of a and b matched, with their IoU "
               "(a dark line joins the two centres)<br>"
               "grey dots: the lidar points<br>"
               "<i>drag to orbit, wheel to zoom, middle-drag to pan</i></p>")
        return ("<p><b>Annotators</b></p><table cellspacing='2'>" + "".join(rows)
                + "</table>" + key)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def link_pairs(agreement: SetAgreement, item: str) -> list[tuple[str, str]]:
    """The two annotators of each link of :func:`cuboid_scene`, in its order.

    ``cuboid_scene`` lists the matches outcome by outcome, row by row; this walks the
    same outcomes the same way, so link ``k`` is between ``pairs[k]``.
    """
    return [(o.a, o.b) for o in agreement.outcomes if o.item == item for _ in o.rows.tolist()]


def legend_entries(scene: CuboidScene) -> list[tuple[str, int, int]]:
    """(annotator, boxes, unmatched boxes) per legend row, for tests and exports."""
    return [(name, int((scene.box_owner == k).sum()),
             int((scene.unmatched & (scene.box_owner == k)).sum()))
            for k, name in enumerate(scene.annotators)]
