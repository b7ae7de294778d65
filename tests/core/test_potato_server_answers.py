"""Answers written by the real Potato 2.12.1 server, read by Accord, and Accord's numbers
against Potato's own ``/admin/iaa`` report on the same files.

The projects under ``tests/data/potato_server/`` were written by
``tests/potato_real/annotation_projects.py`` (the real server, Potato's simulator
client); ``expected/iaa.json`` is the server's ``/admin/iaa`` body. No server runs here.

Where both measure the same thing the numbers are equal to 1e-9; where agreement.md
differs by design the test says so and checks the difference is exactly that one.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.agreement.regions.chance import detection_and_classification
from app.core.agreement.regions.potato_reading import CLAUSES
from app.core.agreement.report import agreement_report
from app.core.agreement.result import AgreementReport
from app.core.agreement.sets.agreement import set_agreement, summarize
from app.core.agreement.sets.matching import match
from app.core.agreement.sets.structured import (
    SetOptions,
    region_set_similarity,
    selector_and_similarity,
    with_image_sizes,
)
from app.core.formats.potato.project import load_study
from app.core.geometry.intervals import segment_iou_matrix
from app.core.geometry.point_objects import similarity
from app.core.geometry.regions import region_iou_matrix
from app.core.model import Answer, Kind, Study
from app.core.objects import (
    EllipseRegion,
    KeypointSet,
    Landmark,
    ObjectSet,
    OpenPath,
    Point3D,
    PolygonRegion,
    Polyline3D,
    Segment,
    Segment3D,
)
from app.core.progress import run

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_server"
TOL = 1e-9


def same(x: float) -> Any:
    return pytest.approx(x, abs=TOL)


@cache
def study(name: str) -> Study:
    return load_study(DATA / name)


@cache
def report(name: str) -> AgreementReport:
    return run(agreement_report(study(name), project=name, options=SetOptions(thresholds={})))


def potato(name: str, scheme: str) -> dict[str, Any]:
    metrics: dict[str, Any] = json.loads((DATA / name / "expected" / "iaa.json").read_text()
                                         )["schemas"][scheme]["metrics"]
    return metrics


def acc(name: str, scheme: str, metric: str) -> float:
    v: Any = report(name).schemes[scheme].metrics[metric]
    v = getattr(v, "value", v)
    assert v is not None
    return float(v)


def objects(name: str, scheme: str, item: str, who: str) -> ObjectSet:
    answer = study(name).answers[scheme][item][who]
    assert isinstance(answer, ObjectSet)
    return answer


# --------------------------------------------------------------------------- shapes read


def test_select_is_read_as_its_value_not_the_constant() -> None:
    raw = json.loads((DATA / "categorical/annotation_output/bob/user_state.json").read_text())
    entry = [e for e in raw["instance_id_to_label_to_value"]["c00"]
             if e[0]["schema"] == "topic"]
    assert entry[0][0]["name"] == "select-one"
    assert study("categorical").answers["topic"]["c00"]["bob"] == entry[0][1]
    assert {a for by in study("categorical").answers["topic"].values()
            for a in by.values()} <= {"sports", "politics", "tech", "food"}


def test_browser_slider_form() -> None:
    raw = json.loads((DATA / "categorical/annotation_output/alice/user_state.json").read_text())
    entry = next(e for e in raw["instance_id_to_label_to_value"]["c03"]
                 if e[0]["schema"] == "confidence")
    assert entry[0]["name"] == "slider"
    assert study("categorical").answers["confidence"]["c03"]["alice"] == entry[1]


def test_simulator_slider_form() -> None:
    raw = json.loads((DATA / "categorical/annotation_output/carol/user_state.json").read_text())
    entry = next(e for e in raw["instance_id_to_label_to_value"]["c05"]
                 if e[0]["schema"] == "intensity")
    assert entry[0]["name"] == entry[1]  # "<n>": "<n>"
    assert study("categorical").answers["intensity"]["c05"]["carol"] == entry[1]


def _raw_shapes(name: str, scheme: str, item: str, who: str) -> list[dict[str, Any]]:
    raw = json.loads((DATA / name / "annotation_output" / who / "user_state.json").read_text())
    entry = next(e for e in raw["instance_id_to_label_to_value"][item]
                 if e[0]["schema"] == scheme)
    parsed: Any = json.loads(entry[1])
    return parsed if isinstance(parsed, list) else parsed.get("segments", parsed)


def test_landmark_and_keypoint_set() -> None:
    shapes = {s["type"]: s for s in _raw_shapes("images", "shapes", "m02", "bob")}
    got = objects("images", "shapes", "m02", "bob")
    (mark,) = got.of_type(Landmark)
    assert (mark.x, mark.y) == (shapes["landmark"]["coordinates"]["x"],
                                shapes["landmark"]["coordinates"]["y"])
    (kps,) = got.of_type(KeypointSet)
    assert kps.points == tuple((p["x"], p["y"], float(p["v"]))
                               for p in shapes["keypoint_set"]["coordinates"])


def test_polyline_and_freeform_paths() -> None:
    shapes = {s["type"]: s for s in _raw_shapes("images", "shapes", "m04", "carol")}
    paths = {p.kind: p for p in objects("images", "shapes", "m04", "carol").of_type(OpenPath)}
    assert isinstance(paths["polyline"], OpenPath)
    assert paths["polyline"].points == tuple((p["x"], p["y"])
                                             for p in shapes["polyline"]["coordinates"])
    free = paths["freeform"]
    assert isinstance(free, OpenPath)
    coords = shapes["freeform"]["coordinates"]
    ox, oy = coords["pathOffset"]["x"], coords["pathOffset"]["y"]
    assert free.anchor == (coords["left"], coords["top"])
    assert free.offsets == tuple((c[-2] - ox, c[-1] - oy) for c in coords["path"])


def test_ellipse_is_built_in_pixels_on_a_non_square_image() -> None:
    rep = report("images")  # reads the image header: 320 x 180
    assert rep.schemes["shapes"].n_pairs == 36
    e = objects("images", "shapes", "m01", "alice").of_type(EllipseRegion)[0]
    f = objects("images", "shapes", "m01", "bob").of_type(EllipseRegion)[0]
    assert isinstance(e, EllipseRegion) and isinstance(f, EllipseRegion)
    w, h = 320.0, 180.0
    sized = [EllipseRegion(x.label, x.cx, x.cy, x.rx, x.ry, x.angle_deg, w, h) for x in (e, f)]
    # independent: the same ellipses drawn as 64-gons in pixels, IoU by shapely
    import shapely

    def pixel_polygon(x: EllipseRegion) -> shapely.Polygon:
        t = np.arange(64) * 2 * np.pi / 64
        a = np.radians(x.angle_deg)
        lx, ly = x.rx * w * np.cos(t), x.ry * h * np.sin(t)
        return shapely.Polygon(np.column_stack((x.cx * w + lx * np.cos(a) - ly * np.sin(a),
                                                x.cy * h + lx * np.sin(a) + ly * np.cos(a))))

    pa, pb = pixel_polygon(e), pixel_polygon(f)
    expected = pa.intersection(pb).area / pa.union(pb).area
    assert region_iou_matrix([sized[0]], [sized[1]])[0, 0] == pytest.approx(expected, abs=1e-9)
    assert abs(region_iou_matrix([e], [f])[0, 0] - expected) > 1e-6  # normalized is not it


def test_point_3d_polyline_3d_segment_3d() -> None:
    raw = {s["type"]: s for s in _raw_shapes("spatial", "objects", "s01", "alice")}
    got = objects("spatial", "objects", "s01", "alice")
    if "point_3d" in raw:
        (p,) = got.of_type(Point3D)
        assert isinstance(p, Point3D) and list(p.position) == raw["point_3d"]["coordinates"]
    if "polyline_3d" in raw:
        (line,) = got.of_type(Polyline3D)
        assert [list(q) for q in line.points] == raw["polyline_3d"]["coordinates"]  # type: ignore[union-attr]
    if "segment_3d" in raw:
        (seg,) = got.of_type(Segment3D)
        assert list(seg.point_indices) == raw["segment_3d"]["indices"]  # type: ignore[union-attr]
    assert {"point_3d", "polyline_3d", "segment_3d"} & set(raw)


def test_video_segments_in_camel_case() -> None:
    raw = _raw_shapes("timed", "actions", "t01", "bob")
    got = objects("timed", "actions", "t01", "bob").of_type(Segment)
    assert [(s.start, s.end) for s in got] == [(r["startTime"], r["endTime"])  # type: ignore[union-attr]
                                               for r in raw]


def test_tiered_with_time_slots_in_seconds() -> None:
    who, item = "bob", "t01"
    raw = json.loads((DATA / "timed/annotation_output" / who / "user_state.json").read_text())
    blob = json.loads(next(e[1] for e in raw["instance_id_to_label_to_value"][item]
                           if e[0]["schema"] == "turns"))
    assert "time_slots" in blob
    got = objects("timed", "turns", item, who).of_type(Segment)
    want = [(s["start_time"] / 1000, s["end_time"] / 1000, tier)
            for tier, segs in blob["annotations"].items() for s in segs]
    assert [s.tier for s in got] == [w[2] for w in want]  # type: ignore[union-attr]
    assert [v for s in got for v in (s.start, s.end)] == pytest.approx(  # type: ignore[union-attr]
        [v for w in want for v in w[:2]], abs=1e-12)


# --------------------------------------------------------------------------- similarities


def test_point_object_similarities() -> None:
    assert similarity(Landmark("a", 0.5, 0.5), Landmark("a", 0.52, 0.5)) == pytest.approx(0.6)
    assert similarity(Point3D("p", (0, 0, 0)), Point3D("p", (0, 1.5, 0))) == pytest.approx(0.25)
    assert similarity(Segment3D("g", (1, 2, 3, 4)), Segment3D("g", (3, 4, 5))) == 0.4
    line = Polyline3D("l", ((0, 0, 0), (1, 0, 0), (2, 0, 0)))
    up = Polyline3D("l", ((0, 0, 0.4), (1, 0, 0.6), (2, 0, 0.4)))
    assert similarity(line, up) == pytest.approx(2 * (2 / 3) * (2 / 3) / (4 / 3))
    k = KeypointSet("p", ((0.0, 0.0, 2), (0.1, 0.1, 2)))
    assert similarity(k, k) == 1.0
    assert similarity(Landmark("a", 0.5, 0.5), Point3D("p", (0, 0, 0))) == 0.0  # type: ignore[arg-type]
    # a polyline and a freeform stroke are two types: Potato never matches them
    path = ((0.1, 0.1), (0.2, 0.2), (0.3, 0.3))
    assert similarity(OpenPath("a", path), OpenPath("a", path)) == 1.0
    assert similarity(OpenPath("a", path), OpenPath("a", path, "freeform")) == 0.0


def test_a_match_exactly_at_the_threshold_survives_milliseconds() -> None:
    """The 0.550 vs 0.555 report: [0, 300] and [100, 400] ms have IoU exactly 0.5, but
    in seconds the arithmetic gives 0.49999999999999994 and the match was dropped."""
    a = [Segment.from_milliseconds(0, 300, "host", "speaker")]
    b = [Segment.from_milliseconds(100, 400, "host", "speaker")]
    iou = segment_iou_matrix(a, b, within_tier=True)
    assert iou[0, 0] < 0.5  # the rounding that bit
    rows, _ = match(iou, 0.5)
    assert rows.tolist() == [0]


# --------------------------------------------------------------------------- vs Potato


def test_categorical_equals_potato() -> None:
    """radio (nominal α, Fleiss κ, mean pairwise Cohen κ, percent agreement), multiselect
    (α with MASI, mean Jaccard) and likert (ordinal α, quadratic κ over the scale) are the
    same measures in both."""
    p = potato("categorical", "sentiment")
    assert acc("categorical", "sentiment", "alpha") == same(p["alpha_nominal"])
    assert acc("categorical", "sentiment", "fleiss_kappa") == same(p["fleiss_kappa"])
    assert acc("categorical", "sentiment", "kappa") == same(p["pairwise_cohen_kappa"])
    assert acc("categorical", "sentiment", "percent_agreement") == same(p["percent_agreement"])
    p = potato("categorical", "aspects")
    assert acc("categorical", "aspects", "alpha") == same(p["alpha_masi"])
    assert acc("categorical", "aspects", "mean_jaccard") == same(p["mean_jaccard"])
    p = potato("categorical", "quality")
    assert acc("categorical", "quality", "alpha") == same(p["alpha_ordinal"])
    assert acc("categorical", "quality", "kappa") == same(p["weighted_kappa_quadratic"])


def test_select_differs_from_potato_which_reads_the_constant() -> None:
    """Potato's report reads the label name "select-one" for every answer: 1.0."""
    assert potato("categorical", "topic")["percent_agreement"] == 1.0
    assert acc("categorical", "topic", "percent_agreement") < 1.0
    assert any("select-one" in n for n in report("categorical").schemes["topic"].notes)


