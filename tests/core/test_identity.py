"""Identity over sequences (kinds.md B §2.8, A.7) against Potato 2.12.1's own functions
(``iaa/identity.py``, ``iaa/structured.py`` run on the same stored values) and against
motmetrics' CLEAR MOT with the two directions pooled."""

from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.agreement.identity import scoring
from app.core.agreement.identity.clear_mot import NO_TRACKS, clear_mot, pair_counts, pooled
from app.core.agreement.report import agreement_report
from app.core.model import Item, Kind, Scheme, Study
from app.core.progress import run
from tests.core.identity_data import (
    read_spatial,
    read_video,
    spatial_truth,
    spatial_value,
    video_truth,
    video_value,
)

USERS = ("ann", "bob", "cat")


def _video_rows(seed: int, n_items: int = 4) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    rows: dict[str, dict[str, Any]] = {}
    for k in range(n_items):
        truth = video_truth(rng, rng.randint(1, 5), 40)
        rows[f"v{k}"] = {u: video_value(rng, truth, 0.01 + 0.02 * rng.random(),
                                        swap=(u == "bob"))
                         for u in USERS}
    rows["v_empty"] = {u: video_value(rng, [], 0.0, False) for u in USERS}
    return rows


def _spatial_rows(seed: int, n_items: int = 3, tilt: float = 0.0
                  ) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    rows: dict[str, dict[str, Any]] = {}
    for k in range(n_items):
        truth = spatial_truth(rng, rng.randint(1, 6), 30)
        rows[f"s{k}"] = {u: spatial_value(rng, truth, 0.1 + 0.3 * rng.random(),
                                          swap=(u == "cat"), tilt=tilt)
                         for u in USERS}
    return rows


@pytest.mark.parametrize("seed", range(8))
def test_video_identity_equals_potato(seed: int) -> None:
    from potato.server_utils.iaa.identity import video_identity

    rows = _video_rows(seed)
    expected = video_identity({i: {u: json.dumps(v) for u, v in by.items()}
                               for i, by in rows.items()})
    answers = {i: {u: read_video(v, i, u) for u, v in by.items()} for i, by in rows.items()}
    got = scoring.video_identity(answers)
    assert expected is not None
    assert got.n_pairs == expected["n_pairs"]
    assert got.n_object_frames == expected["n_object_frames"]
    assert got.mota == pytest.approx(expected["mota"], abs=1e-12)
    assert got.idf1 == pytest.approx(expected["idf1"], abs=1e-12)
    assert got.id_switches == expected["id_switches"]


def test_video_without_tracks_is_undefined() -> None:
    answers = {"v": {u: read_video({"segments": []}, "v", u) for u in USERS}}
    got = scoring.video_identity(answers)
    assert got.mota is None and got.reason == NO_TRACKS
    assert got.idf1 is None and got.id_switches is None and got.reason


def _study(rows: dict[str, dict[str, Any]], annotation_type: str, kind: Kind,
           read: Any) -> Study:
    scheme = Scheme("objects", annotation_type, kind)
    answers = {i: {u: read(v, i, u) for u, v in by.items()} for i, by in rows.items()}
    return Study(Path(), {i: Item(i, {}) for i in rows}, {"objects": scheme}, USERS,
                 {"objects": answers})


@pytest.mark.parametrize("seed", range(5))
def test_spatial_sequence_equals_potato(seed: int) -> None:
    """Frame-by-frame set metrics and identity equal Potato's spatial_report."""
    from potato.server_utils.iaa.structured import spatial_report

    rows = _spatial_rows(seed, tilt=0.05 if seed % 2 else 0.0)
    expected = spatial_report({i: {u: json.dumps(v) for u, v in by.items()}
                               for i, by in rows.items()})
    study = _study(rows, "spatial_annotation", Kind.CUBOIDS, read_spatial)
    result = run(agreement_report(study, project="t")).schemes["objects"]
    assert result.metrics["mean_agreement"] == pytest.approx(expected["mean_agreement"],
                                                             abs=1e-9)
    assert result.metrics["mean_object_count_diff"] == pytest.approx(
        expected["mean_object_count_diff"], abs=1e-12)
    assert result.extra["n_frames"] == expected["n_frames"]
    assert result.n_items == expected["n_items"]
    assert result.n_pairs == expected["n_pairs"]
    ident = expected["identity"]
    assert result.metrics["identity.mota"] == pytest.approx(ident["mota"], abs=1e-12)
    assert result.metrics["identity.idf1"] == pytest.approx(ident["idf1"], abs=1e-12)
    assert result.metrics["identity.id_switches"] == ident["id_switches"]
    assert result.extra["identity"]["n_object_frames"] == ident["n_object_frames"]


