"""The generator protocol for long work.

A computation that can take more than ~100 ms is written as a generator: it yields
:class:`Progress` now and then and *returns* its result (``StopIteration.value``). It
checks no flags and knows nothing of threads: the GUI runs it on a thread pool and
cancels between two yields; the CLI drives it with :func:`run` and draws a bar.

Generators compose with ``result = yield from other_job(...)``; use :func:`scaled` to
map a sub-job's progress into a slice of the caller's range.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Progress:
    """``done`` out of ``total`` steps, and what is being done, in words."""

    done: float
    total: float
    message: str = ""

    @property
    def fraction(self) -> float:
        return 0.0 if self.total <= 0 else min(1.0, max(0.0, self.done / self.total))


Job = Generator[Progress, None, T]


def run(job: Job[T], on_progress: Callable[[Progress], None] | None = None) -> T:
    """Drive ``job`` to completion on this thread and return its result."""
    while True:
        try:
            step = next(job)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        if on_progress is not None:
            on_progress(step)


def scaled(job: Job[T], start: float, stop: float, total: float) -> Job[T]:
    """Re-express a sub-job's progress as the slice ``[start, stop]`` of ``total``."""
    width = stop - start
    while True:
        try:
            step = next(job)
        except StopIteration as finished:
            return finished.value  # type: ignore[no-any-return]
        yield Progress(start + width * step.fraction, total, step.message)

