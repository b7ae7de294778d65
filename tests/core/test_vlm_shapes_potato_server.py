"""Grounding answers holding every shape Potato 2.12.1's grounding widget can post
(boxes, polygons, ellipses, brush masks, points, polylines, freeform strokes, keypoint
sets, 2-D cuboids),
written by the real Potato server (``tests/potato_real/vlm_shapes_projects.py``).

Accord's grounding metrics equal Potato's ``/admin/iaa`` (``expected/iaa.json``) and
Potato's own ``iaa/grounding.grounding_report`` on the stored values to 1e-9; every pair of
stored shapes scores what Potato's ``grounding/metrics.region_similarity`` scores; masks
also equal an independent pixel IoU (``scipy.spatial.distance.jaccard``). Before this
fixture, masks scored 0 (even against themselves), ellipses were 64-gons (Potato: 36),
a zero-area box scored 1.0 against itself (Potato: 0) and a ``cuboid_2d`` was silently
dropped: ``refer``'s mean IoU read 0.540 (Potato 0.614), ``refer_faces``' 0.638 over 77
pairs (Potato 0.590 over 89)."""

from __future__ import annotations

import json
import math
import shutil
import warnings
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.agreement.report import agreement_report
from app.core.agreement.vlm.grounding import grounding_agreement, shape_similarity
from app.core.agreement.vlm.reading import Cuboid2D, Grounded, parse_grounding_eval
from app.core.errors import InputError
from app.core.formats.potato.project import load_study
from app.core.objects import BoxRegion, Mask
from app.core.progress import run

ROOT = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "vlm_shapes"
EXPECTED = json.loads((ROOT / "expected" / "iaa.json").read_text())["schemas"]
SCHEMES = ("refer", "refer_faces")
TOL = 1e-9


@pytest.fixture(autouse=True)
def _potato_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Starting with pandas version")
        yield


@pytest.fixture(scope="module")
def report() -> Any:
    return run(agreement_report(load_study(ROOT), project="vlm_shapes"))


def _stored(scheme: str, root: Path = ROOT) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for path in sorted(root.glob("annotation_output/*/user_state.json")):
        state = json.loads(path.read_text())
        for item, entries in state["instance_id_to_label_to_value"].items():
            for key, value in entries:
                if key["schema"] == scheme:
                    rows.setdefault(item, {})[state["user_id"]] = value
    return rows


