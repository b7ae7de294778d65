"""Which tabs a window opens on, for projects Potato 2.12.1 wrote (issue 35).

- Only the detail tabs of the kinds the project has show, and the bottom panel is
  raised on one of them (it opened on the 3D tab of a reviews project when the project
  loaded before the views were added, as in ``accord open --screenshot``).
- A labelling project (a labelling engine configured) opens on Contracts; any other
  project on the Overview.

Oracle: the kinds come from each project's ``config.yaml`` read here with PyYAML and
Potato's annotation types mapped by hand, not from Accord's report; which tab is raised
is read from the docks themselves (a raised tab is the only one of its group with a
visible region).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.settings import Settings
from app.ui.views.registry import available_views
from tests.ui.shell_helpers import open_and_wait

DATA = Path(__file__).resolve().parents[1] / "data"
TAB_OF_TYPE = {"radio": "answers", "select": "answers", "multiselect": "answers",
               "likert": "answers", "slider": "answers", "number": "numbers",
               "audio_annotation": "tiers", "video_annotation": "tiers",
               "temporal_grounding": "tiers", "tiered_annotation": "tiers",
               "trajectory_eval": "traces", "process_reward": "traces",
               "spatial_annotation": "cuboids", "image_annotation": "regions",
               "segmentation": "masks"}
DETAILS = {"cuboids", "tiers", "traces", "regions", "masks", "answers", "numbers"}
PROJECTS = ["potato_server/categorical", "potato_server/timed", "potato_server/traces",
            "potato_server/spatial", "potato_server/images",
            "potato_engine/sentiment_static", "potato_engine/labels_only_in_db"]


def expected_tabs(project: Path) -> tuple[set[str], bool]:
    config = yaml.safe_load((project / "config.yaml").read_text(encoding="utf-8"))
    tabs = set()
    for scheme in config["annotation_schemes"]:
        kind = scheme["annotation_type"]
        if kind == "image_annotation" and "brush" in scheme.get("tools", []):
            kind = "segmentation"  # painted masks
        tabs.add(TAB_OF_TYPE.get(kind, ""))
        if kind == "slider":  # its answers, and its numbers (Potato scores it as numbers)
            tabs.add("numbers")
    labelling = "labeling_engine" in config or (project / "labeling" / "engine.yaml").is_file()
    return tabs & DETAILS, labelling


def raised(window: MainWindow, names: set[str]) -> set[str]:
    docks: dict[str, QDockWidget] = window.dock_layout.docks
    return {n for n in names if docks[n].isVisible() and not docks[n].visibleRegion().isEmpty()}


@pytest.mark.parametrize("views_first", [True, False], ids=["views-first", "project-first"])
@pytest.mark.parametrize("name", PROJECTS)
def test_the_window_opens_on_tabs_the_project_has(
        qtbot: QtBot, settings: Settings, monkeypatch: pytest.MonkeyPatch, name: str,
        views_first: bool) -> None:
    project = DATA / name
    tabs, labelling = expected_tabs(project)
    if not views_first:  # the views come after the project, as a small project allows
        monkeypatch.setattr(MainWindow, "_warm_up", lambda self: None)
    window = MainWindow(settings, views=available_views() if views_first else None,
                        watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    open_and_wait(qtbot, window, project)
    if not views_first:
        assert not window.views_added
        window.add_views(available_views())
    qtbot.wait(50)
    docks = window.dock_layout.docks
    visible = {n for n in DETAILS if docks[n].isVisible()}
    assert visible == tabs
    if tabs:
        bottom = raised(window, DETAILS)
        assert len(bottom) == 1 and bottom <= tabs
    top = raised(window, {"overview", "items", "contracts"})
    assert top == ({"contracts"} if labelling else {"overview"})


def test_the_first_run_proportions_hold_at_a_larger_size(
        qtbot: QtBot, settings: Settings) -> None:
    """Laid out at 1280 px and then made 1920 px wide (``--size 1920x1080``), the window
    gave every extra pixel to the project tree; ``fit_sizes`` puts the first-run
    proportions back: a narrow tree, the summaries above the detail views."""
    window = MainWindow(settings, views=available_views(), watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    open_and_wait(qtbot, window, DATA / "potato_server" / "categorical")
    window.resize(1920, 1080)
    qtbot.wait(50)
    window.dock_layout.fit_sizes()
    qtbot.wait(50)
    tree = window.dock_layout.tree_dock.width()
    assert tree <= 0.25 * window.width()
    overview = window.dock_layout.docks["overview"]
    assert overview.width() >= 0.7 * window.width()


def test_a_first_run_window_keeps_its_proportions_when_maximised(
        qtbot: QtBot, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first-run window made larger (maximised) re-fits by itself: the tree stays
    narrow. Once the user presses on the window itself (a dock separator), the layout is
    theirs: a later resize no longer re-fits it."""
    window = MainWindow(settings, views=available_views(), watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    open_and_wait(qtbot, window, DATA / "potato_server" / "categorical")
    qtbot.waitUntil(lambda: window.views_added, timeout=20000)
    window.resize(1920, 1080)
    tree = window.dock_layout.tree_dock
    qtbot.waitUntil(lambda: tree.width() <= 0.25 * window.width(), timeout=3000)
    overview = window.dock_layout.docks["overview"]
    assert overview.height() >= 0.45 * window.height()  # not squashed to a strip

    separator = tree.geometry().right() + 2  # between the tree and the views
    QTest.mousePress(window, Qt.MouseButton.LeftButton, pos=QPoint(separator, 300))
    QTest.mouseRelease(window, Qt.MouseButton.LeftButton, pos=QPoint(separator, 300))
    assert not window.dock_layout.follows_window
    fits: list[bool] = []
    monkeypatch.setattr(window.dock_layout, "fit_sizes", lambda: fits.append(True))
    window.resize(1600, 1000)
    qtbot.wait(100)
    assert fits == []  # the user's layout: Qt's own resizing, no re-fit
