"""File › Import…: the preview, the annotator names, the import, its errors, the menu.

The real importers are written separately, so this module is itself a format: the
autouse fixture registers it in the importers' registry as ``fake``, and :func:`read`
turns each source (a JSON object of item → label, one file per annotator) into a tiny
study with a radio scheme and an image scheme, skipping an unknown label with a note.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

import app.ui.import_preview as import_preview
import app.ui.main_window as main_window
from app.cli.main import main as cli_main
from app.core.errors import InputError
from app.core.formats.importers import registry
from app.core.formats.importers.model import ImportedItem, ImportedScheme, ImportedStudy
from app.core.formats.importers.writer import write_project
from app.core.project import ProjectData
from app.ui.import_dialog import ImportDialog
from app.ui.import_preview import object_count
from app.ui.settings import Settings
from tests.ui.shell_helpers import make_window

FAKE = "fake"
LABELS = ("pos", "neg")
CALLS: list[tuple[list[Path], list[str], str]] = []
"""Every call of :func:`read`: sources, annotator names, the thread it ran on."""
GATE = threading.Event()
"""A source named ``slow.json`` waits for this (a read still running)."""


def _box(x: float) -> dict[str, Any]:
    return {"type": "bbox", "label": "car",
            "coordinates": {"x": x, "y": 0.1, "width": 0.2, "height": 0.3}}


def read(sources: Sequence[Path], annotators: Sequence[str]) -> ImportedStudy:
    """The ``fake`` format: ``{item: label}`` per source; a ``pos`` item has one box."""
    CALLS.append((list(sources), list(annotators), threading.current_thread().name))
    names = registry.annotator_names(sources, annotators)
    study = ImportedStudy(format=FAKE, schemes=[
        ImportedScheme("sentiment", "radio", {"labels": list(LABELS)}),
        ImportedScheme("boxes", "image_annotation", {"labels": ["car"], "tools": ["bbox"]})])
    for name, source in zip(names, sources, strict=True):
        if source.name == "slow.json":
            GATE.wait(10)
        try:
            answers = json.loads(source.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise InputError("expected a JSON object of item id → label",
                             file=source, line=error.lineno) from None
        mine = study.answers.setdefault(name, {})
        for item, label in answers.items():
            if label not in LABELS:
                study.notes.append(f"{name}: item {item} has label {label!r}, not one of "
                                   f"{', '.join(LABELS)}; skipped")
                continue
            study.items.setdefault(item, ImportedItem(item, {"text": f"text of {item}"}))
            mine[item] = {"sentiment": label,
                          "boxes": {"shapes": [_box(0.1)] if label == "pos" else []}}
    study.items = dict(sorted(study.items.items()))
    return study


@pytest.fixture(autouse=True)
def fake_format(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(registry.FORMATS, FAKE, "fake_for_tests")
    monkeypatch.setitem(sys.modules, "app.core.formats.importers.fake_for_tests",
                        sys.modules[__name__])
    CALLS.clear()
    GATE.clear()
    yield
    GATE.set()


@pytest.fixture
def export(tmp_path: Path) -> list[Path]:
    """Two annotators' files: ann answered t1, t2; bob t1, t3 and one unknown label."""
    folder = tmp_path / "export"
    folder.mkdir()
    ann = folder / "ann.json"
    ann.write_text(json.dumps({"t1": "pos", "t2": "neg"}), encoding="utf-8")
    bob = folder / "bob.json"
    bob.write_text(json.dumps({"t1": "pos", "t3": "pos", "t4": "??"}), encoding="utf-8")
    return [ann, bob]


@pytest.fixture
def errors() -> list[str]:
    return []


@pytest.fixture
def dialog(qtbot: QtBot, errors: list[str]) -> ImportDialog:
    dialog = ImportDialog(report=errors.append)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.set_format(FAKE)
    return dialog


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(main_window, "show_error", lambda parent, message: shown.append(message))
    return shown


def previewed(qtbot: QtBot, dialog: ImportDialog, sources: Sequence[Path]
              ) -> import_preview.Preview:
    with qtbot.waitSignal(dialog.preview_ready, timeout=10000) as ready:
        dialog.set_sources(sources)
    preview = ready.args[0]
    assert isinstance(preview, import_preview.Preview)
    return preview


