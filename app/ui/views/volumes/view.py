"""Volumes: the slice view of a ``volume_annotation`` scheme.

For the selected item: one axial slice with each annotator's outline of the chosen label
in their colour (:mod:`.canvas`), a slider through the slices, and the Dice per label:
this item's (mean over its annotator pairs) and the scheme's (the report's
``dice_by_label``), and on this slice each pair's Dice of the chosen label. Names are
A, B, C in presentation mode.

Choices where the spec is silent:

- The slider runs over every slice of the volume (0 … nk − 1); it opens on the middle
  slice of those anyone painted with the label, and the heading lists the painted range.
- The label list offers the scheme's labels; it opens on the first one anybody painted on
  the item. A label nobody painted on the item shows its sentence, not an empty picture.
- The volume's intensities are not drawn: the project names a NIfTI/DICOM file that
  Accord does not load for this view; the outlines are what the annotators agree on.
- An item whose answers are on different volume shapes (skipped by Potato and by Accord)
  is listed with that reason and drawn for none.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSlider,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.agreement.volumes.report import VolumeAgreement
from app.core.agreement.volumes.slices import outline, painted_slices, slice_dice, slice_mask
from app.core.model import VolumeMasks
from app.core.project import ProjectData
from app.ui.palette import annotator_color
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.image_canvas import AnnotatorLegend
from app.ui.views.kinds import schemes_drawn_by
from app.ui.views.volumes.canvas import Outline, SliceCanvas

COLUMNS = ("Label", "This item", "Scheme", "Both empty")


def volume_schemes(project: ProjectData) -> list[str]:
    return schemes_drawn_by(project, "volumes")


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


class VolumesView(View):
    name = "volumes"
    title = "Volumes"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self._answers: dict[str, VolumeMasks] = {}
        self._label = ""
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.scheme_combo = QComboBox()
        self.scheme_combo.activated.connect(self._on_scheme_chosen)
        self.item_combo = QComboBox()
        self.item_combo.activated.connect(self._on_item_chosen)
        self.label_combo = QComboBox()
        self.label_combo.activated.connect(self._on_label_chosen)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        for text, combo in (("Scheme:", self.scheme_combo), ("Item:", self.item_combo),
                            ("Label:", self.label_combo)):
            top.addWidget(QLabel(text))
            top.addWidget(combo)
        self.metrics = QLabel()
        self.metrics.setWordWrap(True)
        self.metrics.setTextFormat(Qt.TextFormat.RichText)
        self.canvas = SliceCanvas()
        self.legend = AnnotatorLegend()
        self.legend.toggled.connect(self._on_toggled)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.valueChanged.connect(lambda _k: self._draw_slice())
        self.slice_label = QLabel()
        slider_row = QHBoxLayout()
        slider_row.addWidget(self.slice_label)
        slider_row.addWidget(self.slider, 1)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.legend)
        left_layout.addWidget(self.canvas, 1)
        left_layout.addLayout(slider_row)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.table.cellClicked.connect(self._on_row_clicked)
        self.slice_text = QLabel()
        self.slice_text.setWordWrap(True)
        self.slice_text.setTextFormat(Qt.TextFormat.RichText)
        self.slice_text.setAlignment(Qt.AlignmentFlag.AlignTop)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(QLabel("<b>Dice per label</b> (mean over annotator pairs)"))
        right_layout.addWidget(self.table, 1)
        right_layout.addWidget(self.slice_text)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.metrics)
        layout.addWidget(splitter, 1)
        self.show_context(self._context)

    # ----------------------------------------------------------------- context
    def show_context(self, context: ViewContext) -> None:
        self._context = context
        self.scale_font(context)
        project = context.project
        schemes = volume_schemes(project) if project is not None else []
        if project is None or not schemes:
            self.show_empty(NO_PROJECT if project is None else
                            "This project has no volume_annotation scheme to show.")
            for combo in (self.scheme_combo, self.item_combo, self.label_combo):
                combo.clear()
            self._answers = {}
            self.canvas.show_slice((1, 1), [])
            return
        self.hide_empty()
        current = self.scheme_combo.currentText()
        scheme = context.scheme if context.scheme in schemes else (
            current if current in schemes else schemes[0])
        _fill(self.scheme_combo, schemes, scheme)
        result = project.report.schemes[scheme]
        agreement = result.details if isinstance(result.details, VolumeAgreement) else None
        answers = project.study.answers_for(scheme)
        items = sorted(i for i, by in answers.items() if len(by) >= 2) or sorted(answers)
        if not items:
            self.show_empty(f"Nobody answered '{scheme}'.")
            return
        item = context.item if context.item in items else (
            self.item_combo.currentText() if self.item_combo.currentText() in items
            else items[0])
        _fill(self.item_combo, items, item)
        self._answers = {a: v for a, v in answers[item].items() if isinstance(v, VolumeMasks)}
        labels = list(agreement.labels) if agreement is not None else sorted(
            {n for v in self._answers.values() for n in v.masks})
        painted = [lab for lab in labels if painted_slices(list(self._answers.values()), lab)]
        label = self._label if self._label in labels else (painted or labels or [""])[0]
        self._label = label
        _fill(self.label_combo, labels, label)
        self._show_metrics(result.metrics, result.undefined, context)
        self._fill_table(agreement, item, labels, label)
        skipped = agreement.items_skipped.get(item) if agreement is not None else None
        shapes = {v.shape for v in self._answers.values()}
        self._shape = next(iter(shapes)) if len(shapes) == 1 else None
        names = {a: context.annotator_label(a) for a in project.study.annotators}
        self.legend.set_entries({
            a: (names.get(a, a), annotator_color(project.study.annotators.index(a)), "")
            for a in project.study.annotators if a in self._answers})
        text = f"<b>{escape(scheme)}</b> · item <b>{escape(item)}</b>"
        if skipped or self._shape is None:
            text += f" · not scored: {escape(skipped or 'no common volume shape')}"
            self.heading.setText(text)
            self.canvas.show_slice((1, 1), [])
            self.slice_label.setText("")
            self.slice_text.setText("")
            return
        ni, nj, nk = self._shape
        slices = painted_slices(list(self._answers.values()), label)
        text += f" · {ni} × {nj} × {nk} voxels"
        text += (f" · {escape(label)} painted on slices {slices[0]}–{slices[-1]}" if slices
                 else f" · nobody painted {escape(label)} on this item")
        self.heading.setText(text)
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, nk - 1))
        if slices and not slices[0] <= self.slider.value() <= slices[-1]:
            self.slider.setValue(slices[len(slices) // 2])
        self.slider.blockSignals(False)
        self._draw_slice()

    def _show_metrics(self, metrics: dict[str, float | int | None],
                      undefined: dict[str, str], context: ViewContext) -> None:
        mean = metrics.get("mean_dice")
        text = f"Mean Dice over labels <b>{_number(mean if isinstance(mean, float) else None)}</b>"
        if mean is None and "mean_dice" in undefined:
            text += (" <span style='color:#8A4B00'>undefined: "
                     f"{escape(context.anonymize_text(undefined['mean_dice']))}</span>")
        self.metrics.setText(text + " · not chance-corrected; pairs where neither painted "
                             "a label are left out")

    def _fill_table(self, agreement: VolumeAgreement | None, item: str, labels: list[str],
                    label: str) -> None:
        mine = agreement.item_dice(item) if agreement is not None else {}
        self.table.setRowCount(len(labels))
        for r, name in enumerate(labels):
            scheme = agreement.dice_by_label.get(name) if agreement is not None else None
            empty = sum(1 for c in agreement.comparisons if c.item == item and c.label == name
                        and c.dice is None) if agreement is not None else 0
            cells = (name, _number(mine.get(name)), _number(scheme), str(empty))
            for c, value in enumerate(cells):
                cell = QTableWidgetItem(value)
                if c:
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, cell)
            if name == label:
                self.table.selectRow(r)
        self.table.resizeColumnsToContents()

    # ------------------------------------------------------------------- slice
    def _draw_slice(self) -> None:
        shape = getattr(self, "_shape", None)
        project = self._context.project
        if shape is None or project is None:
            return
        ni, nj, nk = shape
        k = self.slider.value()
        self.slice_label.setText(f"Slice {k} of 0–{nk - 1}")
        annotators = project.study.annotators
        masks = {a: slice_mask(v, self._label, k) for a, v in self._answers.items()}
        outlines = [Outline(a, annotator_color(annotators.index(a)), outline(m))
                    for a in annotators if (m := masks.get(a)) is not None]
        self.canvas.show_slice((ni, nj), outlines)
        names = {a: self._context.annotator_label(a) for a in annotators}
        order = [a for a in annotators if a in masks]
        lines = []
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                value = slice_dice(masks[a], masks[b])
                shown = "both empty" if value is None else f"{value:.3f}"
                lines.append(f"{escape(names[a])} – {escape(names[b])}: {shown}")
        voxels = ", ".join(f"{escape(names[a])} {int(masks[a].sum())}" for a in order)
        self.slice_text.setText(f"<b>{escape(self._label)} on slice {k}</b>, Dice per "
                                "pair:<br>" + "<br>".join(lines)
                                + f"<br>Voxels painted: {voxels}")

    # -------------------------------------------------------------- user input
    def _on_toggled(self, name: str, visible: bool) -> None:
        (self.canvas.hidden.discard if visible else self.canvas.hidden.add)(name)
        self.canvas.update()

    def _on_row_clicked(self, row: int, _column: int) -> None:
        cell = self.table.item(row, 0)
        if cell is not None:
            self._label = cell.text()
            self.show_context(self._context)

    def _on_label_chosen(self, index: int) -> None:
        self._label = self.label_combo.itemText(index)
        self.show_context(self._context)

    def _on_item_chosen(self, index: int) -> None:
        item = self.item_combo.itemText(index)
        if item:
            self.item_picked.emit(item)
            self.show_context(self._context.with_(item=item))

    def _on_scheme_chosen(self, index: int) -> None:
        self.user_chose_scheme(self.scheme_combo.itemText(index))


def _fill(combo: QComboBox, entries: list[str], current: str | None) -> None:
    combo.blockSignals(True)
    combo.clear()
    combo.addItems(entries)
    if current is not None:
        combo.setCurrentText(current)
    combo.blockSignals(False)