def _flat(metrics: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in metrics.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        elif (isinstance(v, int | float) and not isinstance(v, bool)) or v is None:
            out[f"{prefix}{k}"] = v
    return out


def _same(ours: float | None, theirs: Any) -> None:
    if theirs is None or (isinstance(theirs, float) and math.isnan(theirs)):
        assert ours is None
    else:
        assert ours is not None and abs(ours - theirs) <= TOL, (ours, theirs)


def _ours(report: Any, scheme: str) -> dict[str, Any]:
    result = report.schemes[scheme]
    return {**result.extra, **result.metrics}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_metric_and_count_equals_potato_admin_iaa(report: Any, scheme: str) -> None:
    assert report.schemes[scheme].kind == "grounding"
    theirs = _flat(EXPECTED[scheme]["metrics"])
    ours = _ours(report, scheme)
    names = [n for n in theirs if n in ours]
    for name in names:
        _same(ours[name], theirs[name])
    for must in ("detection.alpha", "detection.percent_agreement", "localization.mean_iou",
                 "localization.median_iou", "localization.n_pairs_compared",
                 "coverage.answered_fraction", "coverage.n_unanswered_excluded"):
        assert must in names, must
    assert theirs["localization.n_pairs_compared"] > 50  # the shapes are really scored
    for row, potato in zip(report.schemes[scheme].extra["sweep"],
                           EXPECTED[scheme]["metrics"]["sweep"], strict=True):
        _same(row["agreement"], potato["localization"]["agreement"])


def test_pointing_equals_potato(report: Any) -> None:
    theirs = _flat(EXPECTED["refer"]["metrics"])
    _same(report.schemes["refer"].metrics["pointing.mean_pairwise_distance"],
          theirs["pointing.mean_pairwise_distance"])
    assert report.schemes["refer"].extra["pointing.n_pairs_compared"] == \
        theirs["pointing.n_pairs_compared"] > 0


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_same_answers_through_potatos_own_report(report: Any, scheme: str) -> None:
    import yaml
    from potato.server_utils.iaa.grounding import grounding_report

    config = {s["name"]: s for s in yaml.safe_load(
        (ROOT / "config.yaml").read_text())["annotation_schemes"]}
    theirs = _flat(grounding_report(_stored(scheme), config[scheme]))
    ours = _ours(report, scheme)
    shared = [n for n in theirs if n in ours]
    assert len(shared) >= 10, shared
    for name in shared:
        _same(ours[name], theirs[name])
    assert not report.schemes[scheme].notes  # nothing left unscored here


def _all_shape_pairs() -> Iterator[tuple[dict[str, Any], dict[str, Any], Any, Any]]:
    """Every pair of shapes two annotators drew for one expression, as stored and as
    Accord read them."""
    study = load_study(ROOT)
    for scheme in SCHEMES:
        stored = _stored(scheme)
        for item, by in study.answers_for(scheme).items():
            for x, y in combinations(sorted(by), 2):
                raw_x, raw_y = (json.loads(stored[item][u]) if isinstance(stored[item][u], str)
                                else stored[item][u] for u in (x, y))
                for e, gx in by[x].parsed.items():
                    gy = by[y].parsed.get(e)
                    if gy is None or gx.absent or gy.absent:
                        continue
                    shapes_x = [s for s in raw_x["regions"][e] if s["type"] != "cuboid_2d"]
                    shapes_y = [s for s in raw_y["regions"][e] if s["type"] != "cuboid_2d"]
                    cubes_x = [s for s in raw_x["regions"][e] if s["type"] == "cuboid_2d"]
                    cubes_y = [s for s in raw_y["regions"][e] if s["type"] == "cuboid_2d"]
                    for sx, ox in [*zip(shapes_x, gx.regions, strict=True),
                                   *zip(cubes_x, gx.faces, strict=True)]:
                        for sy, oy in [*zip(shapes_y, gy.regions, strict=True),
                                       *zip(cubes_y, gy.faces, strict=True)]:
                            yield sx, sy, ox, oy


def test_every_stored_shape_pair_scores_what_potato_scores() -> None:
    from potato.grounding.metrics import region_similarity

    seen: dict[tuple[str, str], int] = {}
    for sx, sy, ox, oy in _all_shape_pairs():
        key = (sx["type"], sy["type"])
        seen[key] = seen.get(key, 0) + 1
        ours, theirs = shape_similarity(ox, oy), region_similarity(sx, sy)
        assert abs(ours - theirs) <= TOL, (key, ours, theirs)
    same_type = {a for a, b in seen if a == b}
    assert same_type >= {"bbox", "polygon", "ellipse", "mask", "landmark", "polyline",
                         "freeform", "keypoint_set", "cuboid_2d"}, seen
    assert ("bbox", "polygon") in seen or ("polygon", "bbox") in seen
    assert ("cuboid_2d", "bbox") in seen or ("bbox", "cuboid_2d") in seen


def test_masks_equal_an_independent_pixel_iou() -> None:
    from scipy.spatial.distance import jaccard

    def pixels(shape: dict[str, Any]) -> np.ndarray:
        h, w = shape["rle"]["size"]
        values = np.arange(len(shape["rle"]["counts"])) % 2 == 1
        return np.repeat(values, shape["rle"]["counts"]).reshape(h, w)

    n = 0
    for sx, sy, ox, oy in _all_shape_pairs():
        if sx["type"] == sy["type"] == "mask":
            want = 1.0 - jaccard(pixels(sx).ravel(), pixels(sy).ravel())
            assert abs(shape_similarity(ox, oy) - want) <= TOL
            n += 1
    assert n >= 10


def test_shapes_without_area_score_zero_never_one(report: Any) -> None:
    """g11: all three drew the same zero-width box for e1 (bob and carol the same
    zero-radius ellipse for e2): Potato scores 0, and so does Accord, not 1.0."""
    study = load_study(ROOT)
    by = study.answers_for("refer")["g11"]
    box = by["alice"].parsed["e1"].regions[0]
    assert isinstance(box, BoxRegion) and box.width == 0
    assert shape_similarity(box, box) == 0.0
    ellipse = by["bob"].parsed["e2"].regions[0]
    assert shape_similarity(ellipse, by["carol"].parsed["e2"].regions[0]) == 0.0
    details = report.schemes["refer"].details
    assert details.per_item["g11"].count(0.0) >= 3


def _mask(h: int, w: int, on: slice) -> Mask:
    array = np.zeros((h, w), dtype=bool)
    array[on] = True
    return Mask.from_array("referent", array)


def test_masks_of_two_sizes_score_zero_counted_and_said() -> None:
    answers = {"i": {"a": {"e": Grounded((_mask(10, 10, np.s_[2:6]),), False)},
                     "b": {"e": Grounded((_mask(10, 12, np.s_[2:6]),), False)}}}
    out = grounding_agreement(answers)
    assert out.metrics["localization.mean_iou"].value == 0.0
    assert out.counts["localization.n_mask_pairs_size_differs"] == 1
    assert any("different sizes" in n for n in out.notes)
    same = grounding_agreement({"i": {"a": {"e": Grounded((_mask(10, 10, np.s_[2:6]),),
                                                            False)},
                                      "b": {"e": Grounded((_mask(10, 10, np.s_[3:6]),),
                                                            False)}}})
    assert same.metrics["localization.mean_iou"].value == pytest.approx(30 / 40)
    assert not same.notes


def test_no_located_pair_is_undefined_with_a_sentence_never_nan() -> None:
    answers = {"i": {"a": {"e": Grounded((), True)},
                     "b": {"e": Grounded((_mask(10, 10, np.s_[2:6]),), False)}},
               "j": {"a": {"e": Grounded((), True)}, "b": {"e": Grounded((), True)}}}
    out = grounding_agreement(answers)
    for name in ("localization.mean_iou", "localization.median_iou"):
        assert out.metrics[name].value is None
        assert "located" in (out.metrics[name].reason or "")
    assert all(r["agreement"] is None for r in out.sweep)


def test_a_shape_type_no_tool_draws_is_named_unscored_not_dropped(tmp_path: Path) -> None:
    """A hand-edited file: alice's first region on g00 / refer becomes type "blob". Its
    pairs leave localization with a count and a note; the rest equals Potato's report
    on the other pairs (Potato scores the unknown type 0 against anything)."""
    root = tmp_path / "vlm_shapes"
    shutil.copytree(ROOT, root)
    path = root / "annotation_output" / "alice" / "user_state.json"
    state = json.loads(path.read_text())
    entries = state["instance_id_to_label_to_value"]["g00"]
    for key, value in entries:
        if key["schema"] == "refer":
            blob = json.loads(value)
            e = sorted(blob["regions"])[0]
            blob["regions"][e][0]["type"] = "blob"
            entries[entries.index([key, value])][1] = json.dumps(blob)
    path.write_text(json.dumps(state))
    result = run(agreement_report(load_study(root), project="x")).schemes["refer"]
    n = result.extra["localization.n_pairs_unscored_shapes"]
    assert n >= 1
    assert any("blob" in note and "left out of localization" in note
               for note in result.notes)
    assert result.extra["localization.n_pairs_compared"] == \
        _flat(EXPECTED["refer"]["metrics"])["localization.n_pairs_compared"] - n
    value = result.metrics["localization.mean_iou"]
    assert value is not None and 0.0 < value < 1.0


def test_a_cuboid_without_four_corners_is_an_input_error() -> None:
    from app.core.formats.potato.place import Place

    study = load_study(ROOT)
    scheme = study.schemes["refer_faces"]
    shape = {"type": "cuboid_2d", "label": "referent",
             "coordinates": {"front": [{"x": 0, "y": 0}] * 3, "back": [{"x": 0, "y": 0}] * 4}}
    with pytest.raises(InputError, match=r"cuboid_2d needs coordinates\.front"):
        parse_grounding_eval({"regions": {"e0": [shape]}, "absent": []}, scheme,
                             Place(ROOT / "x.json", "g00", "refer_faces", "alice"))
    ok = parse_grounding_eval({"regions": {"e0": [{**shape, "coordinates": {
        "front": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 1, "y": 1}, {"x": 0, "y": 1}],
        "back": [{"x": 0, "y": 0}] * 4}}]}, "absent": []}, scheme,
        Place(ROOT / "x.json", "g00", "refer_faces", "alice"))
    answer = ok.parsed["e0"]
    assert answer.regions == () and isinstance(answer.faces[0], Cuboid2D)


