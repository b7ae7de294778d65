"""File › Export certificate…: the open project's certificate as a PDF, with a preview.

Hook for the main window::

    from app.ui.export_certificate import export_certificate
    action.triggered.connect(lambda: export_certificate(window, window.project_data,
                                                        window.workers))

``export_certificate(parent, project_data, pool)`` asks for a file name, builds the
certificate from the window's current :class:`~app.core.project.ProjectData` in a
background job on ``pool`` (a :class:`~app.ui.workers.WorkerPool`; hashing the inputs of
a large study takes a while) with a progress dialog, then writes the PDF atomically on
the GUI thread (``QTextDocument`` and ``QPdfWriter`` are used where they were created)
and shows a preview of page 1.

Choices where the spec is silent:

- The certificate is built from the result object already open (architecture rule 5), so
  the PDF states exactly what the window shows; nothing is tested or written to the
  project (``status`` semantics).
- The preview is page 1 painted by the same code that paints the PDF
  (:func:`app.report.pdf.page_images`): PySide6-Essentials has no QtPdf to render the
  file itself, and the shared painter means the preview cannot drift from the PDF.
- Without a pool (tests, scripts) the job runs on the calling thread.
- After the file name, a small dialog asks who the certificate is prepared for and by
  (the CLI's ``--for`` and ``--by``, :mod:`app.ui.exporting.prepared`); "by" is
  remembered in the window's settings (``parent.settings``, when the parent has one).
- The file dialog, the prepared-for/by dialog, the message and the preview are
  injectable so tests need no modal dialog; the preview dialog is non-modal and
  returned to the caller through ``done``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QImage, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressDialog,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.core.certificate.build import build_certificate, utc_now
from app.core.errors import InputError
from app.core.progress import Job, Progress, run, scaled
from app.core.project import ProjectData
from app.ui.exporting.dialogs import AskPath, Notify, ask_save_path, notifier
from app.ui.exporting.prepared import SETTINGS_KEY, AskPrepared, Prepared, ask_prepared

TITLE = "Export certificate"
FILTER = "PDF certificate (*.pdf)"



@dataclass(slots=True)
class Exported:
    path: Path
    size: int
    certificate: dict[str, Any]
    preview: QImage
    dialog: QDialog | None


notify = notifier(TITLE)


class PreviewDialog(QDialog):
    """Page 1 of the written PDF, with a button to open the file."""

    def __init__(self, parent: QWidget | None, image: QImage, path: Path) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Certificate preview — {path.name}")
        self.path = path
        label = QLabel()
        label.setPixmap(QPixmap.fromImage(image))
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        scroll = QScrollArea()
        scroll.setWidget(label)
        scroll.setWidgetResizable(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        open_button = buttons.addButton("Open PDF", QDialogButtonBox.ButtonRole.ActionRole)
        open_button.clicked.connect(
            lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))))
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        caption = QLabel(f"Wrote {path}. Page 1:")
        caption.setTextFormat(Qt.TextFormat.PlainText)  # a path is never markup
        layout.addWidget(caption)
        layout.addWidget(scroll)
        layout.addWidget(buttons)
        self.resize(min(image.width() + 60, 900), 760)


@dataclass(frozen=True, slots=True)
class _Written:
    cert: dict[str, Any]
    size: int
    preview: QImage


def _build_and_write(project_data: ProjectData, stated: str, path: Path,
                     prepared: Prepared) -> Job[_Written]:
    """The whole export off the GUI thread: the certificate data, the PDF written
    atomically, and page 1 as an image. ``QTextDocument``, ``QPdfWriter`` and ``QImage``
    are created and used on this one thread, which Qt allows (painting onto a
    ``QPdfWriter`` or a ``QImage`` outside the GUI thread is supported)."""
    from app.report.pdf import page_images, write_certificate_pdf

    cert = yield from scaled(
        build_certificate(project_data, generated_at=stated,
                          prepared_for=prepared.for_, prepared_by=prepared.by),
        0.0, 0.8, 1.0)
    yield Progress(0.8, 1.0, "writing the PDF")
    size = write_certificate_pdf(cert, path)
    yield Progress(0.95, 1.0, "preview")
    preview = page_images(cert, pages=1, dpi=80)[0]
    return _Written(cert, size, preview)


def _show(parent: QWidget | None, written: _Written, path: Path, show_preview: bool
          ) -> Exported:
    dialog = None
    if show_preview:
        dialog = PreviewDialog(parent, written.preview, path)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
    return Exported(path, written.size, written.cert, written.preview, dialog)


def _ask_prepared(parent: QWidget | None, prepare: AskPrepared) -> Prepared | None:
    """Who it is for and by; "by" starts as last time's and is remembered when given."""
    settings = getattr(parent, "settings", None)
    store = getattr(settings, "store", None)
    remembered = str(store.value(SETTINGS_KEY, "") or "") if store is not None else ""
    prepared = prepare(parent, remembered)
    if prepared is not None and store is not None and prepared.by is not None:
        store.setValue(SETTINGS_KEY, prepared.by)
        store.sync()
    return prepared


def export_certificate(parent: QWidget | None, project_data: ProjectData, pool: Any = None,
                       *, ask: AskPath = ask_save_path, tell: Notify = notify,
                       prepare: AskPrepared = ask_prepared, show_preview: bool = True,
                       done: Callable[[Exported | None], None] | None = None) -> None:
    """Ask for a file, build the certificate (on ``pool`` if given), write it, preview it."""
    suggested = project_data.path.parent / f"{project_data.path.name}-certificate.pdf"
    name, _ = ask(parent, TITLE, str(suggested), FILTER)
    if not name:
        if done is not None:
            done(None)
        return
    path = Path(name)
    if path.suffix.lower() != ".pdf":
        path = path.with_name(f"{path.name}.pdf")
    prepared = _ask_prepared(parent, prepare)
    if prepared is None:
        if done is not None:
            done(None)
        return
    stated = utc_now()

    def factory() -> Job[_Written]:
        return _build_and_write(project_data, stated, path, prepared)

    def finished(written: _Written) -> None:
        result = _show(parent, written, path, show_preview)
        if done is not None:
            done(result)

    if pool is None:
        try:
            written = run(factory())
        except (OSError, InputError) as error:
            tell(parent, False, f"The certificate was not written: {error}")
            if done is not None:
                done(None)
            return
        finished(written)
        return

    progress = QProgressDialog("Building the certificate…", "Cancel", 0, 1000, parent)
    progress.setWindowTitle(TITLE)
    progress.setMinimumDuration(300)

    def step(p: Progress) -> None:
        progress.setValue(round(p.fraction * 1000))
        if p.message:
            progress.setLabelText(f"Building the certificate… {p.message}")

    def ok(written: _Written) -> None:
        progress.close()
        finished(written)

    def failed(message: str) -> None:
        progress.close()
        tell(parent, False, f"The certificate was not written: {message}")
        if done is not None:
            done(None)

    worker = pool.start(factory, name="certificate", on_result=ok, on_error=failed,
                        on_progress=step)
    progress.canceled.connect(worker.cancel)
