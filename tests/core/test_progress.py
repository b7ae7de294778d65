"""The generator protocol and the CLI's progress bar."""

from __future__ import annotations

import io

from app.core.progress import Job, Progress, run, scaled
from app.report.progress_bar import ProgressBar


def _counting(n: int) -> Job[int]:
    for i in range(n):
        yield Progress(i, n, f"step {i}")
    return n * 10


def test_run_returns_the_result_and_reports_progress() -> None:
    seen: list[Progress] = []
    assert run(_counting(3), seen.append) == 30
    assert [p.done for p in seen] == [0, 1, 2]


def test_scaled_maps_into_a_slice() -> None:
    def outer() -> Job[int]:
        value = yield from scaled(_counting(4), 50, 100, 100)
        return value + 1

    seen: list[Progress] = []
    assert run(outer(), seen.append) == 41
    assert [p.done for p in seen] == [50.0, 62.5, 75.0, 87.5]
    assert all(p.total == 100 for p in seen)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_bar_is_silent_for_short_runs_and_draws_after_a_second() -> None:
    """In a log (not a terminal) the first line waits ten seconds: a short failing run
    leaves its one error line alone."""
    clock = FakeClock()
    stream = io.StringIO()
    bar = ProgressBar(stream, clock=clock)
    bar(Progress(1, 10, "reading"))
    clock.now = 9.5
    bar(Progress(2, 10, "reading"))
    assert stream.getvalue() == ""
    clock.now = 10.5
    bar(Progress(5, 10, "scheme sentiment"))
    bar(Progress(5, 10, "scheme sentiment"))  # same tenth: no second line in a log
    bar(Progress(10, 10, "done"))
    bar.close()
    assert stream.getvalue() == " 50% scheme sentiment\n100% done\n"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_bar_draws_after_a_second_in_place() -> None:
    clock = FakeClock()
    stream = _Terminal()
    bar = ProgressBar(stream, clock=clock)
    bar(Progress(1, 10, "reading"))
    assert stream.getvalue() == ""
    clock.now = 1.5
    bar(Progress(5, 10, "scheme sentiment"))
    bar.close()
    assert stream.getvalue().startswith("\r[" + "#" * 14 + "-" * 14 + "]  50% scheme sentiment")
    assert stream.getvalue().endswith("\n")