def test_captions_on_every_shape_equal_potatos_caption_report() -> None:
    """Region captions whose regions are masks, ellipses, polygons, 2-D cuboids (the
    widget's shapes, drawn by the builder's functions; posted through no server): matched
    and scored as Potato's ``region_caption_report`` on the same blobs. A cuboid region
    was read as no region, so it matched nothing."""
    import random

    from potato.server_utils.iaa.captions import region_caption_report
    from potato.server_utils.iaa.dispatcher import _parse_caption_rows

    from app.core.agreement.vlm.captions import caption_agreement
    from app.core.agreement.vlm.reading import parse_region_caption
    from app.core.formats.potato.place import Place
    from tests.potato_real.vlm_shapes_projects import cuboid, draw, truth_shape

    rng = random.Random(7)
    scheme = load_study(ROOT).schemes["refer"]
    words = ("red", "mug", "cup", "left", "small", "blue", "kettle", "chair")
    stored: dict[str, dict[str, str]] = {}
    for k, family in enumerate(("mask", "ellipse", "polygon", "cuboid_2d", "mask")):
        truths = [truth_shape("bbox" if family == "cuboid_2d" else family, rng)
                  for _ in range(2)]
        said = [[rng.choice(words) for _ in range(3)] for _ in truths]
        stored[f"c{k}"] = {user: json.dumps({"captions": [
            {"region": cuboid(t, rng) if family == "cuboid_2d" else draw(t, rng, 0.03),
             "caption": " ".join(w if rng.random() < 0.7 else rng.choice(words) for w in s)}
            for t, s in zip(truths, said, strict=True)]}) for user in ("ann1", "ann2", "ann3")}
    answers = {item: {user: parse_region_caption(json.loads(blob), scheme,
                                                 Place(ROOT / "x", item, "c", user)).parsed
                      for user, blob in by.items()} for item, by in stored.items()}
    ours = caption_agreement(answers)
    theirs = _flat(region_caption_report(_parse_caption_rows(stored)))
    shared = [n for n in ours.metrics if n in theirs]
    assert {"alpha", "mean_pairwise_distance", "matching.n_matched_regions"} <= set(shared)
    for name in shared:
        _same(ours.metrics[name].value, theirs[name])
    assert theirs["matching.n_matched_regions"] >= 16  # of 20
    cubes = caption_agreement({"c3": answers["c3"]})
    assert cubes.metrics["matching.n_matched_regions"].value == _flat(region_caption_report(
        _parse_caption_rows({"c3": stored["c3"]})))["matching.n_matched_regions"] >= 3