def test_sliders_ordinal_by_design_with_a_note() -> None:
    """Potato reports interval α for sliders; agreement.md ordinal α."""
    for scheme in ("confidence", "intensity"):
        notes = report("categorical").schemes[scheme].notes
        assert any("interval" in n for n in notes)


def test_spatial_equals_potato() -> None:
    """Cuboids, 3D points, polylines and point segments in one set, threshold 0.25."""
    p = potato("spatial", "objects")
    assert acc("spatial", "objects", "mean_agreement") == same(p["mean_agreement"])
    assert acc("spatial", "objects", "mean_object_count_diff") == same(p["mean_object_count_diff"])


def _non_empty_mean(name: str, scheme: str) -> float:
    details = report(name).schemes[scheme].details
    scores = [o.score for o in details.outcomes if not o.empty]  # type: ignore[union-attr]
    return float(np.mean(scores))


def test_audio_equals_potato_over_non_empty_pairs() -> None:
    """Potato leaves pairs of two empty answers out; agreement.md scores them 1. Over the
    other pairs the numbers are equal, and so are matched IoU and the empty-pair count."""
    p = potato("timed", "speech")
    r = report("timed").schemes["speech"]
    assert r.extra["n_empty_pairs"] == p["n_empty_pairs"]
    assert _non_empty_mean("timed", "speech") == same(p["mean_agreement"])
    assert acc("timed", "speech", "mean_matched_iou") == same(p["mean_matched_iou"])
    assert any("empty" in n and "Potato" in n for n in r.notes)


