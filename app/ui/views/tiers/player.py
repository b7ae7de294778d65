"""Playing an item's audio in the tiers view: a small state machine over a backend.

Why a state machine with an injected backend: Qt Multimedia is not always there (it is
in PySide6-Addons, not PySide6-Essentials; offscreen CI has no audio output), and a
view must then say so in a sentence rather than fail. :class:`Playback` owns the
position (the cursor follows it even with no backend: a click on the ruler still moves
it) and the state; the backend only makes sound. Tests drive it with a fake backend.

States: ``unavailable`` (no backend: the sentence says why), ``no_audio`` (the item has
no audio file), ``ready`` (loaded, paused or stopped), ``playing``, ``failed`` (the
backend reported an error: its sentence).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Signal


class PlayState(Enum):
    UNAVAILABLE = "unavailable"
    NO_AUDIO = "no_audio"
    READY = "ready"
    PLAYING = "playing"
    FAILED = "failed"


class Backend(Protocol):
    """What :class:`Playback` needs from a media player (seconds throughout)."""

    def attach(
        self,
        on_position: Callable[[float], None],
        on_finished: Callable[[], None],
        on_error: Callable[[str], None],
    ) -> None: ...

    def load(self, path: Path) -> None: ...

    def play(self) -> None: ...

    def pause(self) -> None: ...

    def seek(self, seconds: float) -> None: ...


class Playback(QObject):
    """Play/pause/seek over ``backend``, or over nothing when ``backend`` is a sentence
    saying why there is none."""

    state_changed = Signal()
    position_changed = Signal(float)

    def __init__(self, backend: Backend | str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.backend: Backend | None = None if isinstance(backend, str) else backend
        self.why_not = backend if isinstance(backend, str) else ""
        self.state = PlayState.UNAVAILABLE if self.backend is None else PlayState.NO_AUDIO
        self.position = 0.0
        self.duration = 0.0
        self.path: Path | None = None
        self.error = ""
        if self.backend is not None:
            self.backend.attach(self._on_position, self._on_finished, self._on_error)

    # ------------------------------------------------------------------ commands

    def set_source(self, path: Path | None, duration: float) -> None:
        """A new item: stop, go back to 0, load its audio (``None``: it has none)."""
        if self.state is PlayState.PLAYING and self.backend is not None:
            self.backend.pause()
        self.path, self.duration, self.error = path, max(duration, 0.0), ""
        if self.backend is not None:
            if path is None:
                self.state = PlayState.NO_AUDIO
            else:
                self.backend.load(path)
                self.state = PlayState.READY
        self._move(0.0)
        self.state_changed.emit()

    def play(self) -> None:
        if self.state is not PlayState.READY or self.backend is None:
            return
        if self.position >= self.duration > 0:
            self.seek(0.0)
        self.backend.play()
        self.state = PlayState.PLAYING
        self.state_changed.emit()

    def pause(self) -> None:
        if self.state is not PlayState.PLAYING or self.backend is None:
            return
        self.backend.pause()
        self.state = PlayState.READY
        self.state_changed.emit()

    def toggle(self) -> None:
        self.pause() if self.state is PlayState.PLAYING else self.play()

    def seek(self, seconds: float) -> None:
        """Move the cursor (clamped to the clip) and, when there is audio, the sound."""
        t = min(max(seconds, 0.0), self.duration)
        if self.backend is not None and self.state in (PlayState.READY, PlayState.PLAYING):
            self.backend.seek(t)
        self._move(t)

    # ------------------------------------------------------------------ words

    @property
    def can_play(self) -> bool:
        return self.state in (PlayState.READY, PlayState.PLAYING)

    @property
    def sentence(self) -> str:
        """What the controls say beside the button."""
        if self.state is PlayState.UNAVAILABLE:
            return self.why_not
        if self.state is PlayState.NO_AUDIO:
            return (
                "This item has no audio file, so there is nothing to play; click the "
                "ruler to move the cursor."
            )
        if self.state is PlayState.FAILED:
            return f"The audio could not be played: {self.error}"
        return "Click or drag on the ruler to move the cursor."

    # ------------------------------------------------------------------ backend

    def _move(self, t: float) -> None:
        self.position = t
        self.position_changed.emit(t)

    def _on_position(self, seconds: float) -> None:
        if self.state is PlayState.PLAYING:
            self._move(min(max(seconds, 0.0), self.duration))

    def _on_finished(self) -> None:
        if self.state is PlayState.PLAYING:
            self.state = PlayState.READY
            self._move(self.duration)
            self.state_changed.emit()

    def _on_error(self, message: str) -> None:
        self.error = message or "the media backend gave no reason."
        self.state = PlayState.FAILED
        self.state_changed.emit()
