"""2D regions: the item's picture with every annotator's shapes, labelled, and σ and KS.

Left, the picture of the selected item of a ``regions`` scheme with every annotator's
boxes, polygons and ellipses in their palette colour (one legend checkbox each shows or
hides them), one label per object naming its class and who drew it (:mod:`.matches`,
laid out so none overlaps: :mod:`.canvas`), and an **unmatched** shape (nobody else
found it) drawn with a dashed outline, its label ending in red "unmatched", counted
under the legend (the 3D and tiers views mark theirs too). Right, the two localization
distance distributions σ and KS compare (``agreement.md``, Chance-corrected agreement
for regions): matched pairs on the same item (within) against object pairs from
different items (between), the selected item's own within-item distances marked under
the histogram; beneath it the scheme's numbers in three groups, chance-corrected,
localization and matching (:mod:`.card`).

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
- Each shape's tooltip also has its label, annotator and whom it was matched with.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen, QPolygonF
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

from app.core.agreement.sets.agreement import SetAgreement
from app.core.objects import BoxRegion, EllipseRegion, ObjectSet, PolygonRegion, SceneObject
from app.core.project import ProjectData
from app.ui.palette import annotator_color
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.image_canvas import AnnotatorLegend, item_image
from app.ui.views.kinds import schemes_drawn_by
from app.ui.views.regions.canvas import LabelSpec, RegionsCanvas
from app.ui.views.regions.card import CardScroll, NumbersCard
from app.ui.views.regions.matches import ItemMatches, ShapeKey, group_text, item_matches
from app.ui.views.regions.plot import DistancePlot

REGION_TYPES = (BoxRegion, PolygonRegion, EllipseRegion)
PLOT_MIN_HEIGHT = 150
UNMATCHED_DASHES = [2.0, 1.5]
"""Dash and gap in pen widths: Qt's default (4, 2) leaves a 15 px pedestrian box with
one dash a side, which reads as a solid line."""


def shape_item(obj: SceneObject, width: float, height: float) -> QAbstractGraphicsShapeItem | None:
    """A graphics item for one region, in pixel coordinates of a ``width``×``height`` image."""
    if isinstance(obj, BoxRegion):
        return QGraphicsRectItem(
            QRectF(obj.x * width, obj.y * height, obj.width * width, obj.height * height)
        )
    if isinstance(obj, PolygonRegion):
        return QGraphicsPolygonItem(
            QPolygonF([QPointF(x * width, y * height) for x, y in obj.points])
        )
    if isinstance(obj, EllipseRegion):
        rx, ry = obj.rx * width, obj.ry * height
        item = QGraphicsEllipseItem(QRectF(-rx, -ry, 2 * rx, 2 * ry))
        item.setPos(obj.cx * width, obj.cy * height)
        item.setRotation(obj.angle_deg)
        return item
    return None


def outline_rect(shape: QAbstractGraphicsShapeItem) -> QRectF:
    """The shape's outline's bounding box in scene (image pixel) units. Not
    ``sceneBoundingRect``: that adds half the pen width in scene units, and on a 48×32
    picture shown 11 times larger a 4.5 px cosmetic pen made the box 46 px too big."""
    path = QPainterPath()
    if isinstance(shape, QGraphicsRectItem):
        path.addRect(shape.rect())
    elif isinstance(shape, QGraphicsEllipseItem):
        path.addEllipse(shape.rect())
    elif isinstance(shape, QGraphicsPolygonItem):
        path.addPolygon(shape.polygon())
    return shape.mapToScene(path).boundingRect()


def _partners(matches: ItemMatches) -> dict[ShapeKey, list[str]]:
    """The other annotators in each shape's group (whom it was matched with, directly or
    through a third annotator's shape)."""
    out: dict[ShapeKey, list[str]] = {}
    for group in matches.groups:
        for key in group:
            out[key] = list(dict.fromkeys(n for n, _ in group if n != key[0]))
    return out


def key_text(matches: ItemMatches, unmatched: Mapping[str, int], shown: Mapping[str, str]) -> str:
    """The legend's sentence on outlines: what dashed means, and how many there are."""
    if not unmatched:
        return ""
    if not matches.scored:
        return f"Not compared ({matches.reason}): no shape is called unmatched."
    total = sum(unmatched.values())
    n = sum(len(g) for g in matches.groups)
    each = ", ".join(f"{shown.get(a, a)} {c}" for a, c in unmatched.items())
    return (
        f"<b>Dashed outline: unmatched</b> (nobody else found that object) · "
        f"{total} of {n} shapes unmatched ({each})"
    )


