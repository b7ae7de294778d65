"""The cyclic garbage collector paused while big acyclic data is built or scored.

Why its own module: the Potato reader, the project's open, the labelling report and the
span kind's scoring all pause the collector, and the span kind (in ``agreement``) must
not import the Potato reader (``formats``) that imports the kinds: a cycle.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of acyclic answers are built.

    Parsing and converting a 100,000-item study allocates millions of small dicts and
    tuples; each allocation burst triggers a full collection that finds nothing (the
    data hold no cycles), which made loading 2–4× slower. Reference counting still frees
    every dropped file at once; the collector is back on when reading ends or fails.

    Before it is back on, every object alive is moved to the collector's permanent
    generation (``gc.freeze``). Otherwise the millions of objects allocated while it was
    paused all sit in the youngest generation, and the first collections after reading
    walk all of them in single calls of 60–130 ms that hold the interpreter lock: the
    GUI, opening a project on a worker thread, froze for that long
    (``tests/benchmarks/bench_gui_stall.py``). Frozen objects are still freed by
    reference counting as soon as they are dropped; only a reference cycle among them
    would outlive its last use, and the study's data holds none.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
