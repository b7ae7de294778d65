"""Masks: the picture with the STAPLE consensus, each annotator's outline, and whose
boundary to trust (per-annotator sensitivity and specificity).

For the selected item of a ``masks`` scheme (``NAME`` for a masks-only scheme,
``NAME#masks`` beside a regions one): the picture, the STAPLE consensus of each label
as a translucent fill in the label's colour (:class:`~app.core.agreement.masks.report.
MaskRun` ``consensus``), and each annotator's mask as an outline in their colour, each
toggled from the legend. Beside it a table of per-annotator sensitivity (low:
under-segments) and specificity (low: over-segments): the scheme's values exactly as
the report has them (``extra["annotators"]``, the JSON's ``annotators``), and this
item's values from its STAPLE runs.

Choices where the spec is silent:

- With no item selected (or one this scheme did not score) the first scored item is
  shown, and the heading says so.
- A label filter shows one label or all; with all labels the item's columns are the
  mean over the item's runs (one run per label), the same mean the report takes over
  runs for the scheme's columns.
- Outlines are one image pixel wide (the picture is scaled up to fit, without
  smoothing, so they stay crisp); outlines and fills are built in numpy by
  :mod:`app.core.geometry.mask_drawing`; decoding an RLE mask and outlining it costs
  well under a millisecond at the demo's 320×240.
- Values below 0.9 are shown in red: the boundary the reader should doubt.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QImage, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGraphicsPixmapItem,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.agreement.masks.report import MaskAgreement, MaskRun
from app.core.geometry.mask_drawing import outline, rgba_overlay
from app.core.objects import Mask, ObjectSet
from app.core.project import ProjectData
from app.ui.palette import annotator_color, label_color
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.image_canvas import AnnotatorLegend, ImageCanvas, item_image
from app.ui.views.kinds import schemes_drawn_by
from app.ui.views.masks.bars import MaskBars

CONSENSUS = "\x00consensus"
"""The canvas key of the consensus layer (no annotator can be called this)."""
ALL_LABELS = "all labels"
DOUBT = 0.9
COLUMNS = ("Annotator", "Sensitivity\n(scheme)", "Specificity\n(scheme)", "Runs",
           "Sensitivity\n(this item)", "Specificity\n(this item)")


def masks_schemes(project: ProjectData) -> list[str]:
    return schemes_drawn_by(project, "masks")


def to_qimage(rgba: np.ndarray) -> QImage:
    """An owned ``QImage`` copy of an ``h × w × 4`` uint8 array."""
    data = np.ascontiguousarray(rgba)
    height, width = data.shape[:2]
    image = QImage(data.data, width, height, 4 * width, QImage.Format.Format_RGBA8888)
    return image.copy()


def _rgb(color: QColor) -> tuple[int, int, int]:
    return (color.red(), color.green(), color.blue())


def _fmt(value: float | None) -> str:
    return "—" if value is None or not np.isfinite(value) else f"{value:.3f}"


class MasksView(View):
    name = "masks"
    title = "Masks (STAPLE)"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.labels_combo = QComboBox()
        self.labels_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.labels_combo.activated.connect(lambda _i: self.show_context(self._context))
        self.items_combo = QComboBox()
        self.items_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.items_combo.setMinimumWidth(160)
        self.items_combo.activated.connect(self._on_item_chosen)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(QLabel("Label:"))
        top.addWidget(self.labels_combo)
        top.addWidget(QLabel("Item:"))
        top.addWidget(self.items_combo)

        self.canvas = ImageCanvas()
        self.consensus_box = QCheckBox("STAPLE consensus (fill)")
        self.consensus_box.setChecked(True)
        self.consensus_box.toggled.connect(
            lambda on: self.canvas.set_annotator_visible(CONSENSUS, on))
        self.legend = AnnotatorLegend()
        self.legend.toggled.connect(self.canvas.set_annotator_visible)
        controls = QHBoxLayout()
        controls.addWidget(self.consensus_box)
        self.consensus_key = QLabel()
        controls.addWidget(self.consensus_key)
        controls.addWidget(self.legend, 1)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.canvas, 1)
        left_layout.addLayout(controls)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        # Every column as wide as its header and numbers (a scroll bar rather than a cut
        # "Sensitivity" when the dock is narrow); the last one takes what is left.
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.bars = MaskBars()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(QLabel("<b>Whose boundary to trust</b> (STAPLE estimates)"))
        right_layout.addWidget(self.table)
        right_layout.addWidget(self.bars, 1)
        right_layout.addWidget(self.summary)

        splitter = QSplitter(Qt.Orientation.Horizontal)
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
        self.bars.set_font(self.font())
        project = context.project
        schemes = masks_schemes(project) if project is not None else []
        if project is None or not schemes:
            self.heading.setText("")
            self.show_empty(NO_PROJECT if project is None else
                            "This project has no pixel-mask scheme to show.")
            for combo in (self.items_combo, self.labels_combo):
                combo.clear()
            self.canvas.show_image(None, (640, 480))
            self.legend.set_entries({})
            self.table.setRowCount(0)
            self.summary.setText("")
            return
        self.hide_empty()
        scheme = context.scheme if context.scheme in schemes else schemes[0]
        result = project.report.schemes[scheme]
        details = result.details
        agreement = details if isinstance(details, MaskAgreement) else MaskAgreement()
        scored = list(agreement.items_scored)
        item = context.item if context.item in scored else (scored[0] if scored else None)
        self._fill_combo(self.items_combo, scored, item)
        labels = sorted({run.label for run in agreement.runs})
        chosen = self.labels_combo.currentText()
        self._fill_combo(self.labels_combo, [ALL_LABELS, *labels],
                         chosen if chosen in labels else ALL_LABELS)
        label = self.labels_combo.currentText()
        shown = labels if label == ALL_LABELS else [label]
        note = ""
        if item is not None and item != context.item:
            note = " (the first scored item: pick one in Items or here)"
        self.heading.setText(f"<b>{scheme}</b> · item <b>{item or '—'}</b>{note}")
        runs = [r for r in agreement.runs if r.item == item and r.label in shown]
        self._draw(project, scheme, item, runs)
        self._fill_table(project, result.extra.get("annotators", {}), runs)
        self.bars.show_values(project.study.annotators, result.extra.get("annotators", {}),
                              self._context.annotator_label)
        self._fill_summary(result.metrics, result.undefined, result.notes)

    @staticmethod
    def _fill_combo(combo: QComboBox, entries: list[str], current: str | None) -> None:
        combo.blockSignals(True)
        combo.clear()
        combo.addItems(entries)
        if current is not None:
            combo.setCurrentText(current)
        combo.blockSignals(False)

    def _draw(self, project: ProjectData, scheme: str, item: str | None,
              runs: list[MaskRun]) -> None:
        study = project.study
        image, size = item_image(study.items.get(item) if item else None,
                                 study.schemes.get(scheme))
        self.canvas.show_image(image, size, "" if image is not None else
                               "no picture for this item")
        if item is None:
            self.legend.set_entries({})
            return
        base = scheme.split("#", 1)[0]
        scheme_labels = list(study.schemes[base].labels) if base in study.schemes else []
        layers = []
        key = []
        for run in runs:
            index = scheme_labels.index(run.label) if run.label in scheme_labels else 0
            layers.append((run.consensus, _rgb(label_color(index)), 120))
            key.append(f"<span style='color:{label_color(index).name()}'>■</span> "
                       f"{run.label}")
        self.consensus_key.setText("&nbsp;&nbsp;".join(key))
        shape = runs[0].consensus.shape if runs else (size[1], size[0])
        if layers:
            self._add_layer(rgba_overlay(layers, shape), CONSENSUS, 0,
                            self.consensus_box.isChecked())
        shown = {r.label for r in runs}
        entries: dict[str, tuple[str, QColor, str]] = {}
        by_annotator = study.answers_for(base).get(item, {})
        for index, name in enumerate(study.annotators):
            answer = by_annotator.get(name)
            if not isinstance(answer, ObjectSet):
                continue
            masks = [m for m in answer.of_type(Mask) if isinstance(m, Mask)
                     and m.label in shown and (m.height, m.width) == shape]
            color = annotator_color(index)
            if masks:
                edge = np.zeros(shape, dtype=bool)
                for m in masks:
                    edge |= outline(m.to_array())
                self._add_layer(rgba_overlay([(edge, _rgb(color), 255)], shape), name,
                                1 + index, True)
            entries[name] = (self._context.annotator_label(name), color,
                             f"{len(masks)} mask{'s' if len(masks) != 1 else ''}")
        self.legend.set_entries(entries, "Outlines:")

    def _add_layer(self, rgba: np.ndarray, key: str, z: int, visible: bool) -> None:
        layer = QGraphicsPixmapItem(QPixmap.fromImage(to_qimage(rgba)))
        layer.setZValue(z)
        layer.setVisible(visible)
        self.canvas.add(layer, key)

    def _fill_table(self, project: ProjectData, per_annotator: object,
                    runs: list[MaskRun]) -> None:
        table = per_annotator if isinstance(per_annotator, dict) else {}
        names = [n for n in project.study.annotators if n in table]
        self.table.setRowCount(len(names))
        for row, name in enumerate(names):
            values = table[name]
            here_sens = [float(r.sensitivity[r.annotators.index(name)]) for r in runs
                         if name in r.annotators]
            here_spec = [float(r.specificity[r.annotators.index(name)]) for r in runs
                         if name in r.annotators]
            cells: list[tuple[str, float | None]] = [
                (self._context.annotator_label(name), None),
                (_fmt(values.get("sensitivity")), values.get("sensitivity")),
                (_fmt(values.get("specificity")), values.get("specificity")),
                (str(values.get("n_runs", "")), None),
                (_fmt(_nanmean(here_sens)), _nanmean(here_sens)),
                (_fmt(_nanmean(here_spec)), _nanmean(here_spec)),
            ]
            for column, (text, value) in enumerate(cells):
                cell = QTableWidgetItem(text)
                if column == 0:
                    cell.setIcon(_swatch_icon(annotator_color(
                        project.study.annotators.index(name))))
                else:
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if value is not None:
                    cell.setData(Qt.ItemDataRole.UserRole, float(value))
                    if np.isfinite(value) and value < DOUBT:
                        cell.setForeground(QBrush(QColor("#C0392B")))
                self.table.setItem(row, column, cell)
        self.table.resizeRowsToContents()
        height = (self.table.horizontalHeader().sizeHint().height()
                  + self.table.verticalHeader().length() + 2 * self.table.frameWidth() + 2)
        self.table.setFixedHeight(max(height, 60))

    def _fill_summary(self, metrics: dict[str, float | int | None],
                      undefined: dict[str, str], notes: list[str]) -> None:
        parts = []
        for name, label in (("mean_sensitivity", "mean sensitivity"),
                            ("mean_specificity", "mean specificity")):
            value = metrics.get(name)
            parts.append(f"{label} {_fmt(None if value is None else float(value))}"
                         if value is not None else
                         f"{label} undefined ({undefined.get(name, '')})")
        text = (" · ".join(parts) + "<br><span style='color:#555'>Low sensitivity: the "
                "annotator under-segments (misses pixels). Low specificity: over-segments "
                "(paints past the edge).</span>")
        if notes:
            text += "<br><span style='color:#555'>" + "<br>".join(notes) + "</span>"
        self.summary.setText(text)

    def _on_item_chosen(self, index: int) -> None:
        item = self.items_combo.itemText(index)
        if item:
            self.item_picked.emit(item)
            self.show_context(self._context.with_(item=item))


def _nanmean(values: list[float]) -> float | None:
    finite = [v for v in values if np.isfinite(v)]
    return float(np.mean(finite)) if finite else None


def _swatch_icon(color: QColor) -> QPixmap:
    pixmap = QPixmap(12, 12)
    pixmap.fill(color)
    return pixmap