def test_the_preview_lists_items_annotators_schemes_and_notes(
        qtbot: QtBot, dialog: ImportDialog, export: list[Path], errors: list[str]) -> None:
    preview = previewed(qtbot, dialog, export)
    panel = dialog.preview
    assert panel.summary.text() == "3 items · 2 annotators · 2 schemes"
    assert panel.schemes.text() == "Schemes: sentiment (radio), boxes (image_annotation)"
    assert panel.table_text() == [
        ["Annotator", "Items answered", "sentiment\nradio", "boxes\nimage_annotation"],
        ["ann", "2", "2 answers", "2 items · 1 shape"],
        ["bob", "2", "2 answers", "2 items · 2 shapes"],
    ]
    assert panel.notes.text() == "•  bob: item t4 has label '??', not one of pos, neg; skipped"
    assert preview.notes == ("bob: item t4 has label '??', not one of pos, neg; skipped",)
    assert dialog.import_button.isEnabled() and errors == []
    sources, names, thread = CALLS[-1]
    assert sources == export and names == []  # nothing edited: as `accord import` without names
    assert thread != threading.main_thread().name  # read on the pool, never the GUI thread


def test_default_names_are_the_file_stems_and_the_folder_is_beside_them(
        qtbot: QtBot, dialog: ImportDialog, export: list[Path]) -> None:
    taken = export[0].parent / "fake-import"
    taken.mkdir()
    (taken / "something").write_text("x")
    previewed(qtbot, dialog, export)
    assert dialog.table.names() == ["ann", "bob"]
    assert dialog.table.annotators() == []
    assert dialog.output() == export[0].parent / "fake-import-2"
    assert [dialog.format_box.itemData(i) for i in range(dialog.format_box.count())] == list(
        registry.FORMATS)
    assert dialog.format_box.itemText(0) == "Label Studio JSON  (labelstudio)"


def test_editing_an_annotator_name_changes_what_is_passed(
        qtbot: QtBot, dialog: ImportDialog, export: list[Path]) -> None:
    previewed(qtbot, dialog, export)
    with qtbot.waitSignal(dialog.preview_ready, timeout=10000) as ready:
        dialog.table.set_annotator(1, "robert")
    assert CALLS[-1][1] == ["ann", "robert"]  # the whole column, one name per source
    assert ready.args[0].annotators == ("ann", "robert")
    assert [row[0] for row in dialog.preview.table_text()[1:]] == ["ann", "robert"]
    assert dialog.preview.notes.text().startswith("•  robert: item t4")
    cell = dialog.table.item(1, 1)
    assert cell is not None and cell.font().italic()  # an edited name stands out
    with qtbot.waitSignal(dialog.preview_ready, timeout=10000):
        dialog.table.set_annotator(1, "bob")  # back to the default: no names passed
    assert CALLS[-1][1] == []


