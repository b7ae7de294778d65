"""The tiers view on the speaker-turns demo: rows, bars, links, waveform, names.

Oracles: the study's own answers (segments counted and IoUs computed by hand from the
segment times, not through the agreement code), the WAV file read with ``wave``, and
pixels of the rendered widget.
"""

from __future__ import annotations

import time
import wave
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from app.core.agreement.drawing import Timeline
from app.core.objects import ObjectSet, Segment
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.palette import annotator_color
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.tiers.layout import lay_out
from app.ui.views.tiers.timeline import FILL_ALPHA, TimelineItem
from app.ui.views.tiers.view import TiersView

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"


@pytest.fixture(scope="module")
def speakers() -> ProjectData:
    return run(open_project(DEMO / "speaker_turns"))


@pytest.fixture(scope="module")
def lidar() -> ProjectData:
    return run(open_project(DEMO / "lidar_sweeps"))


def make_view(qtbot: QtBot, context: ViewContext) -> TiersView:
    view = TiersView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    view.show_context(context)
    qtbot.waitExposed(view)
    return view


def segments_of(project: ProjectData, scheme: str, item: str) -> dict[str, list[Segment]]:
    answers = project.study.answers_for(scheme)[item]
    out: dict[str, list[Segment]] = {}
    for name, answer in answers.items():
        assert isinstance(answer, ObjectSet)
        out[name] = [o for o in answer.objects if isinstance(o, Segment)]
    return out


def interval_iou(a: tuple[float, float], b: tuple[float, float]) -> float:
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = (a[1] - a[0]) + (b[1] - b[0]) - inter
    return inter / union


def test_one_row_per_tier_and_annotator_with_its_label(qtbot: QtBot, speakers: ProjectData) -> None:
    view = make_view(qtbot, ViewContext(project=speakers, item="clip_01", scheme="turns"))
    segments = segments_of(speakers, "turns", "clip_01")
    tiers = sorted({s.tier for segs in segments.values() for s in segs if s.tier})
    assert tiers == ["events", "speaker"]
    # One row per (tier, annotator), then per tier one pair lane for ines and wei, whose
    # rows are not neighbours (both tiers of clip_01 have an ines-wei match).
    expected = [
        label
        for t in tiers
        for label in [*(f"{t} · {a}" for a in sorted(segments)), f"{t} · ines ↔ wei"]
    ]
    assert view.row_labels == [f"{t} · {a}" for t in tiers for a in sorted(segments)]
    assert view.band_labels == expected
    ticks = view.plot.getAxis("left")._tickLevels[0]
    assert [label for _, label in ticks] == expected
    layout = view.tier_layout
    assert layout is not None
    assert [pos for pos, _ in ticks] == [(r.y0 + r.y1) / 2 for r in layout.rows]
    assert "6 rows" in view.header.text()


def test_every_segment_is_one_bar_in_its_annotators_colour(
    qtbot: QtBot, speakers: ProjectData
) -> None:
    view = make_view(qtbot, ViewContext(project=speakers, item="clip_01", scheme="turns"))
    item = view.timeline_item
    assert item is not None
    segments = segments_of(speakers, "turns", "clip_01")
    assert item.n_bars == sum(len(s) for s in segments.values()) == 17
    assert sum(len(rects) for _, rects in item.fills) == 17
    # The colour of a long bar, sampled in the rendered widget away from its text and
    # links: the annotator's colour at alpha FILL_ALPHA over the row background.
    image = view.graphics.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    data: Timeline = item.timeline
    rects = item.layout.rects
    annotators = speakers.study.annotators
    checked = 0
    for k, (x0, y0, x1, y1) in enumerate(rects.tolist()):
        if x1 - x0 < 0.5 or data.unmatched[k]:
            continue
        row = int(data.owner_row[k])
        if any(
            r != k
            and rects[r, 0] < x1
            and rects[r, 2] > x0
            and rects[r, 1] < y1
            and rects[r, 3] > y0
            for r in range(len(rects))
        ):
            continue  # overlapping bars would blend twice (sub-rows keep them apart)
        scene = item.mapToScene(QPointF(x0 + 0.8 * (x1 - x0), y0 + 0.15 * (y1 - y0)))
        p = view.graphics.mapFromScene(scene)
        pixel = image.pixelColor(p.x(), p.y())
        background = image.pixelColor(
            p.x(),
            round(
                view.graphics.mapFromScene(
                    item.mapToScene(QPointF(x0 + 0.8 * (x1 - x0), y0 - 0.08))
                ).y()
            ),
        )
        color = annotator_color(annotators.index(data.rows[row][1]))
        a = FILL_ALPHA / 255
        for got, want, bg in (
            (pixel.red(), color.red(), background.red()),
            (pixel.green(), color.green(), background.green()),
            (pixel.blue(), color.blue(), background.blue()),
        ):
            assert abs(got - (a * want + (1 - a) * bg)) <= 6
        checked += 1
    assert checked >= 5


