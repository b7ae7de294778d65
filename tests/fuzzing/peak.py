"""``python -m tests.fuzzing.peak ARGV``: run ``accord ARGV`` and record its peak memory.

The peak (``VmHWM`` of ``/proc/self/status``, in KB) is written to the file named by
``$ACCORD_PEAK_FILE``. Why not ``wait4``'s ``ru_maxrss``: Linux keeps a process's high
water mark across ``fork`` and ``exec``, so a command started from a large process (the
test suite, 900 MB by its end) reported the parent's size, not its own. ``VmHWM``
belongs to the address space, which ``exec`` replaces.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def peak_kb() -> int:
    """This process's peak resident memory since its ``exec``, in KB (0 if unknown)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    from app.cli.main import main as accord

    code = 1
    try:
        code = accord(sys.argv[1:])
    finally:
        target = os.environ.get("ACCORD_PEAK_FILE")
        if target:
            Path(target).write_text(str(peak_kb()), encoding="ascii")
    sys.exit(code)


if __name__ == "__main__":
    main()
