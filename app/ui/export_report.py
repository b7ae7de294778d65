"""File › Export report…: the open project's agreement report as HTML, CSV or JSON.

The report already exists (``ProjectData.report``, computed when the project opened) and
rendering it takes milliseconds, so this runs on the GUI thread without a worker or a
progress bar. The writing itself is :func:`app.report.agreement_export.write_report`,
the same code as ``accord agreement -o``, atomic: a failed export leaves any earlier
file under that name as it was.

Choices where the spec is silent:

- The dialog suggests ``<project folder name>-agreement.html`` beside the project
  folder; HTML first, since it is the one to hand to a person.
- The format follows the suffix the user typed. A name with no known suffix
  (``report`` or ``report.txt``) gets the suffix of the selected filter appended
  (``report.txt.html``), as most desktop applications do, rather than an error.
- Success goes to the status bar when the parent is a main window (no dialog to click
  away), otherwise to an information box; failure is always a dialog with the same
  one-line message as the CLI's.
- Annotator names are written as they are, even in presentation mode: the export is a
  record of the study, not a slide.

Both the file dialog and the message are injectable, so tests drive this without a
modal dialog.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget

from app.core.errors import InputError
from app.core.project import ProjectData
from app.report.agreement_export import FORMATS, write_report
from app.ui.exporting.dialogs import AskPath, Notify, ask_save_path, notifier

FILTERS = {
    "html": "Standalone HTML report (*.html)",
    "csv": "CSV table, one number per row (*.csv)",
    "json": "JSON, as accord agreement --json (*.json)",
}
TITLE = "Export agreement report"

notify = notifier(TITLE)


def export_report(parent: QWidget | None, project_data: ProjectData, *,
                  ask: AskPath = ask_save_path, tell: Notify = notify) -> Path | None:
    """Ask for a file name, write the report there; the path written, or ``None``."""
    suggested = project_data.path.parent / f"{project_data.path.name}-agreement.html"
    name, chosen = ask(parent, TITLE, str(suggested), ";;".join(FILTERS.values()))
    if not name:
        return None
    path = Path(name)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        fmt = next((f for f, text in FILTERS.items() if text == chosen), "html")
        path = path.with_name(f"{path.name}.{fmt}")
    try:
        write_report(project_data.report, path, fmt)
    except InputError as error:
        tell(parent, False, f"The report was not written: {error}")
        return None
    tell(parent, True, f"Wrote the {fmt.upper()} agreement report to {path}")
    return path
