"""The next step of a long job on the GUI thread, run on a later turn of the event loop.

Why not ``QTimer.singleShot(0, ...)``: a zero-delay call is a posted event, and Qt's
GLib event loop serves posted events before timers (after a timer fires, timers wait
until the loop is idle). A chain of zero-delay steps (the window showing a new project
view by view, the contracts panel building its cards) therefore ran back to back with
no timer in between: the 10 ms heartbeat of ``tests/benchmarks/bench_gui_stall.py``
saw 55-60 ms gaps made of steps of 3-18 ms each, and so would any timer of the window
(a status animation, media playback). A 1 ms timer puts each step among the timers, in
order of when they fall due; the paint a step causes still comes first.

Why one queue: with a timer per step, two chains at once (the window's views and the
contracts panel's cards, after a million-item project arrived) still ran back to back.
When one chain's step ended, the other chain's timer had been due since before the
heartbeat's, so it ran first: a 16 ms card and then a 31 ms view made a 57 ms stall.
Here every step waits in one first-in, first-out queue and a single 1 ms timer runs one
step per turn, scheduled only once that step is done: between any two steps, whatever
chain they belong to, every timer then due gets its turn.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer

STEP_DELAY_MS = 1
"""The delay before a next step: the shortest real timer."""

_steps: deque[tuple[QObject, Callable[[], object]]] = deque()
_ticking = False  # the timer of the next step is started


def next_turn(receiver: QObject, step: Callable[[], object]) -> None:
    """Run ``step`` on a later turn of the event loop, after the steps asked for before
    it (not at all if ``receiver`` is deleted first)."""
    _steps.append((receiver, step))
    if not _ticking:
        _start()


def _start() -> None:
    global _ticking
    _ticking = True
    QTimer.singleShot(STEP_DELAY_MS, _run_one)


def _run_one() -> None:
    """Run the first step whose receiver still exists; the next waits for another turn."""
    global _ticking
    _ticking = False
    while _steps:
        receiver, step = _steps.popleft()
        if shiboken6.isValid(receiver):
            try:
                step()
            finally:
                if _steps and not _ticking:
                    _start()
            return
