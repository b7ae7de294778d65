"""No text is cut at the screenshot sizes, in the window and in presentation mode.

Renders the real window with every real view at 1280×800 and 1920×1080 on the demos and
on every project Potato 2.12.1 wrote (``tests/data/potato_server``, ``potato_engine``),
raises each view in turn, and fails on any header section, tree column, combo box,
button or one-line label narrower than its text (:mod:`tests.ui.clipping`). A lead saw
"ount differen" in presentation mode, "agreement 0.3…" in the tree and a cut scheme box.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.paths import demo_studies
from app.ui.main_window import MainWindow
from app.ui.settings import Settings
from app.ui.views.registry import available_views
from tests.ui.clipping import clipped_texts
from tests.ui.shell_helpers import open_and_wait

SIZES = ((1280, 800), (1920, 1080))
DATA = Path(__file__).resolve().parents[1] / "data"
POTATO = tuple(sorted(f"{folder.parent.name}/{folder.name}"
                      for parent in ("potato_server", "potato_engine")
                      for folder in (DATA / parent).iterdir()
                      if (folder / "config.yaml").is_file()))
"""Every project Potato 2.12.1 wrote (its server with its simulator, its engine)."""
DEMOS = ("support_triage", "street_images", "speaker_turns", "lidar_sweeps",
         "sentiment_reviews", *POTATO)


def _path(name: str) -> Path:
    return DATA / name if "/" in name else demo_studies()[name]


def _opened(qtbot: QtBot, settings: Settings, demo: str, size: tuple[int, int]
            ) -> MainWindow:
    """The real window at ``size`` with the demo (or Potato's project) ``demo`` open."""
    window = MainWindow(settings, views=available_views(), watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    open_and_wait(qtbot, window, _path(demo))
    return window


def _settle(qtbot: QtBot) -> None:
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(30)


def _each_view(qtbot: QtBot, window: MainWindow) -> list[str]:
    found: list[str] = []
    for name, dock in window.dock_layout.docks.items():
        if dock.isHidden():  # a kind the project does not have
            continue
        window.dock_layout.raise_view(name)
        _settle(qtbot)
        found += [f"{name}: {text}" for text in clipped_texts(dock.widget())]
    found += [f"project tree: {text}" for text in clipped_texts(window.tree)]
    return sorted(set(found))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("demo", DEMOS)
def test_no_text_is_cut_in_the_window(qtbot: QtBot, settings: Settings, demo: str,
                                      size: tuple[int, int]) -> None:
    window = _opened(qtbot, settings, demo, size)
    _settle(qtbot)
    found = _each_view(qtbot, window)
    assert not found, "cut text:\n" + "\n".join(found)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("demo", DEMOS)
def test_no_text_is_cut_in_presentation_mode(qtbot: QtBot, settings: Settings, demo: str,
                                             size: tuple[int, int]) -> None:
    window = _opened(qtbot, settings, demo, size)
    window.presentation.enter()
    window.showNormal()  # the offscreen screen is 800 px: give the window the test's size
    window.resize(*size)
    _settle(qtbot)
    found = []
    for name, dock in window.dock_layout.docks.items():
        if dock.isVisible():
            found += [f"{name}: {text}" for text in clipped_texts(dock.widget())]
    window.presentation.leave()
    found = sorted(set(found))
    assert not found, "cut text:\n" + "\n".join(found)


def test_the_detector_sees_cut_text(qtbot: QtBot) -> None:
    """The check above must be able to fail: a squeezed label, combo and header are named."""
    from PySide6.QtWidgets import (
        QComboBox,
        QLabel,
        QTableWidget,
        QTableWidgetItem,
        QVBoxLayout,
        QWidget,
    )

    root = QWidget()
    qtbot.addWidget(root)
    layout = QVBoxLayout(root)
    label, combo, table = QLabel("agreement 0.345 over 40 items"), QComboBox(), QTableWidget(1, 1)
    combo.addItem("partially_resolved and more")
    table.setHorizontalHeaderLabels(["Count difference"])
    table.setItem(0, 0, QTableWidgetItem("partially_resolved"))
    table.setWordWrap(False)
    for widget in (label, combo, table):
        layout.addWidget(widget)
    root.resize(400, 300)
    root.show()
    label.setFixedWidth(40)
    combo.setFixedWidth(50)
    table.setColumnWidth(0, 30)
    _settle(qtbot)
    found = "\n".join(clipped_texts(root))
    assert "label 'agreement 0.345" in found
    assert "combo box 'partially_resolved" in found
    assert "header section 'Count difference'" in found
    assert "cell 'partially_resolved'" in found
    # A wrapping cell may wrap, but never break a word; the pair matrix's heads neither.
    table.setWordWrap(True)
    _settle(qtbot)
    assert "cell 'partially_resolved': a word needs" in "\n".join(clipped_texts(root))
    from PySide6.QtGui import QColor

    from app.ui.views.overview.heatmap import PairHeatmap

    heatmap = PairHeatmap()
    layout.addWidget(heatmap)
    names = [f"⚙ annotator_{k} (machine)" for k in range(6)]
    heatmap.set_matrix(names, [QColor("#888888")] * 6, {})
    heatmap.setFixedSize(200, 200)  # squeezed past its minimum (outside a scroll area)
    _settle(qtbot)
    assert "heatmap column head '⚙ annotator_0 (machine)'" in "\n".join(clipped_texts(root))
