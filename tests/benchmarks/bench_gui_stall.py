"""Benchmark: the GUI thread never blocks while the big lidar study's report runs.

Run on purpose::

    .venv/bin/python tests/benchmarks/bench_gui_stall.py [--sweeps N] [--default-budget]
        [--labeling ITEMS] [--spans DOCS] [--project FOLDER] [--where] [--no-reference]

(``--where``: after each of the longest stalls, the innermost lines of Accord's code the
other threads were at when the GUI thread got the lock back, i.e. at or just past the C
call that held it, and what the GUI thread and the worker ran during it, sampled every
2 ms; ``--no-reference``: skip the synchronous run, minutes at a million.)

(offscreen by default; ``QT_QPA_PLATFORM=xcb xvfb-run -a ...`` to include the 3D view,
which needs OpenGL.)

The study is the one of ``bench_lidar_study.py`` (its generator: 2,000 sweeps × 3
annotators × 40 cuboids) and, unless ``--default-budget``, it is opened with the same
comparison budget as that benchmark, so every sweep is scored and the report takes
seconds: the case where a blocked GUI thread would show.

Measured:

- **stall**: a 10 ms heartbeat ``QTimer`` on the GUI thread records when it fires while
  the window opens the project through its worker pool (``MainWindow.open_path``) and
  the result reaches every view; the longest gap between two beats is the longest
  stall (goal < 50 ms).
- **launch**: a fresh process creates the application and the window, shows it and
  starts opening the project; the time from before the process was started to the
  window's first paint event (goal < 2 s).
- **reference, same run**: the same report run synchronously on the GUI thread
  (``progress.run`` then ``set_context``), which is what a naive window does; its stall
  is the whole report. The printed ratio is reference stall / worker stall.

Measured on this 2-core machine (offscreen, 2,000 sweeps): launch to first paint
0.31-0.35 s; open through the worker 5.2-5.6 s with a longest stall of 22-37 ms, the same
time as the synchronous reference, whose stall is the whole report (5.2-5.4 s; ratio
146-239x). What it took: the Potato reader parses ``user_state.json`` piecewise and
freezes the collector after reading (single C calls of 60-270 ms held the interpreter
lock), and the GUI sets a 1 ms interpreter switch interval (``app.ui.app``): a repaint
calls Python many times and, at the default 5 ms, each call could wait 5 ms for the
worker (60-140 ms stalls). The longest gaps are printed with when they happened.

Later (issue 17, 2026-12-03, the same machine, busier): the lidar study 70-92 ms, all of
it on the GUI thread after the result arrived (the worker's own stalls under 50 ms: a
depth count that called numpy thousands of times in a row, letting go of the lock and
taking it back inside each call, starved the GUI thread 40-200 ms; it now uses C
iterators for short texts); ``--labeling 1000000`` with the JSON Lines store 70 ms (GUI
side after the result; the worker's longest 54 ms, a million-entry dict's last resize);
with the ``engine.sqlite`` store 147 ms (the worker: dict resizes and SQLite fetches of
a million rows; single C calls over a million rows were sliced, 182 ms before).

Then (2026-12-03, session 10): the lidar study 38-43 ms offscreen (goal met), after the
cuboids view drew header and legend and the canvas on two turns, the count note's second
label layout resumed from the first and the docks were arranged before the views drew;
under Xvfb with Mesa's software OpenGL (``QT_QPA_PLATFORM=xcb``) 100-110 ms, the first
OpenGL paint of a sweep (lines 27 ms, the labels' image 34 ms, Mesa's composition of
the window 26 ms; the labels' text drawn through OpenGL had been another 70 ms).
``--labeling 1000000``, JSON Lines: the GUI side after the result 39 ms (the window's
and the contracts panel's steps chained by zero-delay calls ran back to back with no
timer in between: they now wait on a 1 ms timer), the worker's longest 59 ms (the last
resize of the million-entry dict of items, one C call); ``engine.sqlite``: after the
result 53 ms, the worker's longest 100-190 ms (the resizes of million-entry dicts and
sets, slowed by SQLite's threads sorting beside them).

Then (session 11, a slow hour of the same machine): ``engine.sqlite`` at a million items,
the worker's longest 55-72 ms, after the result 51-93 ms (two runs). One SQLite thread
works beside the read instead of three, ppi no longer builds a million-entry set, and
selective_risk's coverage no longer codes a million ``"*"``. Left: the last resize of
each million-entry dict (the items' lookups: 52-60 ms each) and numpy calls over three
million rows (``merged_order``: 72 ms), each one C call that holds the lock.

Then (session 12): the tiers of ``engine.sqlite`` come from SQLite as joined texts (no
million rows fetched). In an hour when the old build (aadbdb9) stalled 237 ms and opened
in 31.6 s, this one stalled 188 ms and opened in 25.5 s; in a faster hour 77 ms (the
worker: ``sorted_strings`` of the study's items and a million-entry dict's last resize,
each 2-44 ms alone, lengthened by the SQLite thread and the reader sharing two cores
with the GUI thread), after the result 50 ms, open 18.0 s. Still over the goal.

Then (session 13): at the session's start (a slow hour) ``engine.sqlite`` at a million
items stalled 185 ms (open 27.6 s). What went: the tiers' and ``engine_item``'s
million-entry dicts (item → row, item → meta code: ``app.core.row_index``, found by a
walk or a binary search in the sorted ids), the tiers' million-float lists
(``app.core.float_list``), two of three sorts of the item ids (``string_order`` keeps
the last one), the coded table's search of its grid; the integrity check runs at nice
19; and one queue of next turns (``app.ui.views.turns``: the contracts panel's cards
and the window's views ran back to back past the heartbeat, 57 ms). Measured at the
end, two runs: longest stall 52-58 ms (open 15.5-19.0 s), after the result 30-37 ms.
Left, each 40-58 ms: the study's own million-entry dict of items (its last resize),
numpy calls over three million rows in the coded table, the coverage curves' lists.

Then (session 14): the worker's stalls had two causes besides long C calls. (1) A loop
of C calls that let go of the interpreter lock and take it back inside (numpy's string
conversions, SQLite's steps) never hands it to a waiting thread, which asks for it only
when no switch happened meanwhile: sorting a million ids starved the GUI thread 60-90 ms
every run; ``app.core.slices.let_others_run`` (``sleep(0)``) between slices ends that.
(2) Single calls that allocate or copy tens of megabytes: a joined tier's 28 MB of texts
made into strings (now fetched in four pieces), a list of three million Nones (77 ms;
now ``app.core.nones.Nones``), ``np.repeat``/``np.tile`` (they hold the lock; now
broadcast copies), an object-array comparison per ``ppi`` group. On the GUI thread, the
software 3D canvas lays a sweep's labels out on a turn before the paint (45-50 ms
together), and the contracts panel draws a coverage plot's curves a tier per turn (25-40
ms together). Measured at the end (offscreen): lidar 27-39 ms (21-34 ms in a faster half
hour), ``engine.sqlite`` at a million items 38-51 ms (the 51 in a run that opened in 18 s
instead of 13; 43-50 ms on the GUI thread after the result in the last, slower runs),
JSON Lines 38-56 ms. Left, each 35-56 ms in a slow half hour: the last resize of the
study's million-entry dict of items (one C call, ``datafiles.common_items``), freeing
the 305 MB of a JSON Lines ``predictions.jsonl`` once decoded (an anonymous ``mmap``
read and closed lets go of the lock: the way out), and GUI steps after the result.

Then (session 15): the bench had been run with ``PYTHONPYCACHEPREFIX`` set, which hides
the installed packages' ``.pyc`` files: scipy's modules were compiled on its import
thread during the open (one ``compile`` 67 ms), and with ``PYTHONDONTWRITEBYTECODE``
every Accord module the open imported was compiled too. The bench now compiles ``app/``
first, as an installed Accord has it, and refuses the prefix. Also gone: the study's
million-entry dict of items (``app.core.sharded``: dicts of about 65,000 keys, the last
resize a sixteenth), the 305 MB ``predictions.jsonl`` freed with the lock held (read
into an anonymous map, ``boundary.read_mapped``), ``engine_item``'s 17 MB row of joined
texts (four rowid ranges). Measured (offscreen): the lidar study 20-32 ms (four runs),
``engine.sqlite`` at a million items 34-39 ms (five), JSON Lines at a million items 35-54
ms (eleven; four at 50 or more, all in the last, slower half hour: a gap on the GUI side
near the end of the open, and one while the worker built the requests in Python, where
no C call of the worker's took over 15 ms; cause not found); launch 0.40-0.53 s. Under Xvfb
with Mesa's software OpenGL the lidar study still stalls 66 ms (191 ms on the first run,
Mesa compiling its shaders): the first OpenGL paint of a sweep, 44 ms of it in
``paintGL`` (labels laid out 12 ms and imaged 6 ms inside it, the lines, the image
drawn) and the rest Qt composing the window.

Then (session 16), found with ``perf`` (every thread's scheduling and a 4 kHz sample of
its stack, the whole machine) rather than a profile of Python's C calls. A long gap had
one of two shapes. (1) The GUI thread woke every 1.1 ms, found the lock held and slept
again: it was painting widgets made from Python, each of whose C++ virtual calls takes
the lock, and each time a busy worker kept it for the switch interval (the status bar
revealed 300 ms into an open, 25-45 ms). The interval is now 0.2 ms (``app.ui.app``;
a wait 0.4 ms instead of 1.2). (2) The worker held the lock inside one operation that
wrote fresh memory: on this virtual machine a first touch of a page costs 12.6 us (1.75
us for a page the kernel had used before), so copying a million-entry list into new
pages (a list grown by a comprehension, ``list(keys)``) or filling an 8 MB list of Nones
held the lock 20-30 ms. Those are not C calls to a profiler (an ``in`` over a list, a
comprehension's growth, freeing), which is why session 15 found no long call. Gone: ``""
in ids`` over a million ids, the Nones list and the copy of the keys
(``datafiles.common_items``, ``sharded``), the million labels listed for the coverage
curves' thresholds, the 305 MB map of ``predictions.jsonl`` unmapped at once (now
private and given back 16 MiB at a time). Under Xvfb a new sweep's labels are laid out
on a turn of their own, asked for by the sweep's first paint, and only the part of the
view they cover is imaged. Measured (offscreen, ``gaps over`` counts the spread): JSON
Lines at a million items 22-37 ms (five runs; after the result 19-37), ``engine.sqlite``
27-46 ms (nine runs; a tenth stalled 86 ms half a second in, not seen again), the lidar
study 18-20 ms; under Xvfb the lidar study 36-41 ms (three runs; 100 ms with Mesa's
shader cache emptied, its shaders compiled in the first paints); launch 0.34-0.45 s.
Then the answers view no longer walks a million items to find that none is answered
(22-24 ms on the GUI thread with ``engine.sqlite``) and the overview's metric tables
are not word-wrapped (a card laid out a third faster). Paired with the session's first
commit in the same half hour (three pairs each): JSON Lines 19-22 ms against 34-43,
``engine.sqlite`` 29-30 ms against 32-41; after the result 16-24 ms against 25-30.
Then the GUI's warm-up imports ``scipy.special``'s kernels (they were imported on a
thread of their own during the first open) and ``engine_item``'s ids are joined into one
object array a slice at a time (``np.concatenate`` of four held the lock 15-19 ms).
Measured at the end: JSON Lines 20-23 ms (four runs), ``engine.sqlite`` 24-33 ms (four;
22-33 in five more, 23-33 in three with a busy loop on one of the two cores), the lidar
study 17-18 ms offscreen and 33-49 ms under Xvfb (six runs, five under 40); launch
0.32-0.44 s. Left, 15-30 ms each here: big lists freed or copied in one operation
(first touches of fresh pages), and ``engine.sqlite``'s SQLite threads beside the worker.

Then (issue 37, 2026-12-05): ``--spans 10000`` opens the span benchmark's study
(``bench_span_metrics.make_study``: 10,000 documents × 3 annotators × 20 spans), written
by ``span_project.py`` as a Potato project in Potato's stored shape (the span importers'
writer); ``--project`` reuses a folder it wrote. Five runs (offscreen, load 0.5-4.8, γ
being sped up at the same time): open 61-119 s, longest stall 198-338 ms, 121-161 gaps
over 40 ms, all on the worker; after the result 35-102 ms (the project tree's 10,000
items 31 ms in a quiet minute, the items view 13-36, the spans list 17-35). Causes, by
``--where`` and a ``gc.callbacks`` log of the same run: (1) about 130 full collections
of the cyclic collector on the worker during γ, 40-280 ms each, walking what was
allocated since the reader's ``gc.freeze`` (the span table, γ's items and their chance
samples); with the collector off the open took 49-52 s and 2-6 gaps were over 40 ms.
(2) ``spans/f1.py`` ``exact_f1``: ``np.unique(keys, axis=0)`` over 600,000 spans sorts a
structured view holding the lock (196-338 ms); a ``lexsort`` of the columns and a diff
gives the same rows and lets go (a 1 ms gap beside it). (3) In two runs, 76-87 ms: token
κ's ``np.repeat`` over a 4,000,000-character chunk (``spans/kappa.py``, fresh pages).
All three fixed: the span kind runs its metrics and each batch of γ under ``gc_paused``
(``kinds/spans.py``; never across a yield), ``exact_f1`` sorts once with ``lexsort`` and
drops rows equal to the one before, ``CHUNK_CHARS`` is 500,000 (the four metrics 0.90 s
instead of 1.14 in ``bench_span_metrics.py``). Three runs (offscreen, load 0.8-0.9): open
47-50 s, longest stall 38-54 ms (42, 54, 38), 0-2 gaps over 40 ms; after the result 35
ms. The longest gaps left are the reader's, each as an annotator's folder is done
(``read_potato``, ``formats/potato/project.py``: 34-54 ms, at 0.5, 1.0 and 1.5 s), and
the report's last steps beside the GUI's (33-37 ms); none is in the span scoring now.

Then (issue 37, later that night): ``--where`` also samples every thread each 2 ms and
prints what the GUI thread and the worker ran during each of the 8 longest gaps, and the
bench pins glibc's heap thresholds as the ``accord`` command does
(``memory_tuning.tune_allocator``). Causes found and fixed, each a single step that held
the lock: the reader's ``data.decode`` of each 40 MB ``user_state.json`` (24-35 ms; now
decoded a 1 MB piece at a time, ``reading/json_file.py``) and the free of the parsed state
(47 ms; its ``instance_id_to_*`` mappings emptied 256 entries at a time,
``slices.empty_in_slices``); the span kind's ``spans_of``/``build_table`` under full
collections (20-30 ms; collector paused), the free of the spans read (21 ms; in slices),
``np.asarray`` of 600,000 offsets (22 ms; ``array_in_slices``), the free of what
``items_gamma`` prepared at each return (12 ms idle at 500 items, 20-33 busy; 100 items a
call now); ``char_tags``' first painting step over 1.5 million characters (15-31 ms; in
pieces of ``CHUNK_CHARS``). On the GUI thread after the result: the project tree's
10,000 rows (26-42 ms; 1,000 a turn), the spans view's list (20 ms; its order a turn
before, texts formatted for painted rows only), the items view's column fit (38 ms busy;
distinct texts measured once, without Qt indexes). Measured on the current γ (open 11-16
s), offscreen, five runs each, interleaved, load 1.8-2.3: without these fixes 50, 64,
58, 66, 65 ms (after the result 37-40 ms); with them 24, 25, 28, 44, 32 ms (after the
result 19-23); with the allocator pinned too (load 1.5-1.7) 24, 27, 21 ms, one or two
gaps over 20 ms per open. Last, ``build_table`` empties its 600,000-entry lists one by
one instead of freeing them at its return (11 ms idle, 20-36 ms busy): six runs (load
1.0-1.3) 28, 18, 22, 22, 23, 20 ms, 0-2 gaps over 20 ms, the longest now on the GUI
side after the result (the tree's turns of rows and the spans list, 18-28 ms). On the
older, slower γ (open 55-98 s, load 1.4-12): 137, 126, 64, 97, 48 ms before, 51, 39, 32,
36, 44 after. Gaps over 30 ms are left only in busy minutes (load 2 or more): in γ's
own code (``gamma_tuples.flat_tuples`` 35 ms, ``gamma_window.solve`` 29 ms, one each),
and gaps where the worker ran Python throughout (the GUI thread waiting for a core).
``--sweeps 50`` 16-21 ms and ``--labeling 2000`` 21 ms, as before.
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # beside bench_lidar_study.py
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout

import itertools

from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication

import app.ui.main_window as main_window
from app.ui.app import create_application
from app.ui.main_window import MainWindow
from app.ui.settings import Settings

STALL_GOAL_MS = 50.0
LAUNCH_GOAL_S = 2.0
BEAT_MS = 10


class Heartbeat(QObject):
    """A 10 ms timer on the GUI thread; the longest gap between beats is the stall."""

    def __init__(self) -> None:
        super().__init__()
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(BEAT_MS)
        self.timer.timeout.connect(self._beat)
        self.beats: list[float] = []
        self.where: dict[int, str] = {}
        """Beat index → what the other threads were running when a late beat came."""

    def _beat(self) -> None:
        now = time.monotonic()
        if self.beats and now - self.beats[-1] > WHERE_AFTER_S:
            self.where[len(self.beats)] = _other_threads()
        self.beats.append(now)

    def start(self) -> None:
        self.beats = [time.monotonic()]
        self.timer.start()

    def top_gaps(self, n: int = 5, sampler: Sampler | None = None
                 ) -> list[tuple[float, float, str]]:
        """The ``n`` longest gaps as (ms, seconds since the start, where the other
        threads were when the late beat came, and with a ``sampler`` what the threads
        ran during the gap), longest first."""
        gaps = [(1000.0 * (b - a), a - self.beats[0], self.where.get(k + 1, "")
                 + ("\n      during: " + sampler.during(a, b) if sampler else ""))
                for k, (a, b) in enumerate(itertools.pairwise(self.beats))]
        return sorted(gaps, reverse=True)[:n]

    def over(self, limits: tuple[int, ...] = (20, 30, 40)) -> dict[int, int]:
        """How many gaps were longer than each limit (ms): the spread of the stalls, which
        the longest alone hides."""
        gaps = [1000.0 * (b - a) for a, b in itertools.pairwise(self.beats)]
        return {limit: sum(g > limit for g in gaps) for limit in limits}

    def stop(self) -> float:
        """The longest gap in ms, counting up to now."""
        self.timer.stop()
        self.beats.append(time.monotonic())
        gaps = [b - a for a, b in zip(self.beats, self.beats[1:], strict=False)]
        return 1000.0 * max(gaps)


WHERE_AFTER_S = 0.03
"""A beat later than this records where the other threads are (``--where``)."""


class Sampler:
    """Every 2 ms, the innermost lines of Accord's code each thread is at (``--where``).

    Why beside the heartbeat's look at the end of a gap: that one names the worker's line
    just past a C call that held the lock, but a gap spent on the GUI thread itself (a
    view building a big model after the result arrived) or across many calls shows only
    in what the threads ran during it. The sampler takes the lock to look, so it sees the
    GUI thread only while that runs Python or waits in Qt, and the worker only between
    its C calls: a gap with no sample in it was one call."""

    def __init__(self) -> None:
        import threading

        self.samples: list[tuple[float, str, str]] = []
        """(when, the GUI thread's lines, the other threads' lines)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import threading

        main = threading.main_thread().ident
        me = threading.get_ident()
        while not self._stop.wait(0.002):
            frames = sys._current_frames()
            gui = _app_lines(frames.get(main)) if main in frames else ""
            others = "; ".join(x for ident, frame in frames.items()
                               if ident not in (main, me) and (x := _app_lines(frame)))
            self.samples.append((time.monotonic(), gui, others))

    def during(self, start: float, end: float) -> str:
        """The most frequent lines of each side between ``start`` and ``end``."""
        from collections import Counter

        inside = [(gui, others) for at, gui, others in self.samples if start < at < end]
        if not inside:
            return "no sample (one C call held the lock)"
        gui = Counter(g for g, _ in inside).most_common(2)
        other = Counter(o for _, o in inside).most_common(2)
        return (f"{len(inside)} samples; GUI: " + " | ".join(
                    f"{n}x {g or 'in Qt or idle'}" for g, n in gui)
                + "; worker: " + " | ".join(f"{n}x {o or '-'}" for o, n in other))


