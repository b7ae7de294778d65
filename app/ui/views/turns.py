"""The next step of a long job on the GUI thread, run on a later turn of the event loop.

Why not ``QTimer.singleShot(0, ...)``: a zero-delay call is a posted event, and Qt's
GLib event loop serves posted events before timers (after a timer fires, timers wait
until the loop is idle). A chain of zero-delay steps (the window showing a new project
view by view, the contracts panel building its cards) therefore ran back to back with
no timer in between: the 10 ms heartbeat of ``tests/benchmarks/bench_gui_stall.py``
saw 55-60 ms gaps made of steps of 3-18 ms each, and so would any timer of the window
(a status animation, media playback). A 1 ms timer puts each step among the timers, in
order of when they fall due; the paint a step causes still comes first.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

STEP_DELAY_MS = 1
"""The delay before a next step: the shortest real timer."""


def next_turn(receiver: QObject, step: Callable[[], object]) -> None:
    """Run ``step`` on a later turn of the event loop (not at all if ``receiver`` is
    deleted first)."""
    QTimer.singleShot(STEP_DELAY_MS, receiver, step)
