"""The two panels of File › Import… (:mod:`app.ui.import_dialog`): the sources with
their annotator names, and the preview of what the importer read.

:class:`SourcesTable` lists the files and folders, each with the annotator name
``accord import`` would give it without ``--annotator``; :meth:`SourcesTable.annotators`
is what is passed instead of ``--annotator`` (nothing until the user edits a name, then
the whole column). :func:`read_preview` is the job the dialog runs on the pool: the read
(:func:`~app.core.formats.importers.registry.read_study`) and :func:`preview_of`, a sum-up
of the study (items, annotators, schemes with their Potato ``annotation_type``, answers
and objects per annotator and scheme, the importer's notes) as plain data, so a large
study never stalls the window. :class:`PreviewPanel` shows it.

Choices where the design is silent:

- Objects are counted only in structured answers (shapes, segments, tracks, tier
  annotations, cuboids, judged trace steps, events): a list counts its entries, a mapping
  its nested lists and mappings (a video's ``tracks`` its tracks), a mapping of plain
  values one object. A radio, likert or multiselect answer is one answer and no objects.
- Rows are annotators and columns schemes: a Label Studio export can name dozens of
  annotators, and a long table scrolls better than a wide one.
- Every name from the files is shown as plain text (never markup).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import InputError
from app.core.formats.importers.model import CHOICE_TYPES, SCALE_TYPES, SET_TYPES, ImportedStudy
from app.core.formats.importers.registry import annotator_names, read_study
from app.core.formats.importers.writer import write_project
from app.core.progress import Job, Progress

NOUNS: dict[str, str] = {
    "image_annotation": "shape", "audio_annotation": "segment",
    "video_annotation": "segment", "tiered_annotation": "annotation",
    "spatial_annotation": "object", "trajectory_eval": "step", "process_reward": "step",
    "tool_call_review": "step", "gui_trajectory": "step", "temporal_grounding": "event",
    "span": "span", "tracks": "track", "volume_annotation": "label",
}
"""What one object of a structured scheme is called (else ``object``)."""

ROW_HEIGHT = 26
ERROR_COLOR = "#b3261e"
MUTED_COLOR = "#5f6368"


def counted(n: int, word: str) -> str:
    """``"1 item"``, ``"1,204 items"``."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def object_count(value: Any) -> int:
    """The objects in one structured answer (see the module)."""
    if isinstance(value, dict) and isinstance(value.get("tracks"), list | dict):
        return len(value["tracks"])
    if isinstance(value, dict) and isinstance(value.get("masks"), dict) and "shape" in value:
        return len(value["masks"])  # a volume: its labels painted, not its run lengths
    if isinstance(value, list):
        return len(value)
    if isinstance(value, dict):
        nested = [v for v in value.values() if isinstance(v, list | dict)]
        return sum(object_count(v) for v in nested) if nested else 1
    return 0 if value is None or value == "" else 1


def has_objects(annotation_type: str) -> bool:
    return annotation_type not in CHOICE_TYPES | SCALE_TYPES | SET_TYPES


@dataclass(frozen=True, slots=True)
class Tally:
    """One annotator's answers on one scheme."""

    answers: int
    objects: int | None
    """None for a scheme without objects (a choice, a scale, a set of labels)."""
    noun: str = "object"

    def text(self) -> str:
        if self.answers == 0:
            return "—"
        if self.objects is None:
            return counted(self.answers, "answer")
        return f"{counted(self.answers, 'item')} · {counted(self.objects, self.noun)}"


@dataclass(frozen=True, slots=True)
class Preview:
    format: str
    items: int
    annotators: tuple[str, ...]
    schemes: tuple[tuple[str, str], ...]
    """(name, annotation_type), in the study's order."""
    tallies: dict[str, dict[str, Tally]]
    """annotator → scheme → what they answered."""
    items_answered: dict[str, int]
    notes: tuple[str, ...]

    def summary(self) -> str:
        """``"40 items · 2 annotators · 1 scheme"``."""
        return " · ".join((counted(self.items, "item"), counted(len(self.annotators),
                                                                "annotator"),
                           counted(len(self.schemes), "scheme")))


