"""File › Import…: another tool's export, previewed, then written as a Potato project.

Pick the format, add files or folders, edit the annotator names if wanted
(:class:`~app.ui.import_preview.SourcesTable`), and read the preview: what the importer
made of them. Import writes that study with ``accord import``'s
:func:`~app.core.formats.importers.writer.write_project` and emits ``imported(project)``;
the window (``MainWindow.import_study``) then opens it like any project.

Off the GUI thread: the read and the preview's counts
(:func:`~app.ui.import_preview.read_preview`) are one job on the window's
:class:`~app.ui.workers.WorkerPool`, the write another; the GUI thread only starts them
and shows what they send back, with a busy bar meanwhile (neither core step yields
progress yet).

Choices where the design is silent:

- Annotator names are passed (as ``--annotator``) only once the user has edited one, so
  until then the dialog and ``accord import`` without ``--annotator`` write the same
  project (Label Studio and ELAN exports name their annotators themselves).
- The preview is read again ``PREVIEW_DELAY_MS`` after the last change; a read a later
  change supersedes is cancelled and its result dropped. Import writes the study the
  preview read (what the user saw), not a second read.
- Bad input while previewing is the error's one sentence (the CLI's line) in red in the
  preview, and Import stays disabled: a modal dialog per added file would be a nag. A
  failed write (say, the folder is not empty) is the window's one error dialog
  (``report``), and the same line in the status.
- The project folder is ``<format>-import`` beside the first source (``-2``, ``-3``…
  when taken) until the user types or chooses one; Choose… asks for the new folder's
  name with a save dialog (it need not exist; an existing one must be empty).
- A write cannot stop halfway (the writer stages the project and renames it at the end):
  while it runs the controls are disabled and the dialog does not close.
- Without a pool the dialog makes its own and waits for it on close (scripts only).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.formats.importers.model import ImportedStudy
from app.core.formats.importers.registry import FORMAT_HINTS, FORMAT_LABELS, FORMATS
from app.core.progress import Job
from app.ui.import_preview import (
    ERROR_COLOR,
    MUTED_COLOR,
    ROW_HEIGHT,
    Preview,
    PreviewPanel,
    SourcesTable,
    counted,
    free_folder,
    read_preview,
    write_job,
)
from app.ui.project_io import show_error
from app.ui.workers import JobWorker, WorkerPool

PREVIEW_DELAY_MS = 250
TITLE = "Import another tool's export"
HINT = "Add the export's files or folders to see what will be imported."


def _button(text: str, slot: Callable[[], object]) -> QPushButton:
    button = QPushButton(text)
    button.clicked.connect(slot)
    return button


def _muted(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet(f"color: {MUTED_COLOR};")
    return label


class ImportDialog(QDialog):
    """See the module."""

    preview_ready = Signal(object)
    """A :class:`~app.ui.import_preview.Preview` of the current inputs is shown."""
    preview_failed = Signal(str)
    imported = Signal(object)
    """The project (a ``Path``) was written; the dialog then closes."""
    import_failed = Signal(str)

    def __init__(self, parent: QWidget | None = None, pool: WorkerPool | None = None, *,
                 report: Callable[[str], None] | None = None,
                 start_dir: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(TITLE)
        self.setObjectName("import_dialog")
        self._own_pool = pool is None
        self.pool = pool if pool is not None else WorkerPool(self)
        self._report = report
        self._start_dir = start_dir or Path.home()
        self._output_chosen = False
        self._generation = 0
        self._reading: JobWorker | None = None
        self._writing: JobWorker | None = None
        self._closed = False
        self.study: ImportedStudy | None = None
        """The study previewed for the current inputs (None while reading, or failed)."""
        self._timer = QTimer(self)
        self._timer.setObjectName("import_preview_delay")
        self._timer.setSingleShot(True)
        self._timer.setInterval(PREVIEW_DELAY_MS)
        self._timer.timeout.connect(self.refresh_preview)

        self.format_box = QComboBox()
        for name in FORMATS:
            self.format_box.addItem(f"{FORMAT_LABELS.get(name, name)}  ({name})", name)
        self.format_box.currentIndexChanged.connect(self._format_changed)
        self.format_hint = _muted()
        top = QFormLayout()
        top.addRow("Format:", self.format_box)
        top.addRow("", self.format_hint)

        self.table = SourcesTable()
        self.table.setMaximumHeight(5 * ROW_HEIGHT + 8)
        self.table.changed.connect(self._inputs_changed)
        self.add_files = _button("Add files…", self._choose_files)
        self.add_folder = _button("Add folder…", self._choose_folder)
        self.remove = _button("Remove", self.table.remove_selected)
        side = QVBoxLayout()
        for button in (self.add_files, self.add_folder, self.remove):
            side.addWidget(button)
        side.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.table, 1)
        row.addLayout(side)
        sources = QGroupBox("Sources")
        inner = QVBoxLayout(sources)
        inner.addLayout(row)
        inner.addWidget(_muted("Each source is one annotator, named after its file or folder "
                               "unless you edit the name (double-click it)."))

        self.preview = PreviewPanel()
        self.preview.show_hint(HINT)
        preview_box = QGroupBox("Preview")
        QVBoxLayout(preview_box).addWidget(self.preview)

        self.output_edit = QLineEdit()
        self.output_edit.setPlaceholderText("a new or empty folder")
        self.output_edit.textEdited.connect(self._output_edited)
        self.output_edit.textChanged.connect(lambda _: self._update_buttons())
        self.choose_output = _button("Choose…", self._choose_output)
        output = QHBoxLayout()
        output.addWidget(QLabel("Project folder:"))
        output.addWidget(self.output_edit, 1)
        output.addWidget(self.choose_output)

        self.busy = QProgressBar()
        self.busy.setTextVisible(False)
        self.busy.setFixedWidth(120)
        policy = self.busy.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.busy.setSizePolicy(policy)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.import_button = self.buttons.addButton("Import",
                                                    QDialogButtonBox.ButtonRole.AcceptRole)
        self.import_button.setDefault(True)
        self.buttons.accepted.connect(self.start_import)
        self.buttons.rejected.connect(self.reject)
        bottom = QHBoxLayout()
        bottom.addWidget(self.busy)
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.buttons)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(sources)
        layout.addWidget(preview_box, 1)
        layout.addLayout(output)
        layout.addLayout(bottom)
        self._format_changed()
        self.resize(840, 740)

    # ------------------------------------------------------------------ inputs

    def format(self) -> str:
        return str(self.format_box.currentData())

    def set_format(self, name: str) -> None:
        index = self.format_box.findData(name)
        if index < 0:
            raise ValueError(f"unknown import format {name!r}")
        self.format_box.setCurrentIndex(index)

    def set_sources(self, paths: Sequence[Path]) -> None:
        """Replace the sources (as the Add buttons do, without a file dialog)."""
        self.table.set_sources(paths)

    def output(self) -> Path | None:
        text = self.output_edit.text().strip()
        return Path(text).expanduser() if text else None

    def set_output(self, path: Path) -> None:
        self._output_chosen = True
        self.output_edit.setText(str(path))

    def _format_changed(self) -> None:
        self.format_hint.setText(FORMAT_HINTS.get(self.format(), ""))
        self._inputs_changed()

    def _output_edited(self, _: str) -> None:
        self._output_chosen = True

    def _choose_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Add the export's files",
                                                str(self._start_dir))
        self._add([Path(n) for n in names])

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add an export folder",
                                                  str(self._start_dir))
        self._add([Path(folder)] if folder else [])

    def _add(self, paths: list[Path]) -> None:
        if paths:
            self._start_dir = paths[-1].parent
            self.table.add_sources(paths)

    def _choose_output(self) -> None:
        start = self.output() or self._start_dir
        name, _ = QFileDialog.getSaveFileName(self, "The new project's folder", str(start))
        if name:
            self.set_output(Path(name))

    # ------------------------------------------------------------------ preview

    def _inputs_changed(self) -> None:
        """Drop the preview of the old inputs and read the new ones in a moment."""
        self._generation += 1
        self.study = None
        if self._reading is not None:
            self._reading.cancel()
        sources = self.table.sources()
        if not self._output_chosen:
            default = free_folder(sources[0].parent, f"{self.format()}-import") if sources else ""
            self.output_edit.setText(str(default))
        if sources:
            self._timer.start()
        else:
            self._timer.stop()
            self.preview.show_hint(HINT)
        self._update_buttons()

    def refresh_preview(self) -> None:
        """Read the current inputs now, on the pool (the preview shows the result)."""
        self._timer.stop()
        sources = self.table.sources()
        if self._closed or not sources:
            return
        if self._reading is not None:
            self._reading.cancel()
        self._generation += 1
        generation = self._generation
        fmt, annotators = self.format(), self.table.annotators()

        def job() -> Job[tuple[ImportedStudy, Preview]]:
            return read_preview(fmt, sources, annotators)

        worker = self.pool.start(job, name=f"import preview ({fmt})",
                                 on_result=lambda result: self._previewed(generation, result),
                                 on_error=lambda message: self._unreadable(generation, message),
                                 on_done=lambda: self._finished(worker))
        self._reading = worker
        self._say(f"Reading {counted(len(sources), 'source')}…")
        self._update_buttons()

    def _previewed(self, generation: int, result: tuple[ImportedStudy, Preview]) -> None:
        if self._closed or generation != self._generation:
            return  # the inputs changed since
        self._reading = None
        self.study, preview = result
        self.preview.show_preview(preview)
        self._say("")
        self._update_buttons()
        self.preview_ready.emit(preview)

    def _unreadable(self, generation: int, message: str) -> None:
        if self._closed or generation != self._generation:
            return
        self._reading = None
        self.preview.show_error(message)
        self._say("")
        self._update_buttons()
        self.preview_failed.emit(message)

    # ------------------------------------------------------------------ import

    def start_import(self) -> None:
        """Write the previewed study as the project folder, on the pool."""
        study, project = self.study, self.output()
        if study is None or project is None or self._writing is not None:
            return

        def job() -> Job[Path]:
            return write_job(study, project)

        worker = self.pool.start(job, name=f"import to {project}", on_result=self._written,
                                 on_error=self._not_written,
                                 on_done=lambda: self._finished(worker))
        self._writing = worker
        self._say(f"Writing {project}…")
        self._update_buttons()

    def _written(self, project: Path) -> None:
        self._writing = None
        self._say(f"Wrote {project}")
        self.imported.emit(project)
        self.accept()

    def _not_written(self, message: str) -> None:
        self._say(message, error=True)
        if self._report is not None:
            self._report(message)
        else:
            show_error(self, message)
        self.import_failed.emit(message)

    # ------------------------------------------------------------------ state

    @property
    def working(self) -> bool:
        """A read or a write is running."""
        return self._reading is not None or self._writing is not None

    def _finished(self, worker: JobWorker) -> None:
        if self._reading is worker:
            self._reading = None
        if self._writing is worker:
            self._writing = None
        if not self._closed:
            self._update_buttons()

    def _say(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(f"color: {ERROR_COLOR};" if error else "")
        self.status.setText(text)

    def _update_buttons(self) -> None:
        writing = self._writing is not None
        for widget in (self.format_box, self.table, self.add_files, self.add_folder,
                       self.remove, self.output_edit, self.choose_output):
            widget.setEnabled(not writing)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setEnabled(not writing)
        self.import_button.setEnabled(not self.working and self.study is not None
                                      and self.output() is not None)
        self.busy.setRange(0, 0 if self.working else 1)  # 0..0 is Qt's busy bar
        self.busy.setVisible(self.working)

    def done(self, result: int) -> None:
        """Close, unless a write is running (it cannot stop halfway)."""
        if self._writing is not None:
            return
        self._closed = True
        self._timer.stop()
        if self._reading is not None:
            self._reading.cancel()
        if self._own_pool:
            self.pool.await_workers()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        if self._writing is not None:
            event.ignore()
            return
        self._timer.stop()
        super().closeEvent(event)
