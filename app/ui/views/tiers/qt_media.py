"""The real playback backend: Qt Multimedia's ``QMediaPlayer`` and ``QAudioOutput``.

Why it is looked for at run time: Qt Multimedia ships in PySide6-Addons, Accord's
``audio`` extra (``scripts/setup`` installs it; ``pip install accord`` alone does not,
since PySide6-Essentials is enough for everything else), and a machine may
lack a system library it links to (libpulse, on a bare Debian) or have no audio output
(offscreen CI, a server). :func:`media_backend` returns a backend
or the sentence saying why there is none; the tiers view then shows that sentence
beside a disabled Play button. The frozen one-folder build leaves Qt Multimedia out
(with its FFmpeg and Qt Quick libraries it was 40 MB of a bundle meant to stay under
250 MB; packaging/accord.spec), so there the sentence says so instead of naming pip.

The position is polled every :data:`POLL_MS` while playing: ``positionChanged`` alone
comes too seldom on some backends for a cursor that moves smoothly.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QLoggingCategory,
    QMessageLogContext,
    QObject,
    QTimer,
    QtMsgType,
    QUrl,
    qInstallMessageHandler,
)

from app.ui.views.tiers.player import Backend

POLL_MS = 30
NO_MODULE = (
    "No playback: Qt Multimedia is not installed (Accord's audio extra: pip install "
    "PySide6-Addons, or run scripts/setup). The ruler and cursor still work."
)
NO_MODULE_FROZEN = (
    "No playback: audio playback is not part of this build of Accord (Accord installed "
    "with pip and its audio extra plays audio). The ruler and cursor still work."
)
NO_LIBRARY = (
    "No playback: Qt Multimedia is installed but could not be loaded ({reason}). The "
    "ruler and cursor still work."
)
NO_DEVICE = "No playback: this machine has no audio output device. The ruler and cursor still work."


class QtBackend(QObject):
    """A :class:`~app.ui.views.tiers.player.Backend` over ``QMediaPlayer``."""

    def __init__(self, multimedia: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._mm = multimedia
        self.player = multimedia.QMediaPlayer(self)
        self.output = multimedia.QAudioOutput(self)
        self.player.setAudioOutput(self.output)
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self._on_position: Callable[[float], None] = lambda _t: None
        self._on_finished: Callable[[], None] = lambda: None
        self._on_error: Callable[[str], None] = lambda _m: None

    def attach(
        self,
        on_position: Callable[[float], None],
        on_finished: Callable[[], None],
        on_error: Callable[[str], None],
    ) -> None:
        self._on_position, self._on_finished, self._on_error = (on_position, on_finished, on_error)
        self.timer.timeout.connect(self._poll)
        self.player.positionChanged.connect(lambda ms: self._on_position(ms / 1000.0))
        self.player.mediaStatusChanged.connect(self._status)
        self.player.errorOccurred.connect(lambda _e, text: self._on_error(str(text)))

    def load(self, path: Path) -> None:
        self.timer.stop()
        self.player.setSource(QUrl.fromLocalFile(str(path)))

    def play(self) -> None:
        self.player.play()
        self.timer.start()

    def pause(self) -> None:
        self.player.pause()
        self.timer.stop()

    def seek(self, seconds: float) -> None:
        self.player.setPosition(round(seconds * 1000))

    def _poll(self) -> None:
        self._on_position(self.player.position() / 1000.0)

    def _status(self, status: Any) -> None:
        if status == self._mm.QMediaPlayer.MediaStatus.EndOfMedia:
            self.timer.stop()
            self._on_finished()


def media_backend(parent: QObject | None = None, *, require_device: bool = True
                  ) -> Backend | str:
    """Qt Multimedia's backend, or the sentence saying why playback is off.

    ``require_device=False`` returns the player even with no audio output: Qt then
    plays in silence (the position advances), which is how the tests drive the real
    player on a machine with no sound card."""
    _quiet_qt_multimedia()
    try:
        multimedia = importlib.import_module("PySide6.QtMultimedia")
    except ModuleNotFoundError:
        return NO_MODULE_FROZEN if getattr(sys, "frozen", False) else NO_MODULE
    except ImportError as exc:  # installed, but a system library it needs is missing
        return NO_LIBRARY.format(reason=exc)
    if require_device and not _audio_outputs(multimedia):
        return NO_DEVICE
    return QtBackend(multimedia, parent)


def _quiet_qt_multimedia() -> None:
    """Keep Qt Multimedia's start-up chatter off stderr: it reports every optional
    library it looks for and does not find (VA-API, PipeWire) and its FFmpeg version,
    a dozen lines on each ``accord open``. ``QT_LOGGING_RULES`` still overrides this."""
    QLoggingCategory.setFilterRules("qt.multimedia*=false")


def _audio_outputs(multimedia: Any) -> list[Any]:
    """The audio output devices, without the one warning Qt prints when there is no sound
    server ("PulseAudioService: pa_context_connect() failed"): the sentence beside the
    Play button already says there is no device. Other messages pass through."""

    def handler(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if message.startswith("PulseAudioService:"):
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            sys.stderr.write(message + "\n")

    previous = qInstallMessageHandler(handler)
    try:
        return list(multimedia.QMediaDevices.audioOutputs())
    finally:
        qInstallMessageHandler(previous)