def preview_of(study: ImportedStudy) -> Preview:
    """What :class:`PreviewPanel` shows of ``study`` (pure; runs on the worker)."""
    schemes = tuple((s.name, s.annotation_type) for s in study.schemes)
    tallies: dict[str, dict[str, Tally]] = {}
    for annotator, answers in study.answers.items():
        mine: dict[str, Tally] = {}
        for name, kind in schemes:
            values = [by_scheme[name] for by_scheme in answers.values() if name in by_scheme]
            objects = sum(object_count(v) for v in values) if has_objects(kind) else None
            kind = "tracks" if any(isinstance(v, dict) and "tracks" in v for v in values) else kind
            mine[name] = Tally(len(values), objects, NOUNS.get(kind, "object"))
        tallies[annotator] = mine
    answered = {a: sum(1 for v in answers.values() if v) for a, answers in study.answers.items()}
    return Preview(study.format, len(study.items), tuple(study.annotators()), schemes,
                   tallies, answered, tuple(study.notes))


def read_preview(format_name: str, sources: Sequence[Path], annotators: Sequence[str]
                 ) -> Job[tuple[ImportedStudy, Preview]]:
    """The study in ``sources`` and its preview (runs on the pool; neither step yields
    progress yet, so a cancel lands before or after the read)."""
    yield Progress(0, 2, f"reading {counted(len(sources), 'source')}")
    study = read_study(format_name, list(sources), list(annotators))
    yield Progress(1, 2, "counting what was read")
    return study, preview_of(study)


def write_job(study: ImportedStudy, project: Path) -> Job[Path]:
    """``study`` written as the project ``project`` (runs on the pool)."""
    yield Progress(0, 1, f"writing {project.name}")
    return write_project(study, project)


def free_folder(parent: Path, name: str) -> Path:
    """``parent/name``, or ``name-2``, ``name-3``… if it exists and is not empty."""
    candidate, n = parent / name, 2
    while candidate.exists() and (not candidate.is_dir() or any(candidate.iterdir())):
        candidate, n = parent / f"{name}-{n}", n + 1
    return candidate


def default_name(source: Path) -> str:
    """The annotator name ``accord import`` gives ``source`` without ``--annotator``."""
    try:
        return annotator_names([source], [])[0]
    except InputError:
        return source.name  # not a usable name: the preview will say why