def test_tracks_only_video_has_no_segment_metrics() -> None:
    rows = _video_rows(3, 2)
    study = _study(rows, "video_annotation", Kind.SEGMENTS, read_video)
    result = run(agreement_report(study, project="t")).schemes["objects"]
    for name in ("mean_agreement", "mean_object_count_diff", "detection_f1",
                 "mean_matched_iou"):
        assert result.metrics[name] is None
        assert result.undefined[name] == scoring.NO_SEGMENTS
    assert result.metrics["identity.mota"] is not None
    assert result.to_json()["metrics"]["identity.idf1"] == result.metrics["identity.idf1"]


def motmetrics_idtp(frames_a: dict[int, list[str]], frames_b: dict[int, list[str]],
                    scores: dict[int, np.ndarray], threshold: float) -> int:
    """IDTP of one pair by motmetrics (its global id assignment over all frames)."""
    import motmetrics as mm

    acc = _accumulator(frames_a, frames_b, scores, threshold)
    summary = mm.metrics.create().compute(acc, metrics=["idtp"], name="pair")
    return int(summary["idtp"].iloc[0])


def _accumulator(frames_a: dict[int, list[str]], frames_b: dict[int, list[str]],
                 scores: dict[int, np.ndarray], threshold: float) -> Any:
    import motmetrics as mm

    acc = mm.MOTAccumulator(auto_id=False)
    number: dict[str, int] = {}  # motmetrics 1.4 with pandas 2 wants numeric ids
    for frame in sorted(set(frames_a) | set(frames_b)):
        ref = [number.setdefault("a" + t, len(number)) for t in frames_a.get(frame, [])]
        hyp = [number.setdefault("b" + t, len(number)) for t in frames_b.get(frame, [])]
        matrix = scores.get(frame, np.zeros((len(ref), len(hyp))))
        acc.update(ref, hyp, np.where(matrix >= threshold, 1.0 - matrix, np.nan),
                   frameid=frame)
    return acc


def _motmetrics_pooled(frames_a: dict[int, list[str]], frames_b: dict[int, list[str]],
                       scores: dict[int, np.ndarray], threshold: float
                       ) -> tuple[int, int, int, int]:
    """One direction with motmetrics: (reference object-frames, misses, extras, switches)."""
    acc = _accumulator(frames_a, frames_b, scores, threshold)
    events = acc.mot_events
    counts = events["Type"].value_counts()
    n_ref = sum(len(v) for v in frames_a.values())
    return (n_ref, int(counts.get("MISS", 0)), int(counts.get("FP", 0)),
            int(counts.get("SWITCH", 0)))


@pytest.mark.parametrize("seed", range(6))
def test_clear_mot_equals_motmetrics_pooled(seed: int) -> None:
    rows = _video_rows(100 + seed)
    totals = [0, 0, 0, 0]
    counts = []
    idtp: list[int] = []
    for item, by in rows.items():
        frames = {u: scoring.video_frames(read_video(v, item, u).tracks or ())
                  for u, v in by.items()}
        for x, y in combinations(sorted(frames), 2):
            a, b = frames[x], frames[y]
            ids_a = {f: here.tracks for f, here in a.items()}
            ids_b = {f: here.tracks for f, here in b.items()}
            scores = {f: scoring.box_iou(a[f].rows, b[f].rows) for f in set(a) & set(b)}
            counts.append(pair_counts(ids_a, ids_b, scores, 0.5))
            idtp.append(motmetrics_idtp(ids_a, ids_b, scores, 0.5))
            assert counts[-1].idtp == idtp[-1]
            transposed = {f: m.T for f, m in scores.items()}
            for ref, hyp, sc in ((ids_a, ids_b, scores), (ids_b, ids_a, transposed)):
                mine = clear_mot(ref, hyp, sc, 0.5)
                oracle = _motmetrics_pooled(ref, hyp, sc, 0.5)
                assert (mine.reference, mine.misses, mine.extra, mine.id_switches) == oracle
                totals = [t + o for t, o in zip(totals, oracle, strict=True)]
    got = pooled(counts)
    reference, misses, extra, switches = totals
    assert got.idf1 == 2.0 * sum(idtp) / sum(c.object_frames for c in counts)
    assert got.mota == 1.0 - (misses + extra + switches) / reference
    assert got.id_switches == switches / 2
    assert switches > 0 or seed  # the swapped annotator makes switches


