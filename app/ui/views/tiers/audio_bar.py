"""The tiers view's transport: a Play/Pause button, the time, and one sentence.

Why a sentence and not an error dialog: playback is optional (no Qt Multimedia, no audio
device, an item without audio); the bar says which in words and the button is disabled,
while the ruler and cursor keep working (:mod:`app.ui.views.tiers.player`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from app.ui.views.tiers.player import Playback, PlayState

PLAY = "▶ Play"
PAUSE = "❚❚ Pause"


def clock(position: float, duration: float) -> str:
    """``1.23 / 5.50 s``: the cursor and the clip's length."""
    return f"{position:.2f} / {duration:.2f} s"


class AudioBar(QWidget):
    """Controls bound to one :class:`Playback`."""

    def __init__(self, playback: Playback, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.playback = playback
        self.button = QPushButton(PLAY)
        self.button.clicked.connect(playback.toggle)
        self.time = QLabel()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.time)
        layout.addWidget(self.status, 1)
        playback.state_changed.connect(self.refresh)
        playback.position_changed.connect(self._tick)
        self.refresh()

    def set_font(self, font: QFont) -> None:
        """The view's font; the button and the clock keep room for their widest text."""
        for widget in (self.button, self.time, self.status):
            widget.setFont(font)
        metrics = QFontMetricsF(font)
        widest = max(metrics.horizontalAdvance(t) for t in (PLAY, PAUSE))
        self.button.setMinimumWidth(int(widest + 3 * metrics.averageCharWidth()))
        self.time.setMinimumWidth(int(metrics.horizontalAdvance(clock(8888.88, 8888.88)) + 4))

    def refresh(self) -> None:
        p = self.playback
        self.button.setText(PAUSE if p.state is PlayState.PLAYING else PLAY)
        self.button.setEnabled(p.can_play)
        self.status.setText(p.sentence)
        self._tick(p.position)

    def _tick(self, position: float) -> None:
        self.time.setText(clock(position, self.playback.duration))