def regions_schemes(project: ProjectData) -> list[str]:
    return schemes_drawn_by(project, "regions")


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

        self.canvas = RegionsCanvas()
        self.legend = AnnotatorLegend()
        self.legend.toggled.connect(self.canvas.set_annotator_visible)
        self.key = QLabel()
        self.key.setWordWrap(True)
        self.unmatched_counts: dict[str, int] = {}
        """Unmatched shapes per raw annotator name on the item shown."""
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.canvas, 1)
        left_layout.addWidget(self.legend)
        left_layout.addWidget(self.key)

        self.plot = DistancePlot()
        self.card = NumbersCard()
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.plot, 1)
        # In the docked window the view may be 350 px tall: the card scrolls rather than
        # squeezing the plot to nothing (or its wrapped notes to a cut line).
        self.plot.setMinimumHeight(PLOT_MIN_HEIGHT)
        self.card_scroll = CardScroll(self.card)
        right_layout.addWidget(self.card_scroll)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(left)
        splitter.addWidget(right)
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
            self.heading.setText("")
            self.show_empty(NO_PROJECT if project is None else
                            "This project has no 2D regions scheme (boxes, polygons, ellipses).")
            self.items_combo.clear()
            self.canvas.show_image(None, (640, 480))
            self.legend.set_entries({})
            self.key.setText("")
            self.unmatched_counts = {}
            self.plot.show_result(None, None, context.item)
            self.card.show_result(None)
            return
        self.hide_empty()
        scheme = context.scheme if context.scheme in schemes else schemes[0]
        result = project.report.schemes[scheme]
        answers = project.study.answers_for(scheme)
        answered = sorted(answers)
        item = context.item if context.item in answers else (answered[0] if answered else None)
        self._fill_items(answered, item)
        note = ""
        if item is not None and item != context.item:
            note = " (the first answered item: pick one in Items or here)"
        self.heading.setText(f"<b>{scheme}</b> · item <b>{item or '—'}</b>{note}")
        self._draw(project, scheme, item)
        self.plot.show_result(result, item, item)
        self.card.show_result(result, self._context.anonymize_text)
        self.card_scroll.updateGeometry()

    def _fill_items(self, items: list[str], current: str | None) -> None:
        self.items_combo.blockSignals(True)
        self.items_combo.clear()
        self.items_combo.addItems(items)
        if current is not None:
            self.items_combo.setCurrentText(current)
        self.items_combo.blockSignals(False)

    def _draw(self, project: ProjectData, scheme: str, item: str | None) -> None:
        study = project.study
        image, (width, height) = item_image(study.items.get(item) if item else None,
                                            study.schemes.get(scheme))
        self.canvas.show_image(
            image, (width, height), "" if image is not None else "no picture for this item"
        )
        by_annotator = project.study.answers_for(scheme).get(item or "", {})
        drawn: dict[str, tuple[SceneObject, ...]] = {}
        for name in study.annotators:
            answer = by_annotator.get(name)
            if answer is not None:
                drawn[name] = answer.of_type(*REGION_TYPES) if isinstance(answer, ObjectSet) else ()
        details = project.report.schemes[scheme].details
        matches = item_matches(
            details if isinstance(details, SetAgreement) else None,
            item or "",
            {n: len(r) for n, r in drawn.items()},
            study.annotators,
        )
        partners = _partners(matches)
        entries: dict[str, tuple[str, QColor, str]] = {}
        rects: dict[ShapeKey, QRectF] = {}
        labels: dict[ShapeKey, str] = {}
        shown_names = {name: self._context.annotator_label(name) for name in drawn}
        self.unmatched_counts = {}
        for index, name in enumerate(study.annotators):
            if name not in drawn:
                continue
            regions = drawn[name]
            color = annotator_color(index)
            shown = shown_names[name]
            # Earlier annotators get wider pens and are drawn first, so two people who
            # outlined the same object both stay visible (a narrow line on a wide one).
            pen = QPen(color, max(1.5, 4.5 - 1.25 * index))
            pen.setCosmetic(True)
            dashed = QPen(pen)
            dashed.setDashPattern(UNMATCHED_DASHES)
            fill = QColor(color)
            fill.setAlpha(40)
            for k, obj in enumerate(regions):
                shape = shape_item(obj, width, height)
                if shape is None:
                    continue
                key = (name, k)
                alone = key in matches.unmatched
                shape.setPen(dashed if alone else pen)
                shape.setBrush(QBrush(fill))
                shape.setZValue(1 + index)
                label = str(getattr(obj, "label", ""))
                kind = type(obj).__name__.removesuffix("Region").lower()
                status = (
                    "unmatched: nobody else found it"
                    if alone
                    else f"not compared ({matches.reason})"
                    if not matches.scored
                    else "matched with " + ", ".join(shown_names[p] for p in partners[key])
                )
                shape.setToolTip(f"{shown}: {label or '(no label)'} ({kind}) · {status}")
                self.canvas.add(shape, name)
                rects[key], labels[key] = outline_rect(shape), label
            count = len(regions)
            self.unmatched_counts[name] = sum(
                1 for k in range(count) if (name, k) in matches.unmatched
            )
            entries[name] = (shown, color, f"{count} shape{'s' if count != 1 else ''}")
        self.legend.set_entries(entries)
        self.key.setText(key_text(matches, self.unmatched_counts, shown_names))
        colors = {
            shown_names[n]: annotator_color(i) for i, n in enumerate(study.annotators) if n in drawn
        }
        specs = [
            LabelSpec(
                group,
                tuple(rects[k] for k in group),
                group_text(
                    group, labels, shown_names, len(group) == 1 and group[0] in matches.unmatched
                ),
                colors,
                shown_names,
            )
            for group in matches.groups
            if all(k in rects for k in group)
        ]
        self.canvas.set_labels(specs)

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