def test_reader_keeps_frames_and_tracks_and_names_bad_keyframes() -> None:
    from app.core.errors import RejectedAnswerError

    value = [{"type": "cuboid_3d", "frame": "3", "track_id": 7, "label": "car",
              "coordinates": {"center": [0, 0, 0], "size": [1, 1, 1]}},
             {"type": "cuboid_3d", "frame": True, "track_id": "x", "label": "car",
              "coordinates": {"center": [0, 0, 0], "size": [1, 1, 1]}},
             {"type": "point_3d", "label": "pole", "coordinates": [1, 2, 3]}]
    got = read_spatial(value, "s", "ann")
    assert got.keys is not None
    assert [(k.frame, k.track) if k else None for k in got.keys] == [(3, "7"), None, None]
    assert read_spatial(value[2:], "s", "ann").keys is None
    video = {"segments": [], "tracks": {"t": {"id": "a", "keyframes": {
        "4": {"frame": 4, "bboxNorm": {"x": 0.1, "y": 0.1, "width": 0.2, "height": 0.2}},
        "9": {"frame": 9}}}}}
    track = read_video(video, "v", "ann").tracks
    assert track is not None and track[0].keyframes == ((4, (0.1, 0.1, 0.2, 0.2)), (9, None))
    bad = {"segments": [], "tracks": {"t": {"id": "a", "keyframes": {
        "4": {"frame": 4, "bboxNorm": {"x": "left", "y": 0, "width": 1, "height": 1}}}}}}
    with pytest.raises(RejectedAnswerError,  # the answer is left out and counted
                       match=r"item 'v'.*object 0: track bboxNorm x must be a number"):
        read_video(bad, "v", "ann")
    worse = {"segments": [], "tracks": {"t": {"id": "a", "keyframes": {
        "later": {"bboxNorm": {"x": 0, "y": 0, "width": 1, "height": 1}}}}}}
    with pytest.raises(RejectedAnswerError, match="track keyframe frame 'later' is not a"):
        read_video(worse, "v", "ann")


def test_interpolation_equals_potato_object_at() -> None:
    """A track's boxes between keyframes: Potato's lerp and slerp, to 1e-12."""
    from potato.export.spatial_sequences import dense_frames

    rng = random.Random(7)
    truth = spatial_truth(rng, 4, 30)
    objects = spatial_value(rng, truth, 0.3, swap=False, tilt=0.2)
    ours = scoring.cuboid_frames(read_spatial(objects, "s", "ann"))
    theirs = dense_frames(objects, 31)
    assert sorted(ours) == [f for f, objs in theirs.items() if objs]
    for frame, here in ours.items():
        by_track = {str(o["track_id"]): o for o in theirs[frame]}
        for track, row in zip(here.tracks, here.rows, strict=True):
            o = by_track[track]
            expected = [*o["center"], *o["size"], *o["rotation"]]
            norm = sum(v * v for v in o["rotation"]) ** 0.5
            expected[6:] = [v / norm for v in expected[6:]]
            assert np.allclose(row, expected, rtol=0, atol=1e-12)


def test_combined_video_scores_segments_and_tracks() -> None:
    """mode: combined: segments are scored as segments, tracks by identity, side by side."""
    rows = _video_rows(5, 2)
    for k, by in enumerate(rows.values()):
        for n, value in enumerate(by.values()):
            value["segments"] = [{"id": "s", "start_time": 1.0 + 0.1 * n + k,
                                  "end_time": 4.0 + k, "label": "walk"}]
    study = _study(rows, "video_annotation", Kind.SEGMENTS, read_video)
    result = run(agreement_report(study, project="t")).schemes["objects"]
    assert result.metrics["mean_agreement"] is not None
    assert "mean_agreement" not in result.undefined
    answers = study.answers_for("objects")
    assert result.metrics["identity.mota"] == scoring.video_identity(answers).mota
