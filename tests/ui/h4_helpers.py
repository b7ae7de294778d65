"""Shared by the regions, masks and contracts view tests.

**A workaround, not a fix.** Under Python 3.11 with PySide6 6.12 and pyqtgraph 0.14,
adding, updating and removing pyqtgraph items loses references to ``Py_True`` (a
refcount bug in the bindings: adding and clearing one ``InfiniteLine`` 100 times makes
the interpreter abort at exit with "Fatal Python error: bool_dealloc"). A test session
that draws plots therefore aborts at exit even though every test passed. Adding
references that are never given back (``Py_IncRef``; a list of ``True`` would not do,
it is freed at shutdown before the lost references are) keeps the count above zero.
Python 3.12+ makes ``True`` immortal and needs none of this.
"""

from __future__ import annotations

import ctypes
import sys

EXTRA_REFERENCES = 200_000


def pin_bools(count: int = EXTRA_REFERENCES) -> int:
    """Add ``count`` permanent references to ``True`` and ``False`` (Python < 3.12)."""
    if sys.version_info >= (3, 12):
        return 0
    for value in (True, False):
        obj = ctypes.py_object(value)
        for _ in range(count):
            ctypes.pythonapi.Py_IncRef(obj)
    return count


PINNED = pin_bools()