def test_by_design_differences_have_notes() -> None:
    """Tiers matched within a tier (Potato ignores the tier), grounding events without an
    end are instants (Potato drops them), video segments (Potato reads none of the
    ``startTime`` segments video-annotation.js writes and reports every pair empty)."""
    schemes = report("timed").schemes
    assert any("tier" in n and "Potato" in n for n in schemes["turns"].notes)
    assert any("instant" in n and "Potato" in n for n in schemes["grounding"].notes)
    assert potato("timed", "actions")["n_scored_pairs"] == 0
    assert acc("timed", "actions", "mean_matched_iou") > 0


def _shapes_as_potato_draws_ellipses() -> dict[str, dict[str, Answer]]:
    """The `shapes` answers as the report scores them (open paths in pixels) but with
    every ellipse replaced by the 36-gon Potato's report builds in normalized
    coordinates (built here with numpy, not Potato's code)."""
    def gon(e: EllipseRegion) -> PolygonRegion:
        t = np.arange(36) * 2 * np.pi / 36
        a = np.radians(e.angle_deg)
        dx, dy = e.rx * np.cos(t), e.ry * np.sin(t)
        return PolygonRegion(e.label, tuple(zip((e.cx + dx * np.cos(a) - dy * np.sin(a)).tolist(),
                                                (e.cy + dx * np.sin(a) + dy * np.cos(a)).tolist(),
                                                strict=True)))

    sized = with_image_sizes(study("images"), study("images").answers_for("shapes"))
    return {item: {who: ObjectSet(tuple(gon(o) if isinstance(o, EllipseRegion) else o
                                        for o in a.objects)) if isinstance(a, ObjectSet) else a
                   for who, a in by.items()}
            for item, by in sized.items()}


