"""Run core jobs (``app.core.progress`` generators) on a ``QThreadPool``.

Modelled on superqt's ``thread_worker`` (``superqt/utils/_qthreading.py``) but much
smaller, because our jobs all speak one protocol: a generator that yields
:class:`~app.core.progress.Progress` and returns its result.

- The runnable is a ``QRunnable``; its signals live on a separate ``QObject`` created on
  the GUI thread (a ``QRunnable`` cannot carry signals), so every slot runs on the GUI
  thread through a queued connection.
- Cancel sets a flag; it takes effect at the job's next ``yield`` (the generator is
  closed there, so its ``finally`` blocks run). A job is never killed mid-step.
- Every exception ends as exactly one ``failed(message)``: bad input
  (:class:`~app.core.errors.InputError`) with the same one-line text as the CLI, anything
  else as ``"<Type>: <message>"`` with its traceback logged (``logging``), so a thread
  never dies silently. ``done`` is always the last signal, whatever the outcome.

Choices where the design is silent:

- Progress is throttled to one signal per ``PROGRESS_INTERVAL`` seconds (plus the
  first): a job yielding per item would otherwise flood the GUI thread's event queue,
  which is itself a main-thread stall.
- :class:`WorkerPool` owns a private ``QThreadPool`` (not the global one), so closing a
  window waits for its own work only, and tests can check that nothing is left running.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from app.core.contracts.ledger.chain import LedgerDamagedError
from app.core.errors import InputError
from app.core.progress import Job, Progress

log = logging.getLogger(__name__)

PROGRESS_INTERVAL = 0.05
"""Seconds between two progress signals of one job."""

_POOLS: weakref.WeakSet[QThreadPool] = weakref.WeakSet()
"""Every pool a :class:`WorkerPool` made (the test suite checks they end idle)."""


def all_pools() -> list[QThreadPool]:
    """Every live thread pool created by a :class:`WorkerPool`."""
    return [pool for pool in list(_POOLS) if shiboken6.isValid(pool)]


class WorkerSignals(QObject):
    """What a worker reports; emitted from the pool thread, received on the GUI thread."""

    progress = Signal(object)
    """A :class:`~app.core.progress.Progress` (throttled)."""
    finished = Signal(object)
    """The job's result."""
    failed = Signal(str)
    """One line: what went wrong."""
    cancelled = Signal()
    done = Signal()
    """Always the last signal, after finished, failed or cancelled."""


def error_message(error: BaseException) -> str:
    """The one line shown for ``error``: the CLI's text for bad input and a damaged
    ledger, else the exception's type and text."""
    if isinstance(error, InputError):
        return str(error)
    if isinstance(error, LedgerDamagedError):
        return f"ledger damaged: {error}"  # its text ends with the acknowledge hint, once
    text = str(error) or "no details"
    return f"{type(error).__name__}: {text}"


class JobWorker(QRunnable):
    """One job on a pool thread; :meth:`cancel` stops it at its next ``yield``."""

    def __init__(self, factory: Callable[[], Job[Any]], name: str = "job") -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.signals = WorkerSignals()
        self.name = name
        self._factory = factory
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def run(self) -> None:
        signals = self.signals
        try:
            outcome = self._drive()
        except BaseException as error:  # every error becomes one signal, never a dead thread
            if isinstance(error, InputError | LedgerDamagedError):
                log.warning("%s failed: %s", self.name, error)
            else:
                log.error("%s failed", self.name, exc_info=error)
            signals.failed.emit(error_message(error))
        else:
            if outcome is _CANCELLED:
                log.info("%s cancelled", self.name)
                signals.cancelled.emit()
            else:
                signals.finished.emit(outcome)
        finally:
            signals.done.emit()

    def _drive(self) -> object:
        job = self._factory()
        last = 0.0
        try:
            while True:
                if self._cancel.is_set():
                    return _CANCELLED
                try:
                    step = next(job)
                except StopIteration as stop:
                    return stop.value
                now = time.monotonic()
                if isinstance(step, Progress) and now - last >= PROGRESS_INTERVAL:
                    last = now
                    self.signals.progress.emit(step)
        finally:
            job.close()


_CANCELLED = object()


class WorkerPool(QObject):
    """Starts jobs, keeps them alive until done, cancels and waits for them on close."""

    active_changed = Signal(int)
    """How many jobs are running now."""

    def __init__(self, parent: QObject | None = None, max_threads: int = 2) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        _POOLS.add(self.pool)
        self._workers: list[JobWorker] = []
        self._closed = False

    @property
    def workers(self) -> tuple[JobWorker, ...]:
        return tuple(self._workers)

    def start(self, factory: Callable[[], Job[Any]], *, name: str = "job",
              on_result: Callable[[Any], None] | None = None,
              on_error: Callable[[str], None] | None = None,
              on_progress: Callable[[Progress], None] | None = None,
              on_done: Callable[[], None] | None = None) -> JobWorker:
        """Run ``factory()`` on the pool; the callbacks run on the GUI thread.

        Every callback is connected here, before the job starts: a quick job can finish
        (and emit ``done``) before the caller could connect anything to the returned
        worker's signals, and a signal emitted with nothing connected is lost.
        """
        worker = JobWorker(factory, name)
        signals = worker.signals
        if on_result is not None:
            signals.finished.connect(lambda result: self._live() and on_result(result))
        if on_error is not None:
            signals.failed.connect(lambda message: self._live() and on_error(message))
        if on_progress is not None:
            signals.progress.connect(lambda step: self._live() and on_progress(step))
        signals.done.connect(lambda: self._forget(worker))
        if on_done is not None:
            signals.done.connect(lambda: shiboken6.isValid(self) and on_done())
        self._workers.append(worker)
        self.active_changed.emit(len(self._workers))
        self.pool.start(worker)
        return worker

    def cancel_all(self) -> None:
        for worker in self._workers:
            worker.cancel()

    def await_workers(self, msecs: int = -1) -> bool:
        """Cancel everything, wait up to ``msecs`` (−1: forever); True if all stopped.

        Once stopped, results still queued for the GUI thread are dropped (whoever closes
        the pool no longer wants them); :meth:`reopen` undoes that.
        """
        self.cancel_all()
        stopped = self.pool.waitForDone(msecs)
        if stopped:
            self._closed = True
            self._workers.clear()
        return stopped

    def reopen(self) -> None:
        """Accept results again after :meth:`await_workers` (a pool reused in tests)."""
        self._closed = False

    def _live(self) -> bool:
        """Results are wanted: the pool is open and still exists on the C++ side.

        A pool owned by a widget dies with it; a job already running then reports to a
        Python wrapper whose widget is gone, and must not call into it.
        """
        return not self._closed and shiboken6.isValid(self)

    def _forget(self, worker: JobWorker) -> None:
        if worker in self._workers:
            self._workers.remove(worker)
            if shiboken6.isValid(self):
                self.active_changed.emit(len(self._workers))
