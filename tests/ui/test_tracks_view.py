"""The tracks view on the project Potato 2.12.1's server wrote (``tests/data/potato_server/
tracks``: video tracks and a lidar point-cloud sequence).

Oracles, never the view's own code: motmetrics' event log (MATCH, SWITCH, MISS, FP per
frame, one annotator as the reference) for the per-frame matching, the lanes' partners,
misses and switches; the ``user_state.json`` files read as JSON for the tracks' frame
ranges and the track ids of a frame's boxes; clear_mot's counts (themselves tested equal
to motmetrics and Potato) for the totals."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from app.core.agreement.identity import scoring
from app.core.agreement.identity.clear_mot import clear_mot
from app.core.agreement.identity.lanes import ItemLanes, item_lanes
from app.core.geometry.cuboids import cuboid_iou_matrices
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.tracks.model import lanes, runs
from app.ui.views.tracks.view import TracksView

ROOT = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "tracks"
SCHEMES = {"cars": (True, 0.5), "lidar": (False, 0.25)}


@pytest.fixture(scope="module")
def project() -> ProjectData:
    return run(open_project(ROOT))


def _stored(scheme: str) -> dict[str, dict[str, Any]]:
    """item → annotator → the stored answer of ``scheme``, as JSON."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(ROOT.glob("annotation_output/*/user_state.json")):
        state = json.loads(path.read_text())
        for item, entries in state["instance_id_to_label_to_value"].items():
            for key, value in entries:
                if key["schema"] == scheme:
                    out.setdefault(item, {})[path.parent.name] = json.loads(value)
    return out


def _scores(a: Any, b: Any, video: bool) -> dict[int, np.ndarray]:
    shared = sorted(set(a) & set(b))
    if video:
        return {f: scoring.box_iou(a[f].rows, b[f].rows) for f in shared}
    return dict(zip(shared, cuboid_iou_matrices([(a[f].rows, b[f].rows) for f in shared]),
                    strict=True))


def _motmetrics_events(ref: dict[int, list[str]], hyp: dict[int, list[str]],
                       scores: dict[int, np.ndarray], threshold: float
                       ) -> dict[str, set[tuple[Any, ...]]]:
    """motmetrics' MATCH/SWITCH/MISS/FP events, ids mapped back to track names."""
    import motmetrics as mm

    acc = mm.MOTAccumulator(auto_id=False)
    number: dict[str, int] = {}
    for frame in sorted(set(ref) | set(hyp)):
        r = [number.setdefault("r" + t, len(number)) for t in ref.get(frame, [])]
        h = [number.setdefault("h" + t, len(number)) for t in hyp.get(frame, [])]
        matrix = scores.get(frame, np.zeros((len(r), len(h))))
        acc.update(r, h, np.where(matrix >= threshold, 1.0 - matrix, np.nan), frameid=frame)
    name = {v: k[1:] for k, v in number.items()}
    out: dict[str, set[tuple[Any, ...]]] = {t: set() for t in ("MATCH", "SWITCH", "MISS", "FP")}
    for (frame, _event), row in acc.mot_events.iterrows():
        kind = row["Type"]
        if kind in ("MATCH", "SWITCH"):
            out[kind].add((int(frame), name[int(row["OId"])], name[int(row["HId"])]))
        elif kind == "MISS":
            out[kind].add((int(frame), name[int(row["OId"])]))
        elif kind == "FP":
            out[kind].add((int(frame), name[int(row["HId"])]))
    return out


def _all_lanes(project: ProjectData, scheme: str) -> dict[str, ItemLanes]:
    video, threshold = SCHEMES[scheme]
    answers = project.study.answers_for(scheme)
    return {item: run(item_lanes(item, by, video=video, threshold=threshold))
            for item, by in sorted(answers.items())}


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_frame_matching_equals_motmetrics_events(project: ProjectData, scheme: str) -> None:
    video, threshold = SCHEMES[scheme]
    n_switches = n_misses = 0
    for item, data in _all_lanes(project, scheme).items():
        for x, y in combinations(data.annotators, 2):
            a, b = data.frames[x], data.frames[y]
            scores = _scores(a, b, video)
            ids_a = {f: h.tracks for f, h in a.items()}
            ids_b = {f: h.tracks for f, h in b.items()}
            for ref, hyp, sc, key in ((ids_a, ids_b, scores, (x, y)),
                                      (ids_b, ids_a, {f: m.T for f, m in scores.items()},
                                       (y, x))):
                oracle = _motmetrics_events(ref, hyp, sc, threshold)
                got = data.matchings[key]
                matched = {(f, r, o) for f, m in got.matches.items() for r, o in m.items()}
                assert matched == oracle["MATCH"] | oracle["SWITCH"], (item, key)
                assert {(f, r, n) for f, r, _p, n in got.switches} == oracle["SWITCH"]
                assert set(got.misses) == oracle["MISS"], (item, key)
                assert set(got.extras) == oracle["FP"], (item, key)
                counts = clear_mot(ref, hyp, sc, threshold)
                assert (counts.misses, counts.extra, counts.id_switches) == (
                    len(got.misses), len(got.extras), len(got.switches))
                n_switches += len(got.switches)
                n_misses += len(got.misses)
    assert n_switches > 0 and n_misses > 0  # the project has both to mark


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_track_spans_and_rows_follow_the_stored_keyframes(project: ProjectData,
                                                          scheme: str) -> None:
    stored = _stored(scheme)
    for item, data in _all_lanes(project, scheme).items():
        for annotator, answer in stored[item].items():
            if scheme == "cars":  # tracking-ui.js: tracks → keyframes holding bboxNorm
                boxed = [(t["id"], [int(f) for f, k in t["keyframes"].items()
                                    if "bboxNorm" in k]) for t in answer["tracks"].values()]
                expected = sorted((t, min(f), max(f)) for t, f in boxed if f)
                got = sorted((s.shown.split(" #")[0], s.first, s.last)
                             for s in data.tracks[annotator])
            else:  # objects with frame and track_id; frames below 0 dropped
                frames: dict[str, list[int]] = {}
                for obj in answer:
                    frames.setdefault(str(obj["track_id"]), []).append(int(obj["frame"]))
                expected = sorted((t, max(0, min(f)), max(f)) for t, f in frames.items())
                got = sorted((s.track, s.first, s.last) for s in data.tracks[annotator])
            assert got == expected, (item, annotator)
        placed = [m for row in data.rows for m in row]
        everyone = [(s.annotator, s.track) for v in data.tracks.values() for s in v]
        assert sorted(placed) == sorted(everyone)  # every track in exactly one row
        for row in data.rows:
            assert len({a for a, _ in row}) == len(row)  # one track per annotator per row


def test_lanes_mark_motmetrics_misses_and_switches(project: ProjectData) -> None:
    data = _all_lanes(project, "cars")["q00"]
    x, y = data.annotators[0], data.annotators[1]
    a, b = data.frames[x], data.frames[y]
    oracle = _motmetrics_events({f: h.tracks for f, h in a.items()},
                                {f: h.tracks for f, h in b.items()}, _scores(a, b, True), 0.5)
    drawn = [lane for lane in lanes(data, (x, y)) if lane.annotator == x]
    assert drawn and all(lane.in_pair for lane in drawn)
    for lane in drawn:
        assert lane.misses == runs(f for f, t in oracle["MISS"] if t == lane.track)
        assert [f for f, _o, _n in lane.switches] == sorted(
            f for f, t, _h in oracle["SWITCH"] if t == lane.track)
        partner_frames = {f for a0, b0, _p in lane.partners for f in range(a0, b0 + 1)}
        assert partner_frames == {f for f, t, _h in oracle["MATCH"] | oracle["SWITCH"]
                                  if t == lane.track}
    assert any(lane.switches for lane in drawn)  # q00: bob's track_0 swaps cars
    third = [lane for lane in lanes(data, (x, y)) if lane.annotator not in (x, y)]
    assert third and not any(lane.in_pair or lane.misses or lane.switches for lane in third)


def _context(project: ProjectData, anonymous: bool = False, **kw: Any) -> ViewContext:
    return ViewContext(project=project, anonymous=anonymous,
                       aliases=anonymous_aliases(project.study.annotators), **kw)


def test_view_draws_the_lanes_and_a_frames_boxes(qtbot: QtBot, project: ProjectData) -> None:
    view = TracksView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(_context(project, scheme="cars", item="q00"))
    view.complete()
    assert view.canvas.lanes and view.empty_message == ""
    data = _all_lanes(project, "cars")["q00"]
    assert len(view.canvas.lanes) == sum(len(v) for v in data.tracks.values())
    view._on_frame(20)
    boxes = view.panel.boxes
    assert len(boxes) == sum(len(h.tracks) for f in data.frames.values()
                             if (h := f.get(20)) is not None)
    assert view.open_button.isHidden()  # video: the frame's boxes, no 3D view
    # the blank picture has the canvas's width / height: pixel bbox over bboxNorm as stored
    stored = _stored("cars")["q00"]
    ratios = {round((k["bbox"]["width"] / k["bboxNorm"]["width"])
                    / (k["bbox"]["height"] / k["bboxNorm"]["height"]), 9)
              for answer in stored.values() for t in answer["tracks"].values()
              for k in t["keyframes"].values() if "bbox" in k and "bboxNorm" in k}
    assert len(ratios) == 1 and round(view.panel.aspect, 9) == ratios.pop()


def test_presentation_shows_no_names(qtbot: QtBot, project: ProjectData) -> None:
    view = TracksView()
    qtbot.addWidget(view)
    view.show_context(_context(project, anonymous=True, font_scale=1.6, scheme="cars",
                               item="q01"))
    view.complete()
    texts = [view.heading.text(), view.metrics.text(), view.frame_text.text(),
             *[view.pair_combo.itemText(i) for i in range(view.pair_combo.count())],
             *[f"{view.canvas.style_.names[lane.annotator]}" for lane in view.canvas.lanes]]
    for name in project.study.annotators:
        assert not any(name in t for t in texts), name
    assert view.pair_combo.itemText(0) == "A – B"


def test_picking_a_lidar_frame_opens_it_in_the_3d_view_with_track_ids(
        qtbot: QtBot, project: ProjectData) -> None:
    from app.ui.views.cuboids.view import CuboidsView

    view = TracksView()
    qtbot.addWidget(view)
    view.show_context(_context(project, scheme="lidar", item="q00"))
    view.complete()
    assert not view.open_button.isHidden()
    frame = 9  # a keyframe every annotator stored on q00
    with qtbot.waitSignal(view.item_picked) as picked:
        view._open_frame(frame)
    assert picked.args == [f"q00@{frame}"]
    cuboids = CuboidsView()
    qtbot.addWidget(cuboids)
    unit_context = _context(project, scheme="lidar", item=f"q00@{frame}")
    from app.ui.views.cuboids.track_ids import unit_track_ids
    from app.ui.views.set_pick import pick_set_item

    pick = pick_set_item(unit_context, ("cuboids",), "3D boxes")
    assert pick.ok
    annotators = tuple(sorted(pick.agreement.objects[pick.item]))  # type: ignore[union-attr]
    n = sum(len(v) for v in pick.agreement.objects[pick.item].values())  # type: ignore[union-attr]
    tracks = unit_track_ids(project, "lidar", pick.item, annotators, n)
    stored = _stored("lidar")["q00"]
    expected = [str(o["track_id"]) for name in annotators for o in stored.get(name, [])
                if o["frame"] == frame]
    assert tracks is not None and sorted(tracks) == sorted(expected)
    cuboids.show_context(unit_context)  # draws with the track lines (no error offscreen)
    labels = cuboids.canvas.labels  # offscreen: the software canvas keeps its labels
    assert labels
    written = sorted(part.split(" ")[1] for c in labels for line in c.lines
                     if line.startswith("track ") for part in line[6:].split(" · "))
    assert written == sorted(expected)  # every box's track id, once
    # the view itself reads the unit back as the item and its frame
    view.show_context(unit_context)
    view.complete()
    assert view.item_combo.currentText() == "q00" and view.canvas.frame == frame


def test_tracks_only_pairs_panel_says_why(project: ProjectData) -> None:
    from app.ui.views.kinds import no_pairs_reason

    cars = project.report.schemes["cars"]
    assert not cars.pairs
    reason = no_pairs_reason(cars)
    assert "tracks only" in reason and str(cars.n_pairs) in reason
    assert "no two annotators" not in reason


def test_the_window_docks_the_tracks_view_for_a_tracked_scheme(qtbot: QtBot,
                                                               settings: Any) -> None:
    from app.ui.main_window import MainWindow
    from app.ui.views.registry import available_views
    from tests.ui.shell_helpers import open_and_wait

    window = MainWindow(settings, views=available_views(), watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    data = open_and_wait(qtbot, window, ROOT)
    layout = window.dock_layout
    # the video scheme holds tracks only (no segments: nothing for the tiers view)
    assert layout.detail_view(data, "cars") == "tracks"
    assert layout.detail_view(data, "lidar") == "cuboids"
    assert layout.present_details(data) == {"tracks", "cuboids"}
    qtbot.waitUntil(lambda: not window.docks["tracks"].isHidden(), timeout=5000)
    assert window.docks["tiers"].isHidden()
    # picking a lidar frame in the tracks view: the window shows that unit in the 3D view
    window.pick_scheme("lidar")
    tracks = window.views["tracks"]
    assert isinstance(tracks, TracksView)
    tracks.show_context(window.context.with_(item="q00"))
    tracks.complete()
    tracks._open_frame(9)
    assert window.context.item == "q00@9"
    assert not window.docks["cuboids"].visibleRegion().isEmpty()  # raised
    assert "item q00@9" in window.views["cuboids"].header.text()  # type: ignore[attr-defined]
    tracks.complete()
    assert tracks.item_combo.currentText() == "q00" and tracks.canvas.frame == 9