def test_links_show_the_iou_of_their_two_segments(qtbot: QtBot, speakers: ProjectData) -> None:
    view = make_view(qtbot, ViewContext(project=speakers, item="clip_01", scheme="turns"))
    item = view.timeline_item
    assert item is not None
    data = item.timeline
    assert len(item.link_texts) == len(data.links) == 9
    for (a, b), text in zip(data.links.tolist(), item.link_texts, strict=True):
        ends = []
        for cx, cy in (a, b):
            k = next(
                k
                for k, r in enumerate(data.rects.tolist())
                if abs((r[0] + r[2]) / 2 - cx) < 1e-9 and abs((r[1] + r[3]) / 2 - cy) < 1e-9
            )
            ends.append((data.rects[k, 0], data.rects[k, 2]))
        assert text == f"{interval_iou(ends[0], ends[1]):.2f}"
    assert int(data.unmatched.sum()) == 5
    assert "9 matched pairs" in view.header.text() and "5 unmatched" in view.header.text()


def test_the_waveform_of_the_clip_is_on_top(qtbot: QtBot, speakers: ProjectData) -> None:
    view = make_view(qtbot, ViewContext(project=speakers, item="clip_02", scheme="turns"))
    assert view.wave_plot.isVisible()
    curves = view.wave_plot.listDataItems()
    assert len(curves) == 2
    path = DEMO / "speaker_turns" / "audio" / "clip_02.wav"
    with wave.open(str(path), "rb") as w:
        duration = w.getnframes() / w.getframerate()
        raw = np.frombuffer(w.readframes(w.getnframes()), dtype=np.uint8)
    xs, ys = curves[0].getData()
    assert xs[-1] == pytest.approx(duration)
    assert max(ys) == pytest.approx((raw.max() - 128) / 128)
    assert view.plot.viewRange()[0][1] == pytest.approx(duration, abs=0.01)
    assert f"audio {duration:.1f} s" in view.header.text()


def test_time_zooms_and_pans_rows_do_not(qtbot: QtBot, speakers: ProjectData) -> None:
    view = make_view(qtbot, ViewContext(project=speakers, item="clip_01", scheme="turns"))
    box = view.plot.getViewBox()
    assert box.state["mouseEnabled"] == [True, False]
    box.scaleBy(x=0.5, y=0.5)
    (x0, x1), (y0, y1) = box.viewRange()
    assert x1 - x0 < 5.0
    assert view.tier_layout is not None
    assert (y0, y1) == pytest.approx((0.0, view.tier_layout.height))
    assert view.wave_plot.viewRange()[0] == pytest.approx([x0, x1])


def test_presentation_mode_labels_rows_a_b_c(qtbot: QtBot, speakers: ProjectData) -> None:
    aliases = anonymous_aliases(speakers.study.annotators)
    view = make_view(
        qtbot,
        ViewContext(
            project=speakers,
            item="clip_01",
            scheme="turns",
            anonymous=True,
            aliases=aliases,
            font_scale=1.8,
        ),
    )
    assert view.band_labels == [
        "events · A",
        "events · B",
        "events · C",
        "events · A ↔ C",
        "speaker · A",
        "speaker · B",
        "speaker · C",
        "speaker · A ↔ C",
    ]
    for name in speakers.study.annotators:
        assert name not in " ".join(view.band_labels)


def test_a_scheme_without_tiers_has_one_row_per_annotator(
    qtbot: QtBot, speakers: ProjectData
) -> None:
    view = make_view(qtbot, ViewContext(project=speakers, item="clip_01", scheme="speech"))
    assert view.row_labels == list(speakers.study.annotators)
    assert view.band_labels == [*speakers.study.annotators, "ines ↔ wei"]
    assert "Scheme speech" in view.header.text()


def test_what_cannot_be_drawn_is_a_sentence(
    qtbot: QtBot, speakers: ProjectData, lidar: ProjectData
) -> None:
    view = make_view(qtbot, ViewContext())
    assert view.empty_message.startswith("No project is open") and view.graphics.isHidden()
    view.show_context(ViewContext(project=lidar))
    assert "no tiers or segments scheme" in view.empty_message
    view.show_context(ViewContext(project=speakers, item="nope"))
    assert view.empty_message == ""
    assert "Item nope has no answers" in view.message.text()
    view.show_context(ViewContext(project=speakers))
    assert "first item" in view.header.text() and view.graphics.isVisible()
    assert view.empty_message == ""


def test_thousands_of_segments_paint_quickly(qtbot: QtBot) -> None:
    rng = np.random.default_rng(7)
    n, rows = 20_000, 6
    starts = np.sort(rng.uniform(0, 3600, n))
    row = rng.integers(0, rows, n)
    rects = np.column_stack([starts, row + 0.1, starts + rng.uniform(0.2, 3, n), row + 0.9])
    centers = np.column_stack([(rects[:, 0] + rects[:, 2]) / 2, row + 0.5])
    links = np.stack([centers[:-1:2], centers[1::2]], axis=1)
    data = Timeline(
        rows=tuple(("t", f"a{k}") for k in range(rows)),
        rects=rects,
        owner_row=row,
        labels=tuple("speech" for _ in range(n)),
        unmatched=rng.random(n) < 0.1,
        links=links,
        link_iou=rng.random(len(links)),
    )
    view = TiersView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    colors = [QColor(annotator_color(k)) for k in range(rows)]
    started = time.perf_counter()
    item = TimelineItem(
        data, lay_out(data), colors, [f"{v:.2f}" for v in data.link_iou], view.font()
    )
    view.plot.addItem(item)
    view.plot.setXRange(0, 3600, padding=0)
    view.graphics.grab()
    elapsed = time.perf_counter() - started
    assert item.n_bars == n
    assert elapsed < 1.5, f"{elapsed:.2f} s to build and paint {n} bars"
