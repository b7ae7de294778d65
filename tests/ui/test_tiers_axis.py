"""The tiers view's time axis and its marking of matched pairs whose labels differ
(issue 35, part 8), on a project Potato 2.12.1's server wrote and on the speaker demo.

Oracles: the segment times and labels read straight from the study's answers (not
through the drawing code), the data file's ``duration`` as written, the WAV's length
read with ``wave``, and the view's own ranges and painted tags.
"""

from __future__ import annotations

import json
import shutil
import wave
from pathlib import Path

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from app.core.objects import ObjectSet, Segment
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext
from app.ui.views.tiers.layout import differing_labels, item_duration, time_axis
from app.ui.views.tiers.timeline import DIFFERS_MARK
from app.ui.views.tiers.view import TiersView

ROOT = Path(__file__).resolve().parents[2]
TIMED = ROOT / "tests" / "data" / "potato_server" / "timed"
SPEAKERS = ROOT / "resources" / "demo" / "speaker_turns"


@pytest.fixture(scope="module")
def timed() -> ProjectData:
    return run(open_project(TIMED))


def segments(project: ProjectData, scheme: str, item: str) -> list[Segment]:
    out: list[Segment] = []
    for answer in project.study.answers_for(scheme)[item].values():
        assert isinstance(answer, ObjectSet)
        out += [o for o in answer.objects if isinstance(o, Segment)]
    return out


def make_view(qtbot: QtBot, context: ViewContext) -> TiersView:
    view = TiersView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    view.show_context(context)
    qtbot.waitExposed(view)
    qtbot.wait(30)
    return view


def test_the_length_comes_from_the_data_then_the_audio_then_the_segments() -> None:
    ends = np.array([2.0, 4.5])
    assert time_axis(9.0, 6.0, ends).end == 9.0 and time_axis(9.0, 6.0, ends).source == "data"
    assert time_axis(None, 6.0, ends).end == 6.0 and time_axis(None, 6.0, ends).source == "audio"
    assert time_axis(None, None, ends).end == 4.5
    assert time_axis(None, None, ends).source == "segments"
    past = time_axis(3.0, None, ends)  # a segment past the duration is never cut off
    assert (past.end, past.length) == (4.5, 3.0)
    assert item_duration({"duration": 5.5}) == 5.5
    assert item_duration({"duration": "7.25"}) == 7.25
    for bad in ({}, {"duration": 0}, {"duration": -1}, {"duration": True},
                {"duration": "soon"}, {"duration": float("nan")}, {"duration": [3]}):
        assert item_duration(bad) is None


def test_the_axis_runs_from_zero_without_audio_on_potatos_project(
    qtbot: QtBot, timed: ProjectData
) -> None:
    # t00 of Potato's timed project has no readable audio and its first segment starts
    # after 10 s: the axis still starts at 0 (it started at 1.2 s: the hidden waveform
    # plot, x-linked, shifted it) and ends at the last segment's end.
    view = make_view(qtbot, ViewContext(project=timed, scheme="speech", item="t00"))
    last = max(s.end for s in segments(timed, "speech", "t00"))
    (left, right), _ = view.plot.viewRange()
    assert left == pytest.approx(0.0, abs=1e-9)
    assert right == pytest.approx(last)
    assert view.ruler.viewRange()[0] == pytest.approx([0.0, last])
    assert "the last segment's end" in view.header.text()


def test_the_datas_duration_sets_the_axis_and_a_longer_segment_extends_it(
    qtbot: QtBot, tmp_path: Path
) -> None:
    project = tmp_path / "speakers"
    shutil.copytree(SPEAKERS, project)
    rows = [json.loads(line) for line in (project / "data" / "clips.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
    rows[0]["duration"] = 9.0  # longer than its audio
    rows[1]["duration"] = 1.0  # shorter than its segments
    (project / "data" / "clips.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    data = run(open_project(project))
    with wave.open(str(project / "audio" / "clip_01.wav")) as w:
        audio = w.getnframes() / w.getframerate()
    assert audio < 9.0
    view = make_view(qtbot, ViewContext(project=data, scheme="turns", item=rows[0]["id"]))
    assert view.plot.viewRange()[0] == pytest.approx([0.0, 9.0])
    assert "length 9.0 s (the item's duration)" in view.header.text()
    view.show_context(ViewContext(project=data, scheme="turns", item=rows[1]["id"]))
    last = max(s.end for s in segments(data, "turns", rows[1]["id"]))
    assert last > 1.0
    assert view.plot.viewRange()[0] == pytest.approx([0.0, last])
    assert f"a segment runs past it, to {last:.1f} s" in view.header.text()
    view.show_context(ViewContext(project=run(open_project(SPEAKERS)), scheme="turns",
                                  item="clip_01"))
    assert view.axis.source == "data"  # the demo's rows carry their duration


def test_a_matched_pair_with_different_labels_is_marked(qtbot: QtBot, timed: ProjectData) -> None:
    view = make_view(qtbot, ViewContext(project=timed, scheme="speech", item="t08"))
    item = view.timeline_item
    layout = view.tier_layout
    assert item is not None and layout is not None
    labels = item.timeline.labels
    differs = differing_labels(labels, layout.pairs)
    # The oracle: pairs whose two segments carry different labels, read from the bars.
    expected = [labels[i] != labels[j] for i, j in layout.pairs.tolist()]
    assert differs.tolist() == expected and any(expected) and not all(expected)
    assert view.differs == sum(expected)
    assert f"{sum(expected)} with different labels" in view.header.text()
    image = view.graphics.grab().toImage()  # paint: the tags are placed
    for k, odd in enumerate(expected):
        assert item.link_texts[k].startswith(DIFFERS_MARK) == odd
        if k in item.shown_tags:
            tag = item.shown_tags[k]
            centre = item.device.inverted()[0].map(tag.center())
            tip = item.tip_at(centre.x(), centre.y())
            assert ("labels differ" in tip) == odd
            i, j = layout.pairs[k].tolist()
            assert labels[i] in tip and labels[j] in tip
    odd_shown = [k for k, odd in enumerate(expected) if odd and k in item.shown_tags]
    assert odd_shown
    ratio = image.devicePixelRatio()

    def reddish(k: int) -> bool:
        tag = item.shown_tags[k]
        y = int(tag.center().y() * ratio)
        for x in range(int((tag.left() - 2) * ratio), int((tag.left() + 3) * ratio)):
            c = image.pixelColor(x, y)
            if c.red() > 150 and c.green() < 110 and c.blue() < 110:
                return True
        return False

    assert all(reddish(k) for k in odd_shown)
    assert not any(reddish(k) for k in item.shown_tags if not expected[k])
    # A bar of a differing pair says so in its tooltip.
    i, _ = layout.pairs[expected.index(True)].tolist()
    assert "labels differ" in item.bar_tips[i]
