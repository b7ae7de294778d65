"""``next_turn``: one step per turn of the event loop, whatever chain it belongs to, with
the timers then due run in between (two chains of long steps at once made 57 ms stalls
when each step had its own timer)."""

from __future__ import annotations

import time
from itertools import pairwise

from PySide6.QtCore import QObject, Qt, QTimer

from app.ui.views.turns import next_turn


def _busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_two_chains_of_long_steps_let_a_timer_run_between_any_two(qtbot) -> None:  # type: ignore[no-untyped-def]
    owner = QObject()
    log: list[str] = []
    beats = QTimer()
    beats.setTimerType(Qt.TimerType.PreciseTimer)
    beats.setInterval(5)
    beats.timeout.connect(lambda: log.append("beat"))

    def chain(name: str, left: int) -> None:
        log.append(name)
        _busy(0.012)  # longer than the beat's interval: a beat is due after every step
        if left > 1:
            next_turn(owner, lambda: chain(name, left - 1))

    beats.start()
    next_turn(owner, lambda: chain("a", 4))
    next_turn(owner, lambda: chain("b", 4))
    qtbot.waitUntil(lambda: log.count("a") == 4 and log.count("b") == 4, timeout=5000)
    beats.stop()
    steps = [k for k, entry in enumerate(log) if entry != "beat"]
    assert all(later - earlier > 1 for earlier, later in pairwise(steps))
    assert [log[k] for k in steps] == ["a", "b"] * 4  # first asked, first run


def test_a_step_of_a_deleted_receiver_is_skipped(qtbot) -> None:  # type: ignore[no-untyped-def]
    kept, gone = QObject(), QObject()
    ran: list[str] = []
    next_turn(gone, lambda: ran.append("gone"))
    next_turn(kept, lambda: ran.append("kept"))
    gone.deleteLater()
    qtbot.waitUntil(lambda: ran == ["kept"], timeout=2000)
    qtbot.wait(20)
    assert ran == ["kept"]
