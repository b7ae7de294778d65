"""Pin glibc's heap thresholds so numpy's block temporaries are not paged in on every call.

Why
---
Vectorized kernels such as the exact cuboid IoU (:mod:`app.core.geometry.cuboids`) work
on blocks of a few thousand pairs: each numpy step makes a temporary of 30-300 KB, and
a block holds a few MB of them at its peak before freeing them all. glibc's ``malloc``
then gives the heap's top back to the system whenever more than ``M_TRIM_THRESHOLD``
is free there, and serves every request above ``M_MMAP_THRESHOLD`` with a fresh
``mmap``; the next block touches that memory again and the kernel zero-fills it page by
page. Both thresholds start at 128 KB and only grow as the process happens to free
large mapped arrays (glibc's dynamic threshold, up to 32 MB / 64 MB), so the kernel's
speed depended on what the process had done before (measured below; page faults counted
by ``ru_minflt``).

What it changes, for the whole process
--------------------------------------
:func:`tune_allocator` sets, once, through ``mallopt``:

- ``M_MMAP_THRESHOLD`` = :data:`MMAP_THRESHOLD` (4 MiB): blocks under 4 MiB come from
  the heap, blocks above it are still mapped and unmapped as before (a 100 MB array is
  returned to the system the moment it is freed).
- ``M_TRIM_THRESHOLD`` = :data:`TRIM_THRESHOLD` (32 MiB): up to 32 MiB of free memory
  may stay at the heap's top (per arena) instead of going back to the system at once.

Both lie inside the range glibc's own dynamic thresholds move in once the process has
freed a large array; here they hold from the start, so a computation's speed does not
depend on its history. Worker threads' arenas follow them too (the GUI computes there). The
price: the process may keep up to 32 MiB per arena that it no longer uses, and freed
blocks under 4 MiB in the middle of the heap are reused rather than returned.

Measured on 2 shared cores, one :func:`~app.core.geometry.cuboids.cuboid_iou_pairs` call
on 20,000 overlapping near-upright pairs (pitch and roll N(0, 0.002-0.05 rad)): in a
process that has freed no large array before, 15,000-19,000 page faults and 46-50 ms per
call untuned, 0-2 faults and 30-35 ms tuned (yaw-only pairs 4.0 ms either way). In
``tests/benchmarks/bench_identity.py --skip-study``, whose data generation frees large
arrays first (so glibc's own thresholds have grown somewhat), the first tilt measured
33 ms untuned against 28-30 ms tuned (157-161× Potato against 180-191×), the later ones
within noise.

It is glibc only (Linux): elsewhere (macOS, Windows, musl) it does nothing and says so by
returning ``False``. It is called by the command line's entry point
(:func:`app.cli.main.main`: the ``accord`` command, ``python -m app``, the frozen app and
the window) and by the benchmarks; the core never calls it by itself (a library must not
change its host's allocator).
"""

from __future__ import annotations

import ctypes
import os
import sys

MMAP_THRESHOLD = 4 << 20
"""Requests from this size up are served by ``mmap`` (glibc's default: 128 KB, rising)."""

TRIM_THRESHOLD = 32 << 20
"""Free memory kept at the top of a heap before it is returned (default 128 KB, rising)."""

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
"""``mallopt`` parameter numbers, from glibc's ``malloc.h``."""

_done: list[bool] = []


def tune_allocator() -> bool:
    """Set glibc's mmap and trim thresholds (module docstring); ``True`` when they are set.

    Idempotent: only the first call talks to the C library.
    """
    if not _done:
        _done.append(_set_thresholds())
    return _done[0]


def _set_thresholds() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False  # another C library (musl's mallopt does nothing)
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, ValueError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
