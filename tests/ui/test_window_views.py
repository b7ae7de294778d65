"""The real window with every real view: open a demo through the worker and check what
the overview, items, traces and tiers views show, and the two export actions.

The view modules have their own detailed tests (given a context directly); this one
checks the wiring a user goes through: worker → main window → every view.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfReader
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

import app.ui.export_certificate as export_certificate_module
from app.core.agreement.report import agreement_report
from app.core.formats.potato.project import load_study
from app.core.progress import run
from app.paths import demo_studies
from app.ui.exporting.prepared import SETTINGS_KEY, PreparedDialog
from app.ui.main_window import MainWindow
from app.ui.settings import Settings
from app.ui.views.registry import available_views
from tests.ui.shell_helpers import copy_demo, open_and_wait


def real_window(qtbot: QtBot, settings: Settings) -> MainWindow:
    window = MainWindow(settings, views=available_views(), watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    return window


def test_every_view_is_docked(qtbot: QtBot, settings: Settings) -> None:
    window = real_window(qtbot, settings)
    assert set(window.views) == {"overview", "items", "cuboids", "tiers", "traces",
                                 "regions", "masks", "contracts", "answers", "spans",
                                 "numbers", "rankings", "matrices", "volumes", "tracks"}


def test_support_triage_through_the_worker(qtbot: QtBot, settings: Settings) -> None:
    window = real_window(qtbot, settings)
    data = open_and_wait(qtbot, window, demo_studies()["support_triage"])
    qtbot.waitUntil(lambda: window.views["overview"].header_text != "", timeout=5000)
    # The numbers shown are the CLI's: computed again here, independently of the window.
    expected = run(agreement_report(load_study(data.path), project=str(data.path)))
    alpha = expected.schemes["resolution"].metrics["alpha"]
    assert isinstance(alpha, float)
    overview = window.views["overview"]
    qtbot.waitUntil(lambda: f"{alpha:.3f}" in "\n".join(overview.card("resolution").texts()),
                    timeout=5000)
    items = window.views["items"]
    qtbot.waitUntil(lambda: len(items.column_texts(0)) > 0, timeout=5000)
    shown_items = set(items.column_texts(0))
    assert shown_items <= set(data.study.items) and len(shown_items) >= 30
    window.pick_scheme("step_correctness")
    window.pick_item("conv-009")
    traces = window.views["traces"]
    qtbot.waitUntil(lambda: traces.header_labels()[4:] == ["amara", "bruno", "dilnoza"],
                    timeout=5000)
    steps = data.study.items["conv-009"].steps["steps"]
    assert [traces.cell_text(r, 2) for r in range(len(steps))] == [s.text for s in steps]


def test_speaker_turns_tiers_through_the_worker(qtbot: QtBot, settings: Settings) -> None:
    window = real_window(qtbot, settings)
    data = open_and_wait(qtbot, window, demo_studies()["speaker_turns"])
    window.pick_scheme("turns")
    window.pick_item("clip_01")
    tiers = window.views["tiers"]
    answers = data.study.answers["turns"]["clip_01"]
    expected = [f"{tier} · {who}" for tier in ("events", "speaker") for who in sorted(answers)]
    qtbot.waitUntil(lambda: tiers.row_labels == expected, timeout=5000)


def test_export_report_and_certificate_from_the_file_menu(
        qtbot: QtBot, settings: Settings, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    project = copy_demo(tmp_path, "sentiment_reviews")
    window = real_window(qtbot, settings)
    open_and_wait(qtbot, window, project)
    report = tmp_path / "out" / "report.html"
    report.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *args: (str(report), "HTML"))
    window.menus.export_report.trigger()
    assert report.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    pdf = tmp_path / "out" / "certificate.pdf"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(pdf), "PDF"))
    told: list[tuple[bool, str]] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *args: told.append((False, args[2])))
    monkeypatch.setattr(export_certificate_module, "PreviewDialog",
                        lambda parent, image, path: _NoDialog())

    def fill_and_accept(dialog: PreparedDialog) -> int:
        asked.append(dialog.by_edit.text())
        dialog.for_edit.setText("  Acme   Labs ")
        dialog.by_edit.setText("J. Doe")
        return int(QDialog.DialogCode.Accepted.value)

    asked: list[str] = []
    monkeypatch.setattr(PreparedDialog, "exec", fill_and_accept)
    window.menus.export_certificate.trigger()
    qtbot.waitUntil(pdf.exists, timeout=30000)
    assert told == []
    reader = PdfReader(str(pdf))
    # The certificate names the study (its annotation_task_name), not the folder.
    page_one = reader.pages[0].extract_text()
    assert "Product\treview\tsentiment" in page_one
    # the GUI's --for/--by, whitespace tidied, on page 1; "by" remembered for next time
    assert "Prepared for Acme Labs · prepared by J. Doe" in " ".join(page_one.split())
    assert asked == [""]
    assert settings.store.value(SETTINGS_KEY) == "J. Doe"


class _NoDialog:
    def setAttribute(self, *args: object) -> None:  # noqa: N802 (Qt's name)
        pass

    def show(self) -> None:
        pass


@pytest.mark.parametrize(("demo", "shown"), [
    ("sentiment_reviews", {"answers"}),
    ("lidar_sweeps", {"cuboids"}),
    ("street_images", {"regions", "masks"}),
    ("support_triage", {"answers", "traces"}),
])
def test_only_the_detail_tabs_of_the_projects_kinds_show(
        qtbot: QtBot, settings: Settings, demo: str, shown: set[str]) -> None:
    """A labelling project of reviews opened on an empty 3D panel; now its tabs are its kinds."""
    window = real_window(qtbot, settings)
    open_and_wait(qtbot, window, demo_studies()[demo])
    details = {"cuboids", "tiers", "traces", "regions", "masks", "answers", "spans",
               "numbers", "rankings", "matrices"}
    visible = {name for name in details if window.dock_layout.docks[name].isVisible()}
    assert visible == shown
    top = {"overview", "items", "contracts"}
    assert all(window.dock_layout.docks[name].isVisible() for name in top)
