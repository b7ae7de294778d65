"""Jobs on the worker pool: results, progress, cancel at a yield, one error signal."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest
import shiboken6
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.core.errors import InputError
from app.core.progress import Job, Progress
from app.ui.workers import WorkerPool, error_message


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    workers = WorkerPool()
    yield workers
    assert workers.await_workers(5000)


def counting(n: int, seen: list[int]) -> Job[int]:
    total = 0
    for i in range(n):
        seen.append(i)
        total += i
        yield Progress(i + 1, n, f"step {i}")
    return total


def test_result_and_progress_arrive_on_the_gui_thread(qtbot: QtBot, pool: WorkerPool) -> None:
    results: list[tuple[int, str]] = []
    progress: list[Progress] = []
    seen: list[int] = []
    done: list[bool] = []
    pool.start(lambda: counting(10, seen), name="count",
               on_result=lambda r: results.append((r, threading.current_thread().name)),
               on_progress=progress.append, on_done=lambda: done.append(True))
    qtbot.waitUntil(lambda: done == [True], timeout=5000)
    assert results == [(45, threading.main_thread().name)]
    assert progress and progress[0] == Progress(1, 10, "step 0")
    assert pool.workers == ()


def test_a_job_done_before_the_caller_returns_still_reports(qtbot: QtBot,
                                                             pool: WorkerPool) -> None:
    """``on_done`` is connected before the job starts, so an instant job cannot finish
    unheard (a signal connected only after ``start`` returned could already be gone)."""
    started = threading.Event()
    done: list[bool] = []

    def instant() -> Job[int]:
        started.set()
        return 1
        yield  # a generator

    pool.start(instant, on_done=lambda: done.append(True))
    assert started.wait(5)
    pool.pool.waitForDone(5000)  # the job has emitted everything before we look
    qtbot.waitUntil(lambda: done == [True], timeout=5000)


def test_cancel_takes_effect_at_the_next_yield(qtbot: QtBot, pool: WorkerPool) -> None:
    started, release = threading.Event(), threading.Event()
    steps: list[int] = []
    closed: list[bool] = []

    def long_job() -> Job[str]:
        try:
            for i in range(1000):
                steps.append(i)
                if i == 3:
                    started.set()
                    release.wait(5)  # the step in progress when cancel comes
                yield Progress(i, 1000)
            return "finished"
        finally:
            closed.append(True)

    finished: list[object] = []
    worker = pool.start(long_job, on_result=finished.append)
    assert started.wait(5)
    with qtbot.waitSignals([worker.signals.cancelled, worker.signals.done], timeout=5000):
        worker.cancel()
        release.set()
    assert steps == [0, 1, 2, 3]  # step 3 completes, nothing after its yield runs
    assert closed == [True]  # the generator was closed: its finally ran
    assert finished == []


def test_an_exception_is_one_failed_signal_and_a_log_line(
        qtbot: QtBot, pool: WorkerPool, caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> Job[int]:
        yield Progress(0, 1)
        raise ZeroDivisionError("division by zero")

    errors: list[str] = []
    results: list[object] = []
    with caplog.at_level(logging.ERROR, logger="app.ui.workers"):
        done: list[bool] = []
        pool.start(broken, name="broken", on_error=errors.append, on_result=results.append,
                   on_done=lambda: done.append(True))
        qtbot.waitUntil(lambda: done == [True], timeout=5000)
    assert errors == ["ZeroDivisionError: division by zero"]
    assert results == []
    assert [r.message for r in caplog.records] == ["broken failed"]
    assert caplog.records[0].exc_info is not None  # the traceback is in the log


def test_bad_input_reads_as_on_the_command_line(qtbot: QtBot, pool: WorkerPool) -> None:
    error = InputError("expected a list", file="config.yaml", line=3)

    def bad() -> Job[int]:
        yield Progress(0, 1)
        raise error

    errors: list[str] = []
    done: list[bool] = []
    pool.start(bad, on_error=errors.append, on_done=lambda: done.append(True))
    qtbot.waitUntil(lambda: done == [True], timeout=5000)
    assert errors == ["config.yaml:3: expected a list"] == [error_message(error)]


def test_await_workers_cancels_and_waits(qtbot: QtBot) -> None:
    pool = WorkerPool()
    started = threading.Event()
    late: list[object] = []

    def endless() -> Job[None]:
        started.set()
        while True:
            yield Progress(0, 1)

    pool.start(endless, on_result=late.append, on_error=late.append)
    assert started.wait(5)
    assert pool.await_workers(5000)
    assert pool.pool.activeThreadCount() == 0
    qtbot.wait(20)
    assert late == []  # nothing is delivered after the pool was closed


def test_a_result_for_a_deleted_owner_is_dropped(qtbot: QtBot) -> None:
    """A view owning its pool can be deleted while a finished job's signals are queued:
    the result must not reach the dead view (CI once saw 'TracksView already deleted')."""
    owner = QWidget()
    pool = WorkerPool(owner)
    calls: list[str] = []

    def touch_owner(kind: str) -> None:
        owner.font()  # raises RuntimeError on a deleted widget
        calls.append(kind)

    def quick() -> Job[int]:
        return 7
        yield Progress(0, 1)  # pragma: no cover - makes this a generator

    pool.start(quick, on_result=lambda _: touch_owner("result"),
               on_done=lambda: touch_owner("done"))
    assert pool.pool.waitForDone(5000)  # finished and done are queued, not yet delivered
    shiboken6.delete(owner)
    qtbot.wait(50)  # deliver them: the pool is gone with its owner
    assert calls == []
