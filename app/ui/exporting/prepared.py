"""Who a certificate is prepared for and by: the GUI's ``--for`` and ``--by``.

``accord certificate P --for "Acme Labs" --by "J. Doe"`` prints both on page 1 and the
certificate's hash covers them. File › Export certificate… asks for the same two lines in
a small dialog after the file name, so a certificate written from the window can be
handed to a client exactly like one from the CLI.

Choices where the spec is silent:

- Both fields are optional, as on the CLI: empty means "not given" (``None``), and page 1
  then leaves the line out.
- "Prepared by" is usually the lead at the keyboard, so it is remembered between runs
  (in the app's settings under ``certificate/prepared_by``); "prepared for" changes with
  every client and starts empty.
- Cancel cancels the export: nothing is built or written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

SETTINGS_KEY = "certificate/prepared_by"
MAX_LENGTH = 200
"""A line on page 1, not a letter: longer names are cut by the field itself."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """The two lines as the certificate builder takes them (``None`` = not given)."""

    for_: str | None = None
    by: str | None = None


AskPrepared = Callable[[QWidget | None, str], Prepared | None]
"""``(parent, remembered "by") -> Prepared``, or ``None`` when the user cancelled."""


def _clean(text: str) -> str | None:
    text = " ".join(text.split())
    return text or None


class PreparedDialog(QDialog):
    """Two one-line fields, "Prepared for" and "Prepared by", with OK and Cancel."""

    def __init__(self, parent: QWidget | None, remembered_by: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Certificate: prepared for / by")
        self.for_edit = QLineEdit()
        self.for_edit.setPlaceholderText("the client or team (optional)")
        self.by_edit = QLineEdit(remembered_by)
        self.by_edit.setPlaceholderText("you (optional)")
        for edit in (self.for_edit, self.by_edit):
            edit.setMaxLength(MAX_LENGTH)
            edit.setMinimumWidth(320)
        intro = QLabel("Printed on page 1 and covered by the certificate's hash.")
        intro.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Prepared for:", self.for_edit)
        form.addRow("Prepared by:", self.by_edit)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def prepared(self) -> Prepared:
        return Prepared(_clean(self.for_edit.text()), _clean(self.by_edit.text()))


def ask_prepared(parent: QWidget | None, remembered_by: str = "") -> Prepared | None:
    """The modal dialog; ``None`` when cancelled."""
    dialog = PreparedDialog(parent, remembered_by)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return dialog.prepared()
