"""Run one ``accord`` command in this process and judge it by the CLI's promise.

The promise (``cli.md``, issue 16): exit 0, or exit 2 with one line on stderr naming a
file; never a traceback, never a warning on stderr, never a write to the project, never
a hang. One more exit is in the spec: ``label status`` exits 1 for a damaged ledger
(``contracts.md``), with one stderr line naming ``ledger.jsonl``. In-process is about
ten times faster than a subprocess (no interpreter start, no numpy import per run),
which is what lets the suite try dozens of mutated projects.

:func:`run_accord` captures the exit code, stdout, stderr, any exception that escaped
``app.cli.main.main`` (that would be a traceback), every warning (recorded, never shown,
so pytest's ``filterwarnings = error`` does not turn a warning into an exception here),
and a hang (``SIGALRM`` after ``timeout`` seconds, which also interrupts a blocking
``open`` of a FIFO). :func:`tree_state` fingerprints a folder without opening anything
that is not a regular file, so a planted FIFO cannot block the fingerprint itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import signal
import stat
import time
import traceback
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

PROGRESS = re.compile(r"^\s*\d{1,3}% ")
"""A line of the CLI's progress bar (``app/report/progress_bar.py``: a line per tenth,
``f"{fraction:4.0%} {message}"``, when stderr is not a terminal and a run takes > 1 s)."""


HASHED_BYTES = 64 * 1024 * 1024
"""Files larger than this are fingerprinted by size and time, not read (the fuzzer's
sparse files are 600 MB of nothing; reading them would be the harness's memory, not
Accord's)."""


class HangError(Exception):
    """The command ran past its time limit (a FIFO opened, a loop that does not end)."""


@dataclass
class Outcome:
    """What one command did."""

    argv: tuple[str, ...]
    code: int | None
    stdout: str
    stderr: str
    escaped: str | None
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def problems(self, project: Path) -> list[str]:
        """Every way this run broke the promise (empty: it kept it)."""
        out: list[str] = []
        if self.escaped is not None:
            out.append(f"exception escaped: {self.escaped.strip().splitlines()[-1]}")
        if self.warnings:
            out.append(f"warning: {self.warnings[0]}")
        lines = [
            line for line in self.stderr.splitlines() if line.strip() and not PROGRESS.match(line)
        ]
        if self.code == 0:
            if lines:
                out.append(f"exit 0 but stderr says: {lines[0][:200]}")
        elif self.code == 2:
            if len(lines) != 1:
                out.append(f"exit 2 with {len(lines)} stderr lines: {lines[:3]}")
            elif not lines[0].startswith("accord: error: ") or str(project) not in lines[0]:
                out.append(f"exit 2 without naming a file of the project: {lines[0][:200]}")
        elif self.code == 1 and self.argv[:2] == ("label", "status"):
            # contracts.md: status exits 1 only for a damaged ledger, with a line naming it
            if len(lines) != 1 or "ledger.jsonl" not in lines[0]:
                out.append(f"exit 1 without one line naming the ledger: {lines[:3]}")
        elif self.escaped is None:
            out.append(f"exit {self.code}: {lines[-1][:200] if lines else ''}")
        return out


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise HangError


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_accord(argv: Sequence[str], *, timeout: float = 60.0) -> Outcome:
    """Run ``accord ARGV`` in this process (the entry point's ``main``)."""
    from app.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code: int | None = None
    escaped: str | None = None
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with (
                _time_limit(timeout),
                contextlib.redirect_stdout(out),
                contextlib.redirect_stderr(err),
            ):
                code = main(list(argv))
        except HangError:
            escaped = f"hang: no answer within {timeout:g} s"
        except SystemExit as exc:
            escaped = f"SystemExit({exc.code})"
        except BaseException:  # anything that escapes is the finding
            escaped = traceback.format_exc()
    return Outcome(
        tuple(argv),
        code,
        out.getvalue(),
        err.getvalue(),
        escaped,
        [f"{w.category.__name__}: {w.message}" for w in caught],
        time.perf_counter() - start,
    )


def tree_state(root: Path) -> dict[str, str]:
    """Every entry under ``root`` (relative path → kind and content hash), not following
    links and never opening anything but a regular file."""
    state: dict[str, str] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in sorted(dirs + files):
            path = Path(folder) / name
            rel = str(path.relative_to(root))
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                state[rel] = f"link {path.readlink()}"
            elif stat.S_ISREG(st.st_mode) and st.st_size > HASHED_BYTES:  # a planted sparse file
                state[rel] = f"file of {st.st_size} bytes, modified {st.st_mtime_ns}"
            elif stat.S_ISREG(st.st_mode):
                state[rel] = "file " + hashlib.sha256(path.read_bytes()).hexdigest()
            elif stat.S_ISDIR(st.st_mode):
                state[rel] = "dir"
            else:
                state[rel] = f"special {stat.S_IFMT(st.st_mode):o}"
    return state


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What was written: entries added, removed or changed."""
    out = [f"added {p}" for p in sorted(after.keys() - before.keys())]
    out += [f"removed {p}" for p in sorted(before.keys() - after.keys())]
    out += [f"changed {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
    return out


COMMANDS: tuple[tuple[str, ...], ...] = (("agreement", "{p}", "--json"), ("label", "status", "{p}"))
"""The two read-only commands every mutated project is run through."""


def check_project(project: Path, *, timeout: float = 60.0) -> tuple[list[Outcome], list[str]]:
    """Run every command of :data:`COMMANDS` on ``project``; the outcomes and the problems
    (each prefixed by its command), a write to the project counted as one."""
    before = tree_state(project)
    outcomes: list[Outcome] = []
    problems: list[str] = []
    for command in COMMANDS:
        argv = [part.format(p=project) for part in command]
        outcome = run_accord(argv, timeout=timeout)
        outcomes.append(outcome)
        name = " ".join(part for part in command if not part.startswith(("{", "-")))
        problems += [f"{name}: {p}" for p in outcome.problems(project)]
    written = changes(before, tree_state(project))
    if written:
        problems.append(f"wrote to the project: {written[:5]}")
    return outcomes, problems