def _app_lines(frame: object, depth: int = 3) -> str:
    import traceback

    stack = [f for f in traceback.extract_stack(frame)  # type: ignore[arg-type]
             if "/app/" in f.filename]
    return " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}"
                      for f in reversed(stack[-depth:]))


def _other_threads() -> str:
    """The innermost frames of Accord's code on every other thread: right after a long
    stall, the worker is at (or just past) the line whose C call held the lock."""
    import threading
    import traceback

    main = threading.main_thread().ident
    out = []
    for ident, frame in sys._current_frames().items():
        if ident == main:
            continue
        stack = [f for f in traceback.extract_stack(frame) if "/app/" in f.filename]
        if stack:
            out.append(" < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}"
                                  for f in reversed(stack[-3:])))
    return "; ".join(out)


def wait(msecs: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(msecs, loop.quit)
    loop.exec()


def worker_open(window: MainWindow, project: Path,
                beat: Heartbeat) -> tuple[float, float, float]:
    """(stall ms, stall ms once the result arrived, seconds) of opening ``project``
    through the window's worker: the second is the GUI side alone (the result reaching
    the tree and every view); the first also counts the job's own effect on the GUI
    thread (the worker holding the GIL)."""
    loop = QEventLoop()
    window.project_loaded.connect(loop.quit)
    window.load_failed.connect(loop.quit)
    arrived: list[float] = []
    beat.start()
    started = time.monotonic()
    worker = window.open_path(project)
    worker.signals.finished.connect(lambda _: arrived.append(time.monotonic()))
    loop.exec()
    elapsed = time.monotonic() - started
    # The views' own deferred work after the result arrived counts too: the contracts
    # panel builds its cards a step per turn after the window has delivered the project.
    for _ in range(200):
        if not any(getattr(view, "building", False) for view in window.views.values()):
            break
        wait(25)
    wait(200)
    stall = beat.stop()
    after = [b for b in beat.beats if b >= arrived[0]] if arrived else []
    delivery = 1000.0 * max((b - a for a, b in itertools.pairwise(after)),
                            default=0.0)
    return stall, delivery, elapsed


def synchronous_open(window: MainWindow, project: Path, beat: Heartbeat,
                     options: object) -> tuple[float, float]:
    """(stall ms, seconds) of the same report run on the GUI thread (the reference)."""
    from app.core.progress import run
    from app.core.project import open_project

    loop = QEventLoop()
    took: list[float] = []

    def block() -> None:
        started = time.monotonic()
        data = run(open_project(project, options=options))  # type: ignore[arg-type]
        window.tree.show_project(data)
        window.set_context(window.context.with_(project=data))
        took.append(time.monotonic() - started)
        QTimer.singleShot(200, loop.quit)

    beat.start()
    QTimer.singleShot(20, block)
    loop.exec()
    return beat.stop(), took[0]


class FirstPaint(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.at: float | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.Paint and self.at is None:
            self.at = time.monotonic()
        return False


def launch_child(project: Path, settings_file: Path) -> int:
    """The child of the launch measure: print the monotonic time of the first paint."""
    app = create_application()
    window = MainWindow(Settings.at(settings_file), watch=False)
    painted = FirstPaint()
    app.installEventFilter(painted)
    window.show()
    window.open_path(project)
    while painted.at is None:
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
    print(f"painted {painted.at!r}", flush=True)
    window.close()
    return 0


def measure_launch(project: Path, tmp: Path) -> float:
    started = time.monotonic()
    done = subprocess.run([sys.executable, __file__, "--launch-child", str(project),
                           str(tmp / "launch.ini")], capture_output=True, text=True,
                          check=True, timeout=120)
    line = next(x for x in done.stdout.splitlines() if x.startswith("painted "))
    return float(line.split()[1]) - started


def compile_accord() -> None:
    """Accord's modules compiled to bytecode before the timing, as an installed Accord has
    them (pip writes the ``.pyc`` files; the bundle holds them). Where
    ``PYTHONDONTWRITEBYTECODE`` is set (this machine) a checkout otherwise compiles every
    module the open imports, each compile holding the interpreter lock, and the bench
    measured that. ``PYTHONPYCACHEPREFIX`` would also make the installed packages'
    bytecode unseen (scipy's modules compiled on its import thread: 67 ms in one call), so
    the bench refuses it."""
    import compileall

    if sys.pycache_prefix is not None:
        raise SystemExit("unset PYTHONPYCACHEPREFIX: the packages' own bytecode is then "
                         "unseen and compiling it would be measured")
    compileall.compile_dir(Path(__file__).resolve().parents[2] / "app", quiet=1)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sweeps", type=int, default=2000)
    parser.add_argument("--default-budget", action="store_true",
                        help="open with the GUI's default comparison budget")
    parser.add_argument("--labeling", type=int, metavar="ITEMS", default=0,
                        help="open a labelling study of ITEMS items (bench_label_status's "
                        "generator: 3 cascade tiers, all six contract kinds) instead")
    parser.add_argument("--spans", type=int, metavar="DOCS", default=0,
                        help="open the span study of bench_span_metrics (DOCS documents x 3 "
                        "annotators x 20 spans, a Potato project: span_project.py) instead")
    parser.add_argument("--project", type=Path, metavar="FOLDER",
                        help="open this already generated study (with --labeling or --spans: "
                        "that one) instead of generating it again")
    parser.add_argument("--where", action="store_true",
                        help="print where the worker was after each of the longest stalls "
                        "and what every thread ran during it")
    parser.add_argument("--no-reference", action="store_true",
                        help="skip the synchronous reference (a million items: minutes)")
    parser.add_argument("--launch-child", nargs=2, metavar=("PROJECT", "SETTINGS"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    # glibc's heap thresholds pinned as the accord command (and so the window) has them:
    # untuned, the freed temporaries' pages are given back and faulted in again inside
    # the C calls that hold the lock.
    from app.core.memory_tuning import tune_allocator

    tune_allocator()
    if args.launch_child:
        return launch_child(Path(args.launch_child[0]), Path(args.launch_child[1]))
    # The core is imported here, not at the top: the launch child must not pay for it.
    from bench_lidar_study import BUDGET, generate

    from app.core.agreement.sets.structured import SetOptions
    from app.core.project import open_project

    labeling, spans = args.labeling > 0, args.spans > 0
    options = None if args.default_budget or labeling or spans else SetOptions(
        thresholds={}, budget=BUDGET)
    if options is not None:  # what the window opens: the same job with the full budget
        main_window.open_project = functools.partial(open_project, options=options)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        project = args.project or tmp / ("labeling" if labeling else
                                         "spans" if spans else "lidar")
        if args.project is None and spans:
            from span_project import generate as generate_spans

            generate_spans(project, args.spans)
        elif args.project is None and labeling:
            from bench_label_status import generate as generate_labeling

            generate_labeling(project, args.labeling)
        elif args.project is None:
            generate(project, args.sweeps)
        compile_accord()
        launch = measure_launch(project, tmp)
        app = create_application()
        window = MainWindow(Settings.at(tmp / "bench.ini"), watch=False, dialogs=False)
        window.resize(1280, 800)
        ready = QEventLoop()
        window.views_ready.connect(ready.quit)
        window.show()
        ready.exec()  # the views are created after the first paint
        wait(300)
        beat = Heartbeat()
        sampler = Sampler() if args.where else None
        if sampler is not None:
            sampler.start()
        stall, delivery, took = worker_open(window, project, beat)
        if sampler is not None:
            sampler.stop()
        gaps, spread = beat.top_gaps(8 if args.where else 5, sampler), beat.over()
        reference, sync_took = (0.0, 0.0) if args.no_reference else \
            synchronous_open(window, project, beat, options)
        window.close()
        app.processEvents()
    budget = "default" if options is None else f"{BUDGET:,}"
    study = (f"the labelling study ({args.labeling:,} items x 3 cascade tiers, six contract "
             "kinds)" if labeling else
             f"the span study ({args.spans:,} documents x 3 annotators x 20 spans)" if spans
             else
             f"the lidar study ({args.sweeps} sweeps x 3 annotators x 40 cuboids, budget "
             f"{budget})")
    print(f"GUI on {study}, views: {', '.join(window.views) or 'none'}, platform "
          f"{QApplication.platformName()}")
    print(f"  launch to painted window: {launch:.2f} s (goal < {LAUNCH_GOAL_S:.0f} s)")
    print(f"  open through the worker: {took:.1f} s, longest GUI-thread stall {stall:.0f} ms "
          f"(goal < {STALL_GOAL_MS:.0f} ms); after the result arrived (tree and views) "
          f"{delivery:.0f} ms")
    print("  longest gaps (ms at s after the open started): "
          + ", ".join(f"{ms:.0f} at {at:.2f}" for ms, at, _ in gaps))
    print("  gaps over " + ", ".join(f"{limit} ms: {n}" for limit, n in spread.items()))
    if args.where:
        for ms, at, where in gaps:
            print(f"    {ms:.0f} ms at {at:.2f} s: {where or 'no other thread in app/'}")
    if not args.no_reference:
        print(f"  reference, the same report on the GUI thread: {sync_took:.1f} s, stall "
              f"{reference:.0f} ms; ratio {reference / stall:.0f}x")
    return 0 if stall < STALL_GOAL_MS and launch < LAUNCH_GOAL_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
