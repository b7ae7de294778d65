"""The status bar's permanent part: coverage, and a progress bar with Cancel for work.

The bar and the Cancel button only appear when a job has run for longer than
``SHOW_AFTER_MS`` (a moment): a quick reload does not flash a bar. Coverage is the
study's size in words (items, annotators, schemes), the first thing a lead checks after
opening a project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from app.core.progress import Progress

if TYPE_CHECKING:
    from app.core.project import ProjectData

SHOW_AFTER_MS = 300


def coverage_text(project: ProjectData | None) -> str:
    """``"40 items · 4 annotators · 4 schemes"`` (singular for one), or a hint."""
    if project is None:
        return "No project open"
    study = project.study

    def count(n: int, word: str) -> str:
        return f"{n} {word}" if n == 1 else f"{n:,} {word}s"

    return " · ".join((count(len(study.items), "item"), count(len(study.annotators),
                                                                "annotator"),
                       count(len(project.report.schemes), "scheme")))


class StatusPanel(QWidget):
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 4, 0)
        self.coverage = QLabel(coverage_text(None))
        self.coverage.setObjectName("coverage")
        self.task = QLabel("")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setFixedWidth(180)
        self.bar.setTextVisible(False)
        self.cancel = QPushButton("Cancel")
        self.cancel.clicked.connect(self.cancel_requested)
        for widget in (self.task, self.bar, self.cancel):
            layout.addWidget(widget)
            # Hidden, they keep their place: revealing them then changes nothing else's
            # geometry. Otherwise the taller Cancel button grew the status bar, and the
            # whole window (every docked view) was laid out and repainted at once, a
            # 60-140 ms stall of the GUI thread (tests/benchmarks/bench_gui_stall.py).
            policy = widget.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            widget.setSizePolicy(policy)
            widget.hide()
        self.task.setFixedWidth(260)
        layout.addWidget(self.coverage)
        self._delay = QTimer(self)
        self._delay.setSingleShot(True)
        self._delay.setInterval(SHOW_AFTER_MS)
        self._delay.timeout.connect(self._reveal)

    @property
    def busy_shown(self) -> bool:
        return self.bar.isVisibleTo(self)

    def show_coverage(self, project: ProjectData | None) -> None:
        self.coverage.setText(coverage_text(project))

    def begin(self, what: str) -> None:
        """A job started: show the bar if it is still running after a moment."""
        self.task.setText(what)
        self.bar.setValue(0)
        self._delay.start()

    def step(self, progress: Progress) -> None:
        self.bar.setValue(round(progress.fraction * 1000))
        if progress.message:
            self.bar.setToolTip(progress.message)

    def end(self) -> None:
        self._delay.stop()
        for widget in (self.task, self.bar, self.cancel):
            widget.hide()

    def _reveal(self) -> None:
        for widget in (self.task, self.bar, self.cancel):
            widget.show()
