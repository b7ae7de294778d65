"""The rules of one open: what is asked of the core, and which selection survives it.

Pure functions, kept apart from :meth:`app.ui.main_window.MainWindow.open_path` (which
runs the open on the worker pool and delivers the result) so the rules read in one place:

- A certify (one contract, or every due one) or a scheduled look (the watcher saw the
  files change) is passed on to the core, except for a bundled demo (under
  ``resources/``): that would write a ledger into the installation. A demo is opened as
  a preview instead (:mod:`app.core.contracts.preview`): its contracts evaluated as
  certify would, nothing recorded.
- A project whose labels Potato 2.12's engine keeps (``engine.sqlite``) is never
  certified on its own by Accord's planner: Potato's own planner decides when its
  contracts are tested again, and a look spent by a file change could not be given
  back. Certify, asked for, still works (its looks continue after Potato's).
- Reopening the same project keeps the selected item and scheme where they still exist
  (else no item, the first scheme); another project starts on its first scheme.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.formats.potato.project import ENGINE_DATABASE
from app.ui.project_io import is_bundled

if TYPE_CHECKING:
    from app.core.project import ProjectData
    from app.ui.views.base import ViewContext


def open_options(path: Path, *, schedule: bool, certify: bool,
                 contract: str | None, retest: bool = False) -> dict[str, Any]:
    """The keyword arguments for ``app.core.project.open_project`` (a preview for a demo);
    ``retest`` (a certify's, the contracts view's Retest) only when set."""
    options: dict[str, Any] = {}
    if certify:
        options.update(certify=True, contract=contract)
        if retest:
            options["retest"] = True
    elif schedule and not (path / ENGINE_DATABASE).is_file():
        options["schedule"] = True
    if is_bundled(path):
        options = {"preview": True}
    return options


def reopened_context(previous: ViewContext, data: ProjectData) -> ViewContext:
    """``previous`` showing ``data``, with the selection that survives the open."""
    same = previous.project is not None and previous.project.path == data.path
    item = previous.item if same and previous.item in data.study.items else None
    scheme = (previous.scheme if same and previous.scheme in data.report.schemes
              else next(iter(data.report.schemes), None))
    return previous.with_(project=data, item=item, scheme=scheme)
