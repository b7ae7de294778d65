"""File › Export consensus…: the open project's consensus as JSON Lines, on the pool.

The same rows as ``accord agreement PROJECT --consensus FILE.jsonl``
(:mod:`app.core.agreement.consensus`): per item and scheme the majority or Dawid–Skene
label with ties named, STAPLE masks as COCO RLE, matched-object consensus shapes, each
with who agreed. Built and written by one core job on the window's
:class:`~app.ui.workers.WorkerPool` (like File › Export certificate…) with a progress
dialog; the file is replaced atomically, so a failed or cancelled export leaves any
earlier file as it was.

Choices where the spec is silent:

- **The method is the file type chosen in the save dialog** ("majority, ties named" or
  "Dawid–Skene"): one dialog instead of two, and the choice is where the file is named.
- The dialog suggests ``<project folder name>-consensus.jsonl`` beside the project
  folder (in the home folder for a bundled demo, whose folder belongs to the app),
  never inside it; a path inside the project is refused with the CLI's message
  (Accord never writes into a project, and the watcher would reload on the write).
- A name without ``.jsonl`` gets it appended, as File › Export report… does.
- Thresholds are those of the report on screen (each set scheme's ``threshold``), so the
  clusters are the ones the window's agreement numbers count.
- Success goes to the status bar of a main window, else an information box; failure is a
  dialog with the same one-line message as the CLI.

The core is imported inside the functions: the menus build this module's action before
the window has imported numpy and scipy. File dialog and message are injectable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QMainWindow, QProgressDialog, QWidget

from app.ui.exporting.dialogs import AskPath, Notify, ask_save_path, notifier

if TYPE_CHECKING:
    from app.core.agreement.sets.structured import SetOptions
    from app.core.progress import Job
    from app.core.project import ProjectData

TITLE = "Export consensus"
FILTERS = {
    "majority": "Consensus by majority, ties named (*.jsonl)",
    "dawid_skene": "Consensus by Dawid-Skene (*.jsonl)",
}
METHOD_WORDS = {"majority": "majority", "dawid_skene": "Dawid-Skene"}

notify = notifier(TITLE)


@dataclass(frozen=True, slots=True)
class Written:
    path: Path
    method: str
    rows: int
    decided: int
    size: int


def report_options(project_data: ProjectData) -> SetOptions:
    """The thresholds the open report used, scheme by scheme."""
    from app.core.agreement.sets.structured import SetOptions

    thresholds = {
        name: float(result.extra["threshold"])
        for name, result in project_data.report.schemes.items()
        if name in project_data.study.schemes
        and isinstance(result.extra.get("threshold"), int | float)
    }
    return SetOptions(thresholds=thresholds)


def _build_and_write(project_data: ProjectData, method: str, path: Path) -> Job[Written]:
    from app.core.agreement.consensus.export import consensus_job
    from app.core.agreement.consensus.writer import write_consensus
    from app.core.progress import Progress, scaled

    job = consensus_job(project_data.study, method=method, options=report_options(project_data))
    result = yield from scaled(job, 0.0, 0.9, 1.0)
    yield Progress(0.9, 1.0, "writing")
    size = write_consensus(result.rows, path, project_data.path)
    return Written(path, method, len(result.rows), result.n_decided, size)


def export_consensus(
    parent: QWidget | None,
    project_data: ProjectData,
    pool: Any = None,
    *,
    ask: AskPath = ask_save_path,
    tell: Notify = notify,
    done: Callable[[Written | None], None] | None = None,
) -> None:
    """Ask for a file and a method, build and write the consensus (on ``pool`` if given)."""
    from app.core.agreement.consensus.writer import check_output
    from app.core.errors import InputError
    from app.core.progress import run

    def finish(written: Written | None) -> None:
        if done is not None:
            done(written)

    def failed(message: str) -> None:
        tell(parent, False, f"The consensus was not written: {message}")
        finish(None)

    def ok(written: Written) -> None:
        tell(
            parent,
            True,
            f"Wrote the {written.method} consensus to {written.path}: "
            f"{written.rows} rows, {written.decided} with a consensus",
        )
        finish(written)

    from app.ui.project_io import is_bundled

    folder = Path.home() if is_bundled(project_data.path) else project_data.path.parent
    suggested = folder / f"{project_data.path.name}-consensus.jsonl"
    name, chosen = ask(parent, TITLE, str(suggested), ";;".join(FILTERS.values()))
    if not name:
        finish(None)
        return
    method = next((m for m, text in FILTERS.items() if text == chosen), "majority")
    path = Path(name)
    if path.suffix.lower() != ".jsonl":
        path = path.with_name(f"{path.name}.jsonl")
    try:
        check_output(path, project_data.path, key=None)
    except InputError as error:
        failed(str(error))
        return
    if pool is None:
        try:
            written = run(_build_and_write(project_data, method, path))
        except InputError as error:
            failed(str(error))
            return
        ok(written)
        return
    progress = QProgressDialog("Building the consensus…", "Cancel", 0, 1000, parent)
    progress.setWindowTitle(TITLE)
    progress.setMinimumDuration(300)

    ended: list[bool] = []

    def step(p: Any) -> None:
        progress.setValue(round(p.fraction * 1000))

    def closed_ok(written: Written) -> None:
        ended.append(True)
        progress.close()
        ok(written)

    def closed_failed(message: str) -> None:
        ended.append(True)
        progress.close()
        failed(message)

    def closed() -> None:  # cancelled: nothing was written, nothing to say
        progress.close()
        if not ended:
            finish(None)

    worker = pool.start(
        lambda: _build_and_write(project_data, method, path),
        name="consensus",
        on_result=closed_ok,
        on_error=closed_failed,
        on_progress=step,
        on_done=closed,
    )
    progress.canceled.connect(worker.cancel)


def from_menu(window: QMainWindow, host: Any) -> None:
    """File › Export consensus…: the window's project on the window's worker pool."""
    project: ProjectData | None = host.project
    if project is None:
        notify(window, False, "Open a project first: there is no consensus to export.")
        return
    export_consensus(window, project, getattr(window, "workers", None))
