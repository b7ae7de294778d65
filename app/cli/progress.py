"""Running a core job from the command line: its progress as a bar on stderr."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.core.progress import Job, T


def with_bar(job: Job[T]) -> T:
    """Drive ``job`` to its result, drawing its progress on stderr."""
    from app.core.progress import run
    from app.report.progress_bar import ProgressBar

    bar = ProgressBar(sys.stderr)
    try:
        return run(job, bar)
    finally:
        bar.close()
