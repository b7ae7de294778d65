"""Bar labels in the tiers view: whole, elided with at least three characters, or hidden
(issue 15: "musi", "ho", "lau…" cut inside short bars).

Oracles: a monospace width function worked by hand, real font metrics, and the labels
painted in the rendered demo (their boxes against every other bar, in device pixels).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetricsF
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext
from app.ui.views.tiers.labels import ELLIPSIS, MIN_CHARS, fit_label
from app.ui.views.tiers.view import TiersView

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"


def mono(text: str) -> float:
    return 10.0 * len(text)


@pytest.mark.parametrize(
    ("text", "width", "want"),
    [
        ("host", 40, "host"),  # fits exactly
        ("host", 39, ""),  # "hos…" is 40: hidden, never "ho" or "ho…"
        ("host", 100, "host"),
        ("laughter", 79, "laught…"),  # 70 px
        ("laughter", 40, "lau…"),  # three characters and the ellipsis: 40 px
        ("laughter", 39, ""),
        ("music", 45, "mus…"),
        ("a b c", 40, "a b…"),  # "a b…" keeps three characters with the space
        ("ab cd", 40, ""),  # "ab…" would keep two: hidden
        ("speech", 0, ""),
    ],
)
def test_fit_label_by_hand(text: str, width: float, want: str) -> None:
    assert fit_label(text, width, mono) == want


def test_fit_label_with_real_font_metrics(qapp: object) -> None:
    metrics = QFontMetricsF(QFont())
    for text in ("host", "guest", "music", "laughter", "overlap", "speech"):
        for width in range(0, 160):
            got = fit_label(text, float(width), metrics.horizontalAdvance)
            assert metrics.horizontalAdvance(got) <= width or got == ""
            if got and got != text:
                assert got.endswith(ELLIPSIS) and len(got) - 1 >= MIN_CHARS
                assert text.startswith(got[:-1])
            if metrics.horizontalAdvance(text) <= width:
                assert got == text


@pytest.fixture(scope="module")
def speakers() -> ProjectData:
    return run(open_project(DEMO / "speaker_turns"))


@pytest.mark.parametrize("size", [(1280, 800), (700, 500)])
def test_painted_labels_fit_their_bar_and_no_bar_covers_them(
    qtbot: QtBot, speakers: ProjectData, size: tuple[int, int]
) -> None:
    view = TiersView(backend="no playback in this test")
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    metrics = QFontMetricsF(view.font())
    hidden = elided = 0
    for item_id in speakers.study.answers_for("turns"):
        view.show_context(ViewContext(project=speakers, item=item_id, scheme="turns"))
        view.graphics.grab()
        item, layout = view.timeline_item, view.tier_layout
        assert item is not None and layout is not None
        metrics = QFontMetricsF(item.font)
        t = item.deviceTransform(view.graphics.viewportTransform())
        bars = [
            t.mapRect(QRectF(x0, y0, x1 - x0, y1 - y0)) for x0, y0, x1, y1 in layout.rects.tolist()
        ]
        for k, label in enumerate(item.timeline.labels):
            if k not in item.shown_labels:
                hidden += 1
                assert label in item.bar_tips[k]  # the whole label is in the tooltip
                continue
            text, box = item.shown_labels[k]
            assert metrics.horizontalAdvance(text) <= box.width() + 0.01
            assert box.left() >= bars[k].left() and box.right() <= bars[k].right() + 0.01
            if text != label:
                elided += 1
                assert text.endswith(ELLIPSIS) and len(text) - 1 >= MIN_CHARS
            for j, bar in enumerate(bars):
                if j != k:
                    assert not box.intersects(bar.adjusted(1, 1, -1, -1)), (item_id, k, j)
    assert hidden > 0  # the demo has bars too short for any readable label
    if size == (700, 500):
        assert elided > 0
