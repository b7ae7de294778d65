"""A progress bar on stderr for the CLI, shown only once a run has taken a while.

Short runs print nothing; long ones redraw one line in place on a terminal (after a
second) or print a line per tenth into a log (after ten seconds), so CI logs stay
readable. The log waits longer because its lines stay: a run that fails on bad input
after a slow start (a loaded machine importing scipy) must still leave one line, the
error, not progress lines above it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from app.core.progress import Progress

WIDTH = 28
DELAY_SECONDS = 1.0
LOG_DELAY_SECONDS = 10.0


class ProgressBar:
    def __init__(self, stream: TextIO, *, clock: Callable[[], float] = time.monotonic,
                 delay: float | None = None) -> None:
        self._stream = stream
        self._clock = clock
        self._start = clock()
        self._shown = False
        self._last_tenth = -1
        self._tty = bool(getattr(stream, "isatty", lambda: False)())
        self._delay = delay if delay is not None else (
            DELAY_SECONDS if self._tty else LOG_DELAY_SECONDS)

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