def test_import_writes_the_project_and_the_window_opens_it(
        qtbot: QtBot, settings: Settings, export: list[Path], tmp_path: Path,
        dialogs: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []

    def write(study: ImportedStudy, project: Path) -> Path:
        threads.append(threading.current_thread().name)
        return write_project(study, project)

    monkeypatch.setattr(import_preview, "write_project", write)
    window = make_window(qtbot, settings)
    dialog = window.import_study()
    assert dialog.isVisible() and dialog.pool is window.workers
    dialog.set_format(FAKE)
    project = tmp_path / "imported"
    dialog.set_output(project)
    previewed(qtbot, dialog, export)
    with qtbot.waitSignal(window.project_loaded, timeout=20000) as loaded:
        dialog.import_button.click()
    data = loaded.args[0]
    assert isinstance(data, ProjectData) and window.project is data
    assert data.path == project
    assert sorted(data.study.annotators) == ["ann", "bob"]
    assert sorted(data.study.items) == ["t1", "t2", "t3"]
    assert window.windowTitle() == "Accord — imported"
    assert window.status.coverage.text() == "3 items · 2 annotators · 2 schemes"
    assert (project / "annotation_output" / "bob" / "user_state.json").is_file()
    assert threads and threads[0] != threading.main_thread().name
    assert dialogs == []


def test_a_bad_source_is_the_clis_one_line_and_writes_nothing(
        qtbot: QtBot, dialog: ImportDialog, export: list[Path], tmp_path: Path,
        errors: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    bad = export[0].parent / "carol.json"
    bad.write_text('{"t1": "pos",\n "t2": ', encoding="utf-8")
    project = tmp_path / "never"
    dialog.set_output(project)
    with qtbot.waitSignal(dialog.preview_failed, timeout=10000) as failed:
        dialog.set_sources([*export, bad])
    message = failed.args[0]
    assert cli_main(["import", FAKE, *map(str, [*export, bad]), "-o", str(project)]) == 2
    assert capsys.readouterr().err.strip() == f"accord: error: {message}"
    assert message == f"{bad}:2: expected a JSON object of item id → label"
    assert dialog.preview.message.text() == message and "\n" not in message
    assert dialog.preview.message.isVisibleTo(dialog)
    assert not dialog.preview.table.isVisibleTo(dialog)
    assert not dialog.import_button.isEnabled() and dialog.study is None
    dialog.start_import()
    assert not project.exists() and list(tmp_path.iterdir()) == [export[0].parent]
    assert errors == []  # shown in the preview, not as a dialog per added file


def test_a_failed_write_is_the_one_error_dialog_and_leaves_the_folder(
        qtbot: QtBot, settings: Settings, export: list[Path], tmp_path: Path,
        dialogs: list[str]) -> None:
    project = tmp_path / "busy"
    project.mkdir()
    (project / "notes.txt").write_text("keep me")
    window = make_window(qtbot, settings)
    dialog = window.import_study()
    dialog.set_format(FAKE)
    dialog.set_output(project)
    previewed(qtbot, dialog, export)
    with qtbot.waitSignal(dialog.import_failed, timeout=10000) as failed:
        dialog.import_button.click()
    message = failed.args[0]
    assert dialogs == [message]
    assert message == (f"{project}: expected a new or empty folder for the project; it "
                       "exists and is not empty")
    assert dialog.status.text() == message
    assert sorted(p.name for p in project.iterdir()) == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["busy", "export"]
    assert window.project is None
    qtbot.waitUntil(lambda: dialog.import_button.isEnabled(), timeout=5000)
    assert dialog.isVisible()
    dialog.reject()


def test_a_change_drops_the_preview_still_being_read(
        qtbot: QtBot, dialog: ImportDialog, export: list[Path]) -> None:
    slow = export[0].parent / "slow.json"
    slow.write_text(json.dumps({"s1": "neg"}), encoding="utf-8")
    dialog.set_sources([slow])
    dialog.refresh_preview()
    qtbot.waitUntil(lambda: bool(CALLS), timeout=5000)  # the slow read has started
    assert dialog.working and dialog.busy.isVisible() and not dialog.import_button.isEnabled()
    previewed(qtbot, dialog, export)
    GATE.set()
    qtbot.waitUntil(lambda: not dialog.pool.workers, timeout=10000)
    assert dialog.preview.summary.text() == "3 items · 2 annotators · 2 schemes"
    assert dialog.preview.preview is not None
    assert dialog.preview.preview.annotators == ("ann", "bob")
    assert not dialog.busy.isVisible()


def test_the_action_is_in_the_file_menu(qtbot: QtBot, settings: Settings) -> None:
    window = make_window(qtbot, settings)
    file_menu = window.menuBar().actions()[0].menu()
    assert isinstance(file_menu, QMenu)
    assert window.menus.import_ in file_menu.actions()
    assert window.menus.import_.text() == "&Import…"
    assert window.menus.import_.shortcut().toString() == "Ctrl+I"
    window.menus.import_.trigger()
    found = window.findChild(ImportDialog)
    assert isinstance(found, ImportDialog) and found.isVisible()
    assert found.preview.message.text().startswith("Add the export's files")
    found.reject()


def test_objects_are_counted_in_structured_answers() -> None:
    assert object_count({"shapes": [_box(0.1), _box(0.2)]}) == 2
    assert object_count({"shapes": []}) == 0
    assert object_count({"annotations": {"words": [{}, {}], "turns": [{}]}}) == 3
    assert object_count({"events": {"0": {"start": 1.0}, "1": {"start": 2.0}}}) == 2
    assert object_count({"responsible_agent": "a", "decisive_step": 2}) == 1
    assert object_count([{"index": 0}, {"index": 3}]) == 2


def test_closing_the_dialog_while_it_reads_drops_the_result(
        qtbot: QtBot, settings: Settings, export: list[Path], dialogs: list[str]) -> None:
    window = make_window(qtbot, settings)
    dialog = window.import_study()
    dialog.set_format(FAKE)
    slow = export[0].parent / "slow.json"
    slow.write_text(json.dumps({"s1": "neg"}), encoding="utf-8")
    dialog.set_sources([slow])
    dialog.refresh_preview()
    qtbot.waitUntil(lambda: bool(CALLS), timeout=5000)
    dialog.reject()  # deleted on close (WA_DeleteOnClose) while the read still runs
    qtbot.waitUntil(lambda: window.findChild(ImportDialog) is None, timeout=5000)
    GATE.set()
    qtbot.waitUntil(lambda: not window.workers.workers, timeout=10000)
    assert window.project is None and dialogs == []