def test_image_shapes_differ_from_potato_only_by_the_ellipses() -> None:
    """`shapes` (boxes, polygons, ellipses, landmarks, keypoint sets, polylines, freeform
    strokes on 320 x 180 images). Compared object pair by object pair with Potato's code,
    every similarity and every matching is the same except the ellipses': Potato's report
    builds them in normalized coordinates as 36-gons, Accord in pixels as 64-gons
    (agreement.md: ellipses are measured as drawn). Drawn Potato's way, Accord's own
    scoring gives Potato's numbers; Potato's numbers are in the note and in potato_iaa."""
    p = potato("images", "shapes")
    r = report("images").schemes["shapes"]
    # measured alike: equal
    assert (r.n_items, r.n_pairs, r.extra["n_empty_pairs"]) == (
        p["n_items"], p["n_scored_pairs"], p["n_empty_pairs"])
    for name in ("mean_object_count_diff", "classification_alpha"):
        assert acc("images", "shapes", name) == same(p[name])
    # the one difference: ellipses as drawn (Accord 0.5907 / 0.8199 / 0.8263 / 0.1685)
    for name, lower in (("mean_agreement", 0.04), ("detection_f1", 0.03),
                        ("mean_matched_iou", 0.002), ("detection_alpha", 0.03)):
        assert p[name] - acc("images", "shapes", name) > lower
    select, sim = selector_and_similarity(Kind.REGIONS)
    sets = run(set_agreement(_shapes_as_potato_draws_ellipses(), select, sim, 0.5))
    s = summarize(sets.outcomes)
    for name in ("mean_agreement", "detection_f1", "mean_matched_iou"):
        assert getattr(s, name) == same(p[name])
    detection, classification, _ = detection_and_classification(sets, 0.5,
                                                                region_set_similarity)
    assert (detection.value, classification.value) == (same(p["detection_alpha"]), 1.0)
    # what Potato shows, and why
    shown = r.extra["potato_iaa"]
    for name in ("mean_agreement", "mean_object_count_diff", "detection_f1",
                 "mean_matched_iou", "detection_alpha", "classification_alpha",
                 "n_scored_pairs", "n_empty_pairs"):
        assert shown[name] == same(p[name])
    (note,) = [n for n in r.notes if "(potato_iaa) because" in n]
    assert note.startswith("Potato 2.12.1's /admin/iaa shows mean_agreement 0.632955, "
                           "detection_f1 0.856787, mean_matched_iou 0.828673, "
                           "detection_alpha 0.204694 on these answers")
    assert note.endswith("because " + CLAUSES["ellipses"])


def test_image_shapes_sigma_and_ks_by_design_with_a_note() -> None:
    """σ and KS: agreement.md fixes Accord's GIoU (convex hull for polygons and ellipses,
    regions only) and its seeded numpy baseline; Potato's report uses the GIoU of every
    object's bounding box and Python's random. Different measures, said in the notes."""
    p = potato("images", "shapes")
    assert abs(acc("images", "shapes", "sigma") - p["sigma"]) > 0.01
    assert abs(acc("images", "shapes", "ks") - p["ks"]) > 0.01
    assert any("σ and KS another way" in n and "random.Random(20260813)" in n
               for n in report("images").schemes["shapes"].notes)
