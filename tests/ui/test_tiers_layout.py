"""Sub-rows and IoU tag placement in the tiers view (issue 15).

Oracles: hand-made cases, a brute-force overlap depth (the most intervals sharing one
instant, found by checking every start point) for the number of lanes, and, on the
demo, the rendered tags and bars in device pixels against the rows' pixel spans.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRectF
from pytestqt.qtbot import QtBot

from app.core.agreement.drawing import Timeline
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext
from app.ui.views.tiers.layout import assign_lanes, lay_out, link_pairs
from app.ui.views.tiers.view import TiersView

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"


def overlaps(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """The rule the lanes keep: a shared stretch, or the same instant."""
    if a[0] == a[1] == b[0] == b[1]:
        return True
    return a[0] < b[1] and b[0] < a[1]


def depth(intervals: list[tuple[float, float]]) -> int:
    """Brute force: the most intervals sharing one point, with a segment taken as open
    (touching ends do not overlap) and an instant as its point; every candidate point (just
    after each start, and each instant) is checked against every interval."""
    best = 0
    for p, e in intervals:
        if p == e:  # an instant: the segments strictly around it and the same instants
            here = sum((a < p < b) or (a == b == p) for a, b in intervals)
        else:  # just after a start: the segments over it (no instant lies there)
            here = sum(a <= p < b for a, b in intervals if a < b)
        best = max(best, here)
    return best


@pytest.mark.parametrize(
    ("intervals", "want"),
    [
        ([(0, 2), (1, 3), (2, 4)], [0, 1, 0]),  # (2,4) reuses lane 0: touching ends
        ([(0, 10), (1, 2), (3, 4)], [0, 1, 1]),  # nested: both inside share lane 1
        ([(0, 1), (1, 2), (2, 3)], [0, 0, 0]),  # a chain of touching turns: one lane
        ([(3.26, 3.26), (3.26, 3.26)], [0, 1]),  # two identical instants
        ([(1, 5), (3, 3)], [0, 1]),  # an instant inside a segment
        ([(2, 2), (2, 4)], [0, 0]),  # an instant at a segment's start
        ([(5, 6), (0, 9), (1, 2)], [1, 0, 1]),  # order of input does not matter
    ],
)
def test_lanes_by_hand(intervals: list[tuple[float, float]], want: list[int]) -> None:
    starts, ends = np.array(intervals, dtype=float).T
    assert assign_lanes(starts, ends).tolist() == want


def test_lanes_never_share_overlaps_and_are_as_few_as_the_deepest_overlap() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 14))
        starts = np.round(rng.uniform(0, 10, n), 1)
        ends = starts + np.round(rng.choice([0.0, 0.3, 1.0, 2.5], n) * rng.random(n), 1)
        lanes = assign_lanes(starts, ends)
        ivs = list(zip(starts.tolist(), ends.tolist(), strict=True))
        for i in range(n):
            for j in range(i + 1, n):
                if overlaps(ivs[i], ivs[j]):
                    assert lanes[i] != lanes[j], (ivs[i], ivs[j])
        assert int(lanes.max()) + 1 == depth(ivs)


def hand_timeline() -> Timeline:
    """One tier, three annotators; ines has two overlapping segments; the pairs:
    ines-jonas (neighbours), ines-wei (rows 0 and 2: apart)."""
    segs = [(0, 1.0, 3.0), (0, 2.0, 4.0), (1, 1.2, 3.1), (2, 2.1, 4.2)]
    rects = np.array([[s, r + 0.1, e, r + 0.9] for r, s, e in segs])
    centre = np.column_stack([(rects[:, 0] + rects[:, 2]) / 2, (rects[:, 1] + rects[:, 3]) / 2])
    links = np.stack([np.stack([centre[0], centre[2]]), np.stack([centre[1], centre[3]])])
    return Timeline(
        rows=(("t", "ines"), ("t", "jonas"), ("t", "wei")),
        rects=rects,
        owner_row=np.array([0, 0, 1, 2]),
        labels=("a", "b", "c", "d"),
        unmatched=np.array([False, False, False, False]),
        links=links,
        link_iou=np.array([0.9, 0.8]),
    )


def test_a_hand_made_layout() -> None:
    data = hand_timeline()
    assert link_pairs(data).tolist() == [[0, 2], [1, 3]]
    layout = lay_out(data)
    assert layout.lanes.tolist() == [0, 1, 0, 0]
    # ines: two lanes (0-2), jonas 2-3, wei 3-4, then the ines-wei lane.
    assert [(r.y0, r.y1, r.source, r.pair) for r in layout.rows] == [
        (0.0, 2.0, 0, (-1, -1)),
        (2.0, 3.0, 1, (-1, -1)),
        (3.0, 4.0, 2, (-1, -1)),
        (4.0, pytest.approx(4.8), -1, (0, 2)),
    ]
    assert layout.rects[:, 1].tolist() == pytest.approx([0.1, 1.1, 2.1, 3.1])
    assert layout.neighbours.tolist() == [True, False]
    # ines-jonas: on the border between ines's and jonas's rows, on the line between them.
    (x, y), (a, b) = layout.tags[0], layout.lines[0]
    assert y == 2.0
    assert (x - a[0]) * (b[1] - a[1]) == pytest.approx((y - a[1]) * (b[0] - a[0]))
    # ines-wei: in the pair lane, over the overlap 2.1-4.0, no line through jonas's row.
    assert len(layout.lines) == 1
    assert layout.tags[1].tolist() == pytest.approx([3.05, 4.4])
    assert layout.strips[0, [0, 2]].tolist() == pytest.approx([2.1, 4.0])
    assert layout.tag_rows.tolist() == [[0, 1], [3, 3]]


@pytest.fixture(scope="module")
def speakers() -> ProjectData:
    return run(open_project(DEMO / "speaker_turns"))


def row_pixels(view: TiersView) -> list[tuple[float, float]]:
    item = view.timeline_item
    assert item is not None and view.tier_layout is not None
    t = item.deviceTransform(view.graphics.viewportTransform())
    return [
        (t.map(QPointF(0, r.y0)).y(), t.map(QPointF(0, r.y1)).y()) for r in view.tier_layout.rows
    ]


@pytest.mark.parametrize("scheme", ["turns", "speech"])
def test_every_tag_stays_in_its_pairs_rows_on_every_demo_item(
    qtbot: QtBot, speakers: ProjectData, scheme: str
) -> None:
    view = TiersView(backend="no playback in this test")
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    checked = 0
    for item_id in speakers.study.answers_for(scheme):
        view.show_context(ViewContext(project=speakers, item=item_id, scheme=scheme))
        view.graphics.grab()  # paint: the tags are placed at paint time
        item, layout = view.timeline_item, view.tier_layout
        assert item is not None and layout is not None
        spans = row_pixels(view)
        t = item.deviceTransform(view.graphics.viewportTransform())
        bars = [
            t.mapRect(QRectF(x0, y0, x1 - x0, y1 - y0)) for x0, y0, x1, y1 in layout.rects.tolist()
        ]
        for k, tag in item.shown_tags.items():
            own = set(layout.tag_rows[k].tolist())
            top, bottom = min(spans[r][0] for r in own), max(spans[r][1] for r in own)
            assert top - 0.5 <= tag.top() and tag.bottom() <= bottom + 0.5, (item_id, k)
            for b, bar in enumerate(bars):
                if layout.row_of_bar(b) not in own:
                    assert not tag.intersects(bar), (item_id, k, b)
            checked += 1
    assert checked >= 60


def test_the_reported_ines_wei_tag_is_off_jonass_row(qtbot: QtBot, speakers: ProjectData) -> None:
    """The lead's case: clip_01's ines-wei 0.86 sat on jonas's unmatched guest bar."""
    view = TiersView(backend="no playback in this test")
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    view.show_context(ViewContext(project=speakers, item="clip_01", scheme="turns"))
    view.graphics.grab()
    item, layout = view.timeline_item, view.tier_layout
    assert item is not None and layout is not None
    k = item.link_texts.index("0.86")
    lane = int(layout.tag_rows[k, 0])
    assert view.band_labels[lane] == "speaker · ines ↔ wei"
    jonas = view.band_labels.index("speaker · jonas")
    top, bottom = row_pixels(view)[jonas]
    tag = item.shown_tags[k]
    assert tag.top() >= bottom or tag.bottom() <= top


def test_overlapping_segments_of_a_row_never_cover_each_other(
    qtbot: QtBot, speakers: ProjectData
) -> None:
    view = TiersView(backend="no playback in this test")
    qtbot.addWidget(view)
    seen_sub_rows = 0
    for item_id in speakers.study.answers_for("turns"):
        view.show_context(ViewContext(project=speakers, item=item_id, scheme="turns"))
        layout = view.tier_layout
        assert layout is not None
        r = layout.rects
        for i in range(len(r)):
            for j in range(i + 1, len(r)):
                same_time = overlaps((r[i, 0], r[i, 2]), (r[j, 0], r[j, 2]))
                same_y = r[i, 1] < r[j, 3] and r[j, 1] < r[i, 3]
                assert not (same_time and same_y), (item_id, i, j)
        seen_sub_rows += int(layout.lanes.max()) > 0
    assert seen_sub_rows >= 3  # the demo has overlapping turns (cut-ins) on several clips
