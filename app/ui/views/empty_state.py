"""One empty state for every view: the view's title and one sentence, centred.

A lead opening a labelling project saw an empty 3D panel first, blank axes in one view,
an empty table in the next: each view said "nothing here" its own way, or not at all.
Every view now says it the same way, with :meth:`EmptyState.show_message` (a title such
as "3D cuboids" and a sentence such as "This project has no 3D boxes scheme to draw.")
and :meth:`EmptyState.hide`.

Why an overlay and not a page of a stacked layout: each view keeps its own layout
untouched; the overlay is a child of the view that covers it whole (it follows the
view's size through an event filter, so no view overrides ``resizeEvent``) and is
opaque, so no blank axes or empty tables show through.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


class EmptyState(QWidget):
    """An opaque cover over a view, with its title and why there is nothing to show."""

    def __init__(self, view: QWidget) -> None:
        super().__init__(view)
        self.setObjectName("emptyState")
        self.setAutoFillBackground(True)
        self.title = QLabel()
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title.setStyleSheet("color: #444444; font-weight: bold;")
        self.sentence = QLabel()
        self.sentence.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.sentence.setWordWrap(True)
        self.sentence.setStyleSheet("color: #666666;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.addStretch(1)
        layout.addWidget(self.title)
        layout.addWidget(self.sentence)
        layout.addStretch(1)
        view.installEventFilter(self)
        super().hide()

    def show_message(self, title: str, sentence: str) -> None:
        """Cover the view with ``title`` and ``sentence`` (plain text)."""
        parent = self.parentWidget()
        font = parent.font() if parent is not None else self.font()
        bigger = font
        bigger.setPointSizeF(font.pointSizeF() * 1.25)
        self.title.setFont(bigger)
        self.sentence.setFont(parent.font() if parent is not None else self.font())
        self.title.setText(title)
        self.sentence.setText(sentence)
        if parent is not None:
            self.setGeometry(parent.rect())
        self.show()
        self.raise_()

    @property
    def message(self) -> str:
        """The sentence shown, or ``''`` when the view shows its content."""
        return self.sentence.text() if not self.isHidden() else ""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize:
            parent = self.parentWidget()
            if parent is not None:
                self.setGeometry(parent.rect())
        return False
