"""2D regions: the item's picture with every annotator's shapes, and σ and KS as a plot.

Left, the picture of the selected item of a ``regions`` scheme with every annotator's
boxes, polygons and ellipses in their palette colour (one legend checkbox each shows or
hides them). Right, the two localization distance distributions the chance-corrected
numbers compare (``agreement.md``, Chance-corrected agreement for regions): matched
pairs on the same item (within) against object pairs from different items (between),
with σ and KS from the scheme's metrics and the selected item's own within-item
distances marked under the histogram.

Nothing is computed here beyond placing shapes: the samples and their histograms come
from the report (:class:`~app.core.agreement.regions.distances.RegionAgreement`).

Choices where the spec is silent:

- With no item selected (or one without answers in this scheme) the view shows the
  first answered item of the scheme and says so; an item combo emits ``item_picked``.
- Shapes are drawn as the annotators drew them (the study's answers), not as clamped
  for scoring, so a box dragged past the frame shows past it.
- An ellipse's ``rx`` is a share of the width and ``ry`` of the height (the model's
  convention); ``angle_deg`` turns it clockwise on screen (image y points down).
- Pens narrow with the annotator's index (earlier annotators wider and underneath),
  so identical outlines by careful annotators still show both colours.
- Each shape's label and annotator are in its tooltip (labels drawn on the picture
  overlap as soon as two people outline the same car).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen, QPolygonF
from PySide6.QtWidgets import (
    QAbstractGraphicsShapeItem,
    QComboBox,
    QGraphicsEllipseItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.objects import BoxRegion, EllipseRegion, ObjectSet, PolygonRegion, SceneObject
from app.core.project import ProjectData
from app.ui.palette import annotator_color
from app.ui.views.base import View, ViewContext
from app.ui.views.image_canvas import AnnotatorLegend, ImageCanvas, item_image
from app.ui.views.regions.plot import DistancePlot

REGION_TYPES = (BoxRegion, PolygonRegion, EllipseRegion)


def shape_item(obj: SceneObject, width: float, height: float
               ) -> QAbstractGraphicsShapeItem | None:
    """A graphics item for one region, in pixel coordinates of a ``width``×``height`` image."""
    if isinstance(obj, BoxRegion):
        return QGraphicsRectItem(QRectF(obj.x * width, obj.y * height, obj.width * width,
                                        obj.height * height))
    if isinstance(obj, PolygonRegion):
        return QGraphicsPolygonItem(QPolygonF([QPointF(x * width, y * height)
                                               for x, y in obj.points]))
    if isinstance(obj, EllipseRegion):
        rx, ry = obj.rx * width, obj.ry * height
        item = QGraphicsEllipseItem(QRectF(-rx, -ry, 2 * rx, 2 * ry))
        item.setPos(obj.cx * width, obj.cy * height)
        item.setRotation(obj.angle_deg)
        return item
    return None


def regions_schemes(project: ProjectData) -> list[str]:
    return [name for name, r in project.report.schemes.items() if r.kind == "regions"]


class RegionsView(View):
    name = "regions"
    title = "2D regions"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.items_combo = QComboBox()
        self.items_combo.setMinimumWidth(160)
        self.items_combo.activated.connect(self._on_item_chosen)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(QLabel("Item:"))
        top.addWidget(self.items_combo)

        self.canvas = ImageCanvas()
        self.legend = AnnotatorLegend()
        self.legend.toggled.connect(self.canvas.set_annotator_visible)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.canvas, 1)
        left_layout.addWidget(self.legend)

        self.plot = DistancePlot()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.plot)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self.show_context(self._context)

    # ------------------------------------------------------------------ rendering
    def show_context(self, context: ViewContext) -> None:
        self._context = context
        self.scale_font(context)
        self.plot.set_font(self.font())
        project = context.project
        schemes = regions_schemes(project) if project is not None else []
        if project is None or not schemes:
            self.heading.setText("No project is open." if project is None else
                                 "This project has no 2D regions scheme (boxes, polygons, "
                                 "ellipses).")
            self.items_combo.clear()
            self.canvas.show_image(None, (640, 480))
            self.legend.set_entries({})
            self.plot.show_result(None, None, context.item)
            return
        scheme = context.scheme if context.scheme in schemes else schemes[0]
        result = project.report.schemes[scheme]
        answers = project.study.answers_for(scheme)
        answered = sorted(answers)
        item = context.item if context.item in answers else (answered[0] if answered
                                                             else None)
        self._fill_items(answered, item)
        note = ""
        if item is not None and item != context.item:
            note = " (the first answered item: pick one in Items or here)"
        self.heading.setText(f"<b>{scheme}</b> · item <b>{item or '—'}</b>{note}")
        self._draw(project, scheme, item)
        self.plot.show_result(result, item, item)

    def _fill_items(self, items: list[str], current: str | None) -> None:
        self.items_combo.blockSignals(True)
        self.items_combo.clear()
        self.items_combo.addItems(items)
        if current is not None:
            self.items_combo.setCurrentText(current)
        self.items_combo.blockSignals(False)

    def _draw(self, project: ProjectData, scheme: str, item: str | None) -> None:
        study = project.study
        image, (width, height) = item_image(study.items.get(item) if item else None)
        self.canvas.show_image(image, (width, height),
                               "" if image is not None else "no picture for this item")
        by_annotator = project.study.answers_for(scheme).get(item or "", {})
        entries: dict[str, tuple[str, QColor, str]] = {}
        for index, name in enumerate(study.annotators):
            answer = by_annotator.get(name)
            if answer is None:
                continue
            regions = answer.of_type(*REGION_TYPES) if isinstance(answer, ObjectSet) else ()
            color = annotator_color(index)
            shown = self._context.annotator_label(name)
            # Earlier annotators get wider pens and are drawn first, so two people who
            # outlined the same object both stay visible (a narrow line on a wide one).
            pen = QPen(color, max(1.5, 4.5 - 1.25 * index))
            pen.setCosmetic(True)
            fill = QColor(color)
            fill.setAlpha(40)
            for obj in regions:
                shape = shape_item(obj, width, height)
                if shape is None:
                    continue
                shape.setPen(pen)
                shape.setBrush(QBrush(fill))
                shape.setZValue(1 + index)
                shape.setToolTip(f"{shown}: {getattr(obj, 'label', '')} "
                                 f"({type(obj).__name__.removesuffix('Region').lower()})")
                self.canvas.add(shape, name)
            count = len(regions)
            entries[name] = (shown, color, f"{count} shape{'s' if count != 1 else ''}")
        self.legend.set_entries(entries)

    # ------------------------------------------------------------------ queries
    def shape_counts(self) -> dict[str, int]:
        """Shapes on the canvas per raw annotator name (what the picture shows)."""
        counts: dict[str, int] = {}
        for item in self.canvas.scene().items():
            name = item.data(0)
            if isinstance(name, str):
                counts[name] = counts.get(name, 0) + 1
        return counts

    def _on_item_chosen(self, index: int) -> None:
        item = self.items_combo.itemText(index)
        if item:
            self.item_picked.emit(item)
            self.show_context(self._context.with_(item=item))

