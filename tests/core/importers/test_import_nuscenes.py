"""``accord import nuscenes``: nuScenes JSON tables → a Potato project of cuboids.

The tables are written here by hand in the nuScenes schema: a known box in the LIDAR_TOP
frame (with yaw, pitch and roll) goes to the global frame through ``calibrated_sensor``
(sensor → ego) and ``ego_pose`` (ego → global), composed with scipy's ``Rotation``
(independently of the importer); ``size`` as ``[w, l, h]``, ``rotation`` scalar first.
The devkit's ``Box.corners`` layout checks the axes.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.core.formats.potato.project import load_study
from app.core.objects import Cuboid
from tests.core.importers.support import (
    agreement,
    assert_same_numbers,
    cuboid_corners,
    import_fails,
    import_into_occupied,
    import_ok,
    only_stored,
    same_corners,
)
from tests.potato_project import structured, write_project

LIDAR_CS = ([0.985793, 0.0, 1.84019],
            [0.706749235646644, -0.015300993788500868, 0.01739745181256607,
             -0.7070846669051719])
"""A real nuScenes LIDAR_TOP calibrated_sensor (translation, rotation [w, x, y, z])."""


def wxyz(r: Rotation) -> list[float]:
    x, y, z, w = r.as_quat()
    return [float(w), float(x), float(y), float(z)]


def rot(q_wxyz: list[float]) -> Rotation:
    w, x, y, z = q_wxyz
    return Rotation.from_quat([x, y, z, w])


def ego_pose(k: int) -> tuple[list[float], list[float]]:
    """A pose of the car on a slope: heading, a little pitch and roll."""
    r = Rotation.from_euler("ZYX", [0.7 + 0.3 * k, 0.03, -0.02])
    return [400.0 + 7 * k, 1100.0 - 3 * k, 0.4], wxyz(r)


def to_global(center: list[float], r: Rotation, pose: tuple[list[float], list[float]],
              cs: tuple[list[float], list[float]] = LIDAR_CS) -> tuple[list[float], Rotation]:
    """Sensor → ego → global, as the devkit composes the poses."""
    rc, re = rot(cs[1]), rot(pose[1])
    ego = rc.apply(center) + np.array(cs[0])
    glob = re.apply(ego) + np.array(pose[0])
    return [float(v) for v in glob], re * rc * r


def devkit_corners(center: list[float], wlh: list[float], q_wxyz: list[float]) -> np.ndarray:
    """nuScenes devkit ``Box.corners()`` (3×8 there), 8×3 here."""
    w, l, h = wlh  # noqa: E741
    xs = l / 2 * np.array([1, 1, 1, 1, -1, -1, -1, -1])
    ys = w / 2 * np.array([1, -1, -1, 1, 1, -1, -1, 1])
    zs = h / 2 * np.array([1, 1, -1, -1, 1, 1, -1, -1])
    return np.asarray(rot(q_wxyz).apply(np.stack([xs, ys, zs], axis=1)) + np.array(center))


Box = tuple[str, list[float], list[float], Rotation]
"""(category, sensor-frame centre, [l, w, h], sensor-frame rotation)."""


def write_tables(root: Path, boxes: dict[str, list[Box]], *, poses: bool = True,
                 posed: set[str] | None = None, extra: dict[str, Any] | None = None) -> Path:
    """One annotator's tables: samples s0, s1... (some may be left out); boxes given in
    the LIDAR_TOP frame are written in the global frame (through the poses when the
    sample has them)."""
    root.mkdir(parents=True)
    categories = sorted({b[0] for bs in boxes.values() for b in bs} | {"vehicle.car"})
    t: dict[str, list[dict[str, Any]]] = {
        "sample": [], "sample_annotation": [], "instance": [], "sample_data": [],
        "ego_pose": [], "calibrated_sensor": [], "sensor": [
            {"token": "sen-lidar", "channel": "LIDAR_TOP", "modality": "lidar"},
            {"token": "sen-cam", "channel": "CAM_FRONT", "modality": "camera"}],
        "category": [{"token": f"cat-{n}", "name": n, "description": ""} for n in categories]}
    t["calibrated_sensor"] = [
        {"token": "cs-lidar", "sensor_token": "sen-lidar", "translation": LIDAR_CS[0],
         "rotation": LIDAR_CS[1], "camera_intrinsic": []},
        {"token": "cs-cam", "sensor_token": "sen-cam", "translation": [1.7, 0.0, 1.5],
         "rotation": [0.5, -0.5, 0.5, -0.5], "camera_intrinsic": [[1266, 0, 816]] * 3}]
    for sample, mine in boxes.items():
        k = int(sample.removeprefix("s"))  # the rig's pose at sample k, whoever writes it
        t["sample"].append({"token": sample, "timestamp": 1_532_402_927_647_951 + k * 500_000,
                            "prev": "", "next": "", "scene_token": "scene-0001"})
        pose = ego_pose(k)
        has_pose = poses and (posed is None or sample in posed)
        if has_pose:
            t["ego_pose"].append({"token": f"ep-{sample}", "timestamp": 0,
                                  "translation": pose[0], "rotation": pose[1]})
            for sensor in ("lidar", "cam"):
                t["sample_data"].append({
                    "token": f"sd-{sensor}-{sample}", "sample_token": sample,
                    "ego_pose_token": f"ep-{sample}", "calibrated_sensor_token": f"cs-{sensor}",
                    "timestamp": 0, "fileformat": "pcd" if sensor == "lidar" else "jpg",
                    "is_key_frame": True, "height": 0, "width": 0, "prev": "", "next": "",
                    "filename": f"samples/{'LIDAR_TOP' if sensor == 'lidar' else 'CAM_FRONT'}"
                                f"/{sample}.bin"})
        for j, (category, center, (l, w, h), r) in enumerate(mine):  # noqa: E741
            c, rg = to_global(center, r, pose) if has_pose else (center, r)
            token = f"ann-{sample}-{j}"
            t["instance"].append({"token": f"inst-{token}", "category_token": f"cat-{category}",
                                  "nbr_annotations": 1, "first_annotation_token": token,
                                  "last_annotation_token": token})
            t["sample_annotation"].append({
                "token": token, "sample_token": sample, "instance_token": f"inst-{token}",
                "visibility_token": "4", "attribute_tokens": [], "translation": c,
                "size": [w, l, h], "rotation": wxyz(rg), "prev": "", "next": "",
                "num_lidar_pts": 10, "num_radar_pts": 0})
    t.update(extra or {})
    if not poses:
        for name in ("sample_data", "ego_pose", "calibrated_sensor", "sensor"):
            del t[name]
    for name, rows in t.items():
        (root / f"{name}.json").write_text(json.dumps(rows, indent=1))
    return root


def same_rotation(q: list[float], r: Rotation) -> bool:
    return bool(abs(abs(float(np.dot(q, r.as_quat()))) - 1.0) < 1e-12)


# ------------------------------------------------------------------------ round trips


TILTED = Rotation.from_euler("ZYX", [1.1, 0.12, -0.08])


def test_a_tilted_lidar_box_comes_back_with_pitch_and_roll(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    center, size = [14.2, -3.1, -0.6], [4.6, 1.95, 1.7]
    src = write_tables(tmp_path / "ana", {"s0": [("vehicle.car", center, size, TILTED)]})
    out = import_ok(capsys, "nuscenes", str(src), "-o", str(tmp_path / "p"))
    assert "pitch and roll kept" in out
    [shape] = only_stored(tmp_path / "p", "ana", "s0")
    got = shape["coordinates"]
    assert shape["label"] == "vehicle.car"
    assert np.allclose(got["center"], center, atol=1e-9, rtol=0)
    assert np.allclose(got["size"], size, atol=1e-12, rtol=0)  # [w, l, h] → [l, w, h]
    assert same_rotation(got["rotation"], TILTED)
    _, pitch, roll = Rotation.from_quat(got["rotation"]).as_euler("ZYX")
    assert math.isclose(pitch, 0.12, abs_tol=1e-9) and math.isclose(roll, -0.08, abs_tol=1e-9)
    # The devkit's corners of the written annotation, taken to the sensor frame by the
    # inverse poses, are the imported box's corners (length along x, width along y).
    ann = json.loads((src / "sample_annotation.json").read_text())[0]
    corners = devkit_corners(ann["translation"], ann["size"], ann["rotation"])
    pose = ego_pose(0)
    ego = rot(pose[1]).inv().apply(corners - np.array(pose[0]))
    sensor = rot(LIDAR_CS[1]).inv().apply(ego - np.array(LIDAR_CS[0]))
    assert same_corners(sensor, cuboid_corners(got["center"], got["size"], got["rotation"]), 1e-9)
    [box] = load_study(tmp_path / "p").answers["objects"]["s0"]["ana"].objects
    assert isinstance(box, Cuboid)
    assert np.allclose(box.center, center, atol=1e-9, rtol=0)
    assert np.allclose(box.size, size, atol=1e-12, rtol=0)
    assert same_rotation(list(box.rotation), TILTED)


def test_without_poses_the_global_frame_is_kept(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    center, size = [401.0, 1102.0, 1.1], [4.0, 1.8, 1.5]
    src = write_tables(tmp_path / "ana", {"s0": [("vehicle.car", center, size, TILTED)]},
                       poses=False)
    out = import_ok(capsys, "nuscenes", str(src), "-o", str(tmp_path / "p"))
    assert "stay in the global frame" in out
    [shape] = only_stored(tmp_path / "p", "ana", "s0")
    assert np.allclose(shape["coordinates"]["center"], center, atol=1e-12, rtol=0)
    assert same_rotation(shape["coordinates"]["rotation"], TILTED)
    ann = json.loads((src / "sample_annotation.json").read_text())[0]
    got = shape["coordinates"]
    assert same_corners(devkit_corners(ann["translation"], ann["size"], ann["rotation"]),
                        cuboid_corners(got["center"], got["size"], got["rotation"]), 1e-9)


def test_empty_samples_and_poses_from_another_source(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    car = ("vehicle.car", [9.0, 2.0, -0.8], [4.0, 1.8, 1.5], TILTED)
    a = write_tables(tmp_path / "a", {"s0": [car], "s1": []})
    b = write_tables(tmp_path / "b", {"s0": [car]}, poses=False)
    # b's global-frame box is only right if written through the poses: rewrite it so.
    rows = json.loads((a / "sample_annotation.json").read_text())
    (b / "sample_annotation.json").write_text(json.dumps(rows))
    import_ok(capsys, "nuscenes", str(a), str(b), "-o", str(tmp_path / "p"))
    assert only_stored(tmp_path / "p", "a", "s1") == []
    answers = load_study(tmp_path / "p").answers["objects"]
    assert set(answers["s1"]) == {"a"}
    assert answers["s0"]["a"] == answers["s0"]["b"]  # b used a's poses


# ------------------------------------------------------------------------ end to end


TRUTH: dict[str, list[Box]] = {
    "s0": [("vehicle.car", [12.0, 3.0, -0.9], [4.5, 1.9, 1.6],
            Rotation.from_euler("ZYX", [0.3, 0.05, 0.02])),
           ("human.pedestrian.adult", [7.0, -4.0, -0.8], [0.7, 0.6, 1.8],
            Rotation.from_euler("Z", 1.2))],
    "s1": [("vehicle.bicycle", [18.0, 3.5, -0.9], [1.8, 0.6, 1.7],
            Rotation.from_euler("ZYX", [-0.1, 0.0, 0.1]))],
    "s2": [("vehicle.car", [25.0, -5.0, -1.0], [4.4, 1.8, 1.5],
            Rotation.from_euler("ZYX", [3.0, -0.04, 0.0]))],
    "s3": [],
}
NOISE = {"ana": (0.0, 0.0), "ben": (0.3, 0.1), "cai": (-0.35, -0.12)}


def _study() -> dict[str, dict[str, list[Box]]]:
    out = {who: {s: [(k, [c[0] + dx, c[1] + dx / 3, c[2]], size,
                      Rotation.from_euler("Z", turn) * r) for k, c, size, r in boxes]
                 for s, boxes in TRUTH.items()} for who, (dx, turn) in NOISE.items()}
    del out["cai"]["s1"]
    out["ben"]["s3"] = [("vehicle.car", [30.0, 8.0, -0.9], [4.0, 1.8, 1.5],
                         Rotation.identity())]
    out["cai"]["s2"] = []
    return out


def test_agreement_equals_the_same_study_as_a_potato_project(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = _study()
    # s2 has no LIDAR_TOP poses anywhere: it stays in the global frame, as written.
    sources = [write_tables(tmp_path / "nus" / who, boxes, posed={"s0", "s1", "s3"})
               for who, boxes in study.items()]
    import_ok(capsys, "nuscenes", *map(str, sources), "-o", str(tmp_path / "imported"))
    potato = write_project(tmp_path / "potato", schemes=[{
        "annotation_type": "spatial_annotation", "name": "objects"}],
        items=[{"id": s, "text": s} for s in TRUTH],
        annotators={who: {s: [structured("objects", [
            {"type": "cuboid_3d", "label": k, "coordinates": {
                "center": c, "size": size, "rotation": [float(v) for v in r.as_quat()]}}
            for k, c, size, r in boxes], under_data=True)] for s, boxes in mine.items()}
            for who, mine in study.items()})
    imported, direct = agreement(capsys, tmp_path / "imported"), agreement(capsys, potato)
    got, want = imported["schemes"]["objects"], direct["schemes"]["objects"]
    assert got["kind"] == "cuboids" and got["n_items"] == 4 and got["n_pairs"] == 10
    assert 0.2 < got["metrics"]["mean_agreement"] < 0.9
    assert_same_numbers(got, want)
    assert imported["coverage"] == direct["coverage"]


# ----------------------------------------------------------------------- bad input


CAR = ("vehicle.car", [9.0, 2.0, -0.8], [4.0, 1.8, 1.5], TILTED)


def _edit(src: Path, table: str, **changes: Any) -> None:
    rows = json.loads((src / f"{table}.json").read_text())
    rows[0].update(changes)
    (src / f"{table}.json").write_text(json.dumps(rows))


@pytest.mark.parametrize(("table", "changes", "needles"), [
    ("sample_annotation", {"size": [-1.8, 4.0, 1.5]}, ("size is", "ann-s0-0")),
    ("sample_annotation", {"size": [1.8, 4.0]}, ("list of 3 finite numbers", "ann-s0-0")),
    ("sample_annotation", {"rotation": [0, 0, 0, 0]}, ("zero quaternion", "ann-s0-0")),
    ("sample_annotation", {"sample_token": "nope"}, ("'nope' is not in sample.json",)),
    ("instance", {"category_token": "cat-x"}, ("'cat-x' is not in category.json",
                                               "instance.json")),
    ("ego_pose", {"rotation": [0, 0, 0, 0]}, ("zero quaternion", "ego_pose.json")),
])
def test_bad_records_name_file_and_token(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         table: str, changes: dict[str, Any],
                                         needles: tuple[str, ...]) -> None:
    src = write_tables(tmp_path / "ana", {"s0": [CAR]})
    _edit(src, table, **changes)
    import_fails(capsys, "nuscenes", [str(src)], tmp_path / "p", *needles)


def test_truncated_table_names_file_and_line(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    src = write_tables(tmp_path / "ana", {"s0": [CAR]})
    text = (src / "sample_annotation.json").read_text()
    (src / "sample_annotation.json").write_text(text[: len(text) // 2])
    import_fails(capsys, "nuscenes", [str(src)], tmp_path / "p",
                 f"{src / 'sample_annotation.json'}:", "not valid JSON")


def test_a_missing_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write_tables(tmp_path / "ana", {"s0": [CAR]})
    (src / "instance.json").unlink()
    import_fails(capsys, "nuscenes", [str(src)], tmp_path / "p", "instance.json", str(src))


def test_two_sources_with_different_poses(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    a = write_tables(tmp_path / "a", {"s0": [CAR]})
    b = write_tables(tmp_path / "b", {"s0": [CAR]})
    _edit(b, "ego_pose", translation=[0.0, 0.0, 0.0])
    import_fails(capsys, "nuscenes", [str(a), str(b)], tmp_path / "p", "differs from the one in",
                 str(a / "ego_pose.json"), str(b / "ego_pose.json"))


def test_existing_non_empty_output_is_refused(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    src = write_tables(tmp_path / "ana", {"s0": [CAR]})
    out = tmp_path / "p"
    code, stderr = import_into_occupied(capsys, "nuscenes", out, str(src))
    assert code == 2
    err = stderr.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and "not empty" in err[0]
