"""A progress bar on stderr for the CLI, shown only once a run has taken a second.

Short runs print nothing; long ones redraw one line in place (a terminal) or print a
line per tenth (a log file), so CI logs stay readable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from app.core.progress import Progress

WIDTH = 28
DELAY_SECONDS = 1.0


class ProgressBar:
    def __init__(self, stream: TextIO, *, clock: Callable[[], float] = time.monotonic,
                 delay: float = DELAY_SECONDS) -> None:
        self._stream = stream
        self._clock = clock
        self._start = clock()
        self._delay = delay
        self._shown = False
        self._last_tenth = -1
        self._tty = bool(getattr(stream, "isatty", lambda: False)())

    def __call__(self, step: Progress) -> None:
        if self._clock() - self._start < self._delay:
            return
        fraction = step.fraction
        if self._tty:
            filled = round(fraction * WIDTH)
            bar = "#" * filled + "-" * (WIDTH - filled)
            self._stream.write(f"\r[{bar}] {fraction:4.0%} {step.message[:40]:<40}")
        else:
            tenth = int(fraction * 10)
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
            self._stream.write(f"{fraction:4.0%} {step.message}\n")
        self._shown = True
        self._stream.flush()

    def close(self) -> None:
        """End the bar's line, if one was drawn."""
        if self._shown and self._tty:
            self._stream.write("\n")
            self._stream.flush()
