"""The save dialog and the outcome message every File › Export… action uses.

Export report, Export certificate and Export consensus each ask for a file name and
say how it went; they do it the same way, so the two callables are defined once, and
their types are what each export takes as injectable arguments (tests pass fakes and
never open a modal dialog).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QWidget

STATUS_MILLISECONDS = 6000
"""How long a success stays in the main window's status bar."""

AskPath = Callable[[QWidget | None, str, str, str], tuple[str, str]]
"""``(parent, caption, suggested path, filters) -> (chosen path or "", chosen filter)``."""
Notify = Callable[[QWidget | None, bool, str], None]
"""``(parent, succeeded, message)``."""


def ask_save_path(
    parent: QWidget | None, caption: str, suggested: str, filters: str
) -> tuple[str, str]:
    """Qt's save dialog."""
    return QFileDialog.getSaveFileName(parent, caption, suggested, filters)


def notifier(title: str) -> Notify:
    """How an export titled ``title`` reports: a failure in a dialog; a success in the
    main window's status bar (it needs no click), else in an information box."""

    def notify(parent: QWidget | None, succeeded: bool, message: str) -> None:
        if not succeeded:
            QMessageBox.critical(parent, title, message)
        elif isinstance(parent, QMainWindow):
            parent.statusBar().showMessage(message, STATUS_MILLISECONDS)
        else:
            QMessageBox.information(parent, title, message)

    return notify
