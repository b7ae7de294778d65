"""A preview of ``certify`` on a folder Accord must not write: the bundled demos.

A bundled demo lives in the installation (``resources/demo``), so Accord never writes a
ledger there; yet a demo whose contracts all say "not evaluated yet" shows nothing. The
preview evaluates every contract exactly as ``accord label certify`` would, against a
scratch copy of the project's ledger in a temporary folder that is deleted afterwards:
the numbers are the real ones, no look is recorded anywhere, and each contract says so.
It is for looking at a demo, not for certifying: a certificate reads recorded looks.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.core.contracts.ledger.format import HEAD_FILE, ledger_file
from app.core.formats.potato.project import ENGINE_DATABASE

PREVIEW_NOTE = ("preview of a read-only folder: evaluated as 'accord label certify' would, "
                "nothing recorded")


@contextmanager
def scratch_ledger(project: Path, scratch: Path) -> Iterator[Path]:
    """A folder whose ledger files are copies of ``project``'s (where a ledger would be
    written for it), for :meth:`~app.core.contracts.ledger.chain.Ledger.open`."""
    if (project / ENGINE_DATABASE).is_file():
        (scratch / ENGINE_DATABASE).touch()  # the ledger's place follows the store's kind
    for relative in (ledger_file(project), HEAD_FILE):
        source = project / relative
        if source.is_file():
            (scratch / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, scratch / relative)
    yield scratch
