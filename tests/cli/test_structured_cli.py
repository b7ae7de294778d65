"""`accord agreement` and `accord compare` on structured schemes: the JSON of cli.md."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from app.cli.main import main
from tests.potato_project import simple_items, structured, write_project

SET_METRICS = {"mean_agreement", "mean_object_count_diff", "detection_f1", "mean_matched_iou"}
REGION_METRICS = SET_METRICS | {"sigma", "ks", "detection_alpha", "classification_alpha",
                                "mean_within_distance", "mean_between_distance"}


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "NaN" not in out and "Infinity" not in out
    return json.loads(out)  # type: ignore[no-any-return]


def cuboid(x: float, label: str = "car", size: float = 2.0) -> dict[str, Any]:
    return {"type": "cuboid_3d", "label": label, "coordinates": {
        "center": [x, 0, 0], "size": [size, size, size], "rotation": [0, 0, 0, 1]}}


def box(x: float, y: float, w: float = 0.2, label: str = "car") -> dict[str, Any]:
    return {"type": "bbox", "label": label, "coordinates": {"x": x, "y": y, "width": w,
                                                            "height": w}}


def mask(rows: range, label: str = "road") -> dict[str, Any]:
    flat = [1 if (i // 8) in rows else 0 for i in range(64)]
    counts, current, run = [], 0, 0
    for v in flat:
        if v != current:
            counts.append(run)
            current, run = v, 0
        run += 1
    counts.append(run)
    return {"type": "mask", "label": label, "rle": {"counts": counts, "size": [8, 8]}}


def _lidar(tmp_path: Path, shift: float, name: str = "round") -> Path:
    annotators = {}
    for k, who in enumerate(["ana", "ben", "cai"]):
        offset = shift * k
        annotators[who] = {f"item-{i}": [structured("objects", [
            cuboid(0 + offset), cuboid(10 + offset), cuboid(20 - offset, "truck")],
            under_data=True)] for i in range(6)}
    annotators["cai"]["item-5"] = [structured("objects", [], under_data=True)]
    annotators["ben"]["item-5"] = [structured("objects", [], under_data=True)]
    return write_project(tmp_path / name, schemes=[
        {"annotation_type": "spatial_annotation", "name": "objects"}],
        items=simple_items(6), annotators=annotators)


def test_cuboids_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(["agreement", str(_lidar(tmp_path, 0.2)), "--json"], capsys)
    scheme = data["schemes"]["objects"]
    assert scheme["kind"] == "cuboids" and scheme["threshold"] == 0.25
    assert set(scheme["metrics"]) == SET_METRICS
    assert scheme["n_items"] == 6 and scheme["n_pairs"] == 18 and scheme["n_empty_pairs"] == 1
    # Two boxes shifted by 0.2 m along x (2 m cubes): IoU = 1.8 / 2.2.
    assert set(scheme["intervals"]) == SET_METRICS
    assert list(scheme["pairs"]) == ["ana|ben", "ana|cai", "ben|cai"]
    assert math.isclose(scheme["pairs"]["ana|ben"]["mean_matched_iou"], 1.8 / 2.2,
                        abs_tol=1e-9)
    assert "not chance-corrected" in " ".join(scheme["notes"])
    lo, hi = scheme["intervals"]["mean_agreement"]
    assert lo <= scheme["metrics"]["mean_agreement"] <= hi


def test_threshold_option_changes_and_is_reported(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    project = _lidar(tmp_path, 0.5)
    default = _json(["agreement", str(project), "--json"], capsys)["schemes"]["objects"]
    strict = _json(["agreement", str(project), "--json", "--threshold", "objects=0.9"],
                   capsys)["schemes"]["objects"]
    assert strict["threshold"] == 0.9
    assert strict["metrics"]["mean_agreement"] < default["metrics"]["mean_agreement"]


@pytest.mark.parametrize("bad", ["objects", "objects=2", "objects=x", "nope=0.5"])
def test_bad_threshold_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 bad: str) -> None:
    assert main(["agreement", str(_lidar(tmp_path, 0.2)), "--threshold", bad]) == 2
    assert "--threshold" in capsys.readouterr().err


def test_budget_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scheme = _json(["agreement", str(_lidar(tmp_path, 0.2)), "--json", "--budget", "50"],
                   capsys)["schemes"]["objects"]
    # Each full item costs 3 pairs × 3 × 3 = 27: item-0 fits in 50, items 1–4 do not
    # (23 left), item-5 (two empty answers: cost 0) still fits.
    assert scheme["coverage"]["n_items_over_budget"] == 4
    assert scheme["n_items"] == 2
    assert any("comparison budget" in n for n in scheme["notes"])


def test_rejected_object_leaves_the_rest_reported(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    project = _lidar(tmp_path, 0.2)
    state = project / "annotations" / "ana" / "user_state.json"
    data = json.loads(state.read_text())
    bad = cuboid(0)
    bad["coordinates"]["rotation"] = [0, 0, 0, 0]
    data["instance_id_to_label_to_value"]["item-2"] = [
        structured("objects", [cuboid(5), bad], under_data=True)]
    state.write_text(json.dumps(data))
    scheme = _json(["agreement", str(project), "--json"], capsys)["schemes"]["objects"]
    assert scheme["n_answers_rejected"] == 1
    assert "item 'item-2'" in scheme["rejected"][0] and "object 1" in scheme["rejected"][0]
    assert scheme["n_pairs"] == 16  # item-2 lost ana's answer: one pair instead of three


def test_regions_and_masks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    annotators = {
        "ana": {f"item-{i}": [structured("objects", [box(0.1, 0.1), box(0.6, 0.6, label="sign"),
                                                     mask(range(2, 5))], under_data=True)]
                for i in range(5)},
        "ben": {f"item-{i}": [structured("objects", [box(0.12, 0.1), box(0.6, 0.62),
                                                     mask(range(2, 6))], under_data=True)]
                for i in range(5)},
        "cai": {f"item-{i}": [structured("objects", [box(0.11, 0.1), box(0.95, 0.95),
                                                     mask(range(3, 5))], under_data=True)]
                for i in range(5)},
    }
    project = write_project(tmp_path / "img", schemes=[
        {"annotation_type": "image_annotation", "name": "objects"}], items=simple_items(5),
        annotators=annotators)
    data = _json(["agreement", str(project), "--json"], capsys)
    regions = data["schemes"]["objects"]
    assert regions["kind"] == "regions" and set(regions["metrics"]) == REGION_METRICS
    assert regions["n_boxes_clamped"] == 5  # cai's box at 0.95 reaches 1.15
    assert regions["chance_baseline"]["seed"] == 20261129
    assert -1.0 <= regions["metrics"]["sigma"] <= 1.0
    assert 0.0 <= regions["metrics"]["ks"] <= 1.0
    masks = data["schemes"]["objects#masks"]
    assert masks["kind"] == "masks"
    assert set(masks["metrics"]) == {"mean_sensitivity", "mean_specificity"}
    people = masks["annotators"]
    # ben over-segments (rows 2–5), cai under-segments (rows 3–4) around ana's rows 2–4.
    assert people["ben"]["specificity"] < people["ana"]["specificity"]
    assert people["cai"]["sensitivity"] < people["ana"]["sensitivity"]


def test_compare_two_rounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tight = _lidar(tmp_path, 0.05, "round1")
    loose = _lidar(tmp_path, 0.6, "round2")
    data = _json(["compare", str(tight), str(loose), "--json"], capsys)
    entry = data["schemes"]["objects"]
    assert entry["a"]["mean_agreement"] > entry["b"]["mean_agreement"]
    assert entry["a"]["n_pairs"] == entry["b"]["n_pairs"] == 18
    assert "placed differently" in entry["reading"]
    assert main(["compare", str(tight), str(loose)]) == 0
    assert "placed differently" in capsys.readouterr().out


def test_staple_reference_case_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    """agreement.md's STAPLE reference, through the reader, the report and --truth."""
    import numpy as np

    from app.core.objects import Mask
    from tests.reference import reference_vectors

    ref = reference_vectors()["staple_two_careful_three_careless"]
    truth = np.zeros((12, 12), dtype=bool)
    truth[3:6, 3:8] = True
    missed = np.zeros_like(truth)
    missed[3:5, 6:8] = True
    masks = {"t1": truth, "t2": truth}
    for k, (r, c) in enumerate([(9, 1), (9, 6), (1, 9)], start=1):
        careless = truth & ~missed
        careless[r, c:c + 3] = True
        masks[f"c{k}"] = careless
    masks["zz_truth"] = truth

    def answer(array: np.ndarray) -> list[Any]:
        counts = list(Mask.from_array("lesion", array).counts)
        return structured("seg", [{"type": "mask", "label": "lesion",
                                   "rle": {"counts": counts, "size": [12, 12]}}],
                          under_data=True)

    project = write_project(tmp_path / "staple", schemes=[
        {"annotation_type": "image_annotation", "name": "seg"}], items=simple_items(1),
        annotators={name: {"item-0": [answer(m)]} for name, m in masks.items()})
    data = _json(["agreement", str(project), "--json", "--truth", "zz_truth"], capsys)
    seg = data["schemes"]["seg"]
    assert seg["kind"] == "masks"
    people = seg["annotators"]
    order = ["t1", "t2", "c1", "c2", "c3"]
    assert [people[n]["sensitivity"] for n in order] == pytest.approx(ref["sensitivity"],
                                                                      abs=1e-6)
    assert [people[n]["specificity"] for n in order] == pytest.approx(ref["specificity"],
                                                                      abs=1e-6)
    assert seg["truth"]["mean_dice_staple"] == pytest.approx(ref["staple_dice"], abs=1e-6)
    assert seg["truth"]["mean_dice_majority"] == pytest.approx(ref["majority_vote_dice"],
                                                               abs=1e-6)


def test_mask_covering_the_whole_image_has_no_specificity(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full = {"type": "mask", "label": "sky", "rle": {"counts": [0, 64], "size": [8, 8]}}
    project = write_project(tmp_path / "full", schemes=[
        {"annotation_type": "image_annotation", "name": "seg"}], items=simple_items(1),
        annotators={n: {"item-0": [structured("seg", [full], under_data=True)]}
                    for n in ("ana", "ben")})
    seg = _json(["agreement", str(project), "--json"], capsys)["schemes"]["seg"]
    assert seg["metrics"]["mean_specificity"] is None
    assert "every rater marked every pixel" in seg["undefined"]["mean_specificity"]
    assert seg["metrics"]["mean_sensitivity"] == 1.0
