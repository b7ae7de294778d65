"""Run a command under ``/usr/bin/time -v``: wall time, peak memory and its stdout."""

from __future__ import annotations

import re
import subprocess


def timed(command: list[str]) -> tuple[float, float, str]:
    """``(seconds, peak MiB, stdout)`` of ``command`` run in its own process."""
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True,
                          check=True)
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    assert wall is not None and rss is not None, done.stderr[-500:]
    hours, minutes, seconds = wall.groups()
    elapsed = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    return elapsed, int(rss.group(1)) / 1024.0, done.stdout