class SourcesTable(QTableWidget):
    """The sources, one row each: the file or folder, and its annotator (editable)."""

    changed = Signal()
    """A source was added or removed, or a name edited."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 2, parent)
        self.setObjectName("import_sources")
        self.setHorizontalHeaderLabels(["Source", "Annotator"])
        self.verticalHeader().setVisible(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(1, 220)
        self.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        self._defaults: list[str] = []
        self.itemChanged.connect(self._edited)

    def sources(self) -> list[Path]:
        return [Path(self._cell(row, 0).data(Qt.ItemDataRole.UserRole))
                for row in range(self.rowCount())]

    def names(self) -> list[str]:
        """The annotator column as shown."""
        return [self._cell(row, 1).text().strip() for row in range(self.rowCount())]

    def annotators(self) -> list[str]:
        """What is passed as ``--annotator`` names: none until one was edited."""
        names = self.names()
        return [] if names == self._defaults else names

    def set_sources(self, paths: Sequence[Path]) -> None:
        self.setRowCount(0)
        self._defaults = []
        if not paths:
            self.changed.emit()
        self.add_sources(paths)

    def add_sources(self, paths: Sequence[Path]) -> None:
        known = set(self.sources())
        fresh = [p for p in dict.fromkeys(Path(p) for p in paths) if p not in known]
        self.blockSignals(True)
        for path in fresh:
            row = self.rowCount()
            self.insertRow(row)
            shown = _fixed_cell(path.name + ("/" if path.is_dir() else ""))
            shown.setData(Qt.ItemDataRole.UserRole, str(path))
            shown.setToolTip(str(path))
            self._defaults.append(default_name(path))
            self.setItem(row, 0, shown)
            self.setItem(row, 1, QTableWidgetItem(self._defaults[-1]))
        self.blockSignals(False)
        if fresh:
            self.changed.emit()

    def set_annotator(self, row: int, name: str) -> None:
        """Edit one annotator name, as a double-click in the table does."""
        self._cell(row, 1).setText(name)

    def remove_selected(self) -> None:
        rows = sorted({index.row() for index in self.selectedIndexes()}, reverse=True)
        for row in rows:
            self.removeRow(row)
            del self._defaults[row]
        if rows:
            self.changed.emit()

    def _cell(self, row: int, column: int) -> QTableWidgetItem:
        cell = self.item(row, column)
        assert cell is not None
        return cell

    def _edited(self, cell: QTableWidgetItem) -> None:
        if cell.column() != 1:
            return
        font = cell.font()
        font.setItalic(cell.text().strip() != self._defaults[cell.row()])
        self.blockSignals(True)
        cell.setFont(font)  # an edited name stands out
        self.blockSignals(False)
        self.changed.emit()


def _fixed_cell(text: str, *, align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft,
          muted: bool = False) -> QTableWidgetItem:
    cell = QTableWidgetItem(text)
    cell.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    cell.setTextAlignment(align | Qt.AlignmentFlag.AlignVCenter)
    if muted:
        cell.setForeground(QColor(MUTED_COLOR))
    return cell


def _plain_label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)  # names from files are never markup
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class PreviewPanel(QWidget):
    """The preview: a summary line, annotators × schemes, and the importer's notes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = _plain_label()
        font = self.summary.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.summary.setFont(font)
        self.schemes = _plain_label()
        self.schemes.setStyleSheet(f"color: {MUTED_COLOR};")
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("import_preview_table")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        self.table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft)
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.table.setMinimumHeight(4 * ROW_HEIGHT + 40)
        self.notes_title = QLabel("What was skipped or cannot be carried")
        bold = self.notes_title.font()
        bold.setBold(True)
        self.notes_title.setFont(bold)
        self.notes = _plain_label()
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.notes_area = QScrollArea()  # an importer may have a lot to say
        self.notes_area.setWidget(self.notes)
        self.notes_area.setWidgetResizable(True)
        self.notes_area.setFrameShape(QFrame.Shape.NoFrame)
        self.notes_area.setMinimumHeight(3 * ROW_HEIGHT)
        self.message = _plain_label()
        self.message.setObjectName("import_preview_message")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget, stretch in ((self.summary, 0), (self.schemes, 0), (self.table, 3),
                                (self.notes_title, 0), (self.notes_area, 2), (self.message, 0)):
            layout.addWidget(widget, stretch)
        layout.addStretch(0)  # a lone hint or error sits at the top
        self.preview: Preview | None = None
        self.show_hint("Add the export's files or folders to see what will be imported.")

    def _only(self, *shown: QWidget) -> None:
        for widget in (self.summary, self.schemes, self.table, self.notes_title,
                       self.notes_area, self.message):
            widget.setVisible(widget in shown)

    def show_hint(self, text: str) -> None:
        """Nothing to preview (yet): a grey sentence."""
        self.preview = None
        self.message.setStyleSheet(f"color: {MUTED_COLOR};")
        self.message.setText(text)
        self._only(self.message)

    def show_error(self, message: str) -> None:
        """The read failed: its one sentence, in red."""
        self.preview = None
        self.message.setStyleSheet(f"color: {ERROR_COLOR};")
        self.message.setText(message)
        self._only(self.message)

    def show_preview(self, preview: Preview) -> None:
        self.preview = preview
        self.summary.setText(preview.summary())
        self.schemes.setText("Schemes: " + ", ".join(f"{name} ({kind})"
                                                     for name, kind in preview.schemes))
        table = self.table
        table.clear()
        table.setRowCount(len(preview.annotators))
        table.setColumnCount(2 + len(preview.schemes))
        table.setHorizontalHeaderLabels(["Annotator", "Items answered",
                                         *(f"{name}\n{kind}" for name, kind in preview.schemes)])
        right = Qt.AlignmentFlag.AlignRight
        for row, annotator in enumerate(preview.annotators):
            table.setItem(row, 0, _fixed_cell(annotator))
            table.setItem(row, 1, _fixed_cell(f"{preview.items_answered.get(annotator, 0):,}",
                                        align=right))
            for column, (name, _) in enumerate(preview.schemes, start=2):
                tally = preview.tallies[annotator][name]
                table.setItem(row, column, _fixed_cell(tally.text(), muted=not tally.answers))
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.notes.setText("\n".join(f"•  {note}" for note in preview.notes)
                           if preview.notes else "Nothing was skipped.")
        self.notes.setStyleSheet("" if preview.notes else f"color: {MUTED_COLOR};")
        shown: list[QWidget] = [self.summary, self.table, self.notes_title, self.notes_area]
        if preview.schemes:
            shown.append(self.schemes)
        self._only(*shown)

    def table_text(self) -> list[list[str]]:
        """The table as text, header first (for tests and the log)."""
        table = self.table
        header = [(h.text() if (h := table.horizontalHeaderItem(c)) else "")
                  for c in range(table.columnCount())]
        rows = [[(i.text() if (i := table.item(r, c)) else "") for c in range(table.columnCount())]
                for r in range(table.rowCount())]
        return [header, *rows]
