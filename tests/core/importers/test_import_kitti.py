"""``accord import kitti``: KITTI 3D labels (+ calib) → a Potato project of cuboids.

The KITTI files are written here by hand, following the object devkit's readme: a known
lidar-frame box goes to the rectified camera with ``R0_rect · Tr_velo_to_cam`` (written
in this file, independently of the importer), its centre down to the bottom face, its
heading to ``rotation_y``; ``h w l`` in that order. The devkit's own corner layout
(``computeBox3D``) checks the axes, and Potato 2.12.1's ``kitti3d`` reader is a second
oracle where it is installed.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.core.formats.potato.project import load_study
from app.core.objects import Cuboid, ObjectSet
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
from tests.potato_project import simple_items, structured, write_project

PERMUTATION = np.array([[0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]])
"""Lidar (x forward, y left, z up) → camera (x right, y down, z forward)."""
KITTI_R0 = [9.999239e-01, 9.837760e-03, -7.445048e-03, -9.869795e-03, 9.999421e-01,
            -4.278459e-03, 7.402527e-03, 4.351614e-03, 9.999631e-01]
KITTI_TR = [7.533745e-03, -9.999714e-01, -6.166020e-04, -4.069766e-03, 1.480249e-02,
            7.280733e-04, -9.998902e-01, -7.631618e-02, 9.998621e-01, 7.523790e-03,
            1.480755e-02, -2.717806e-01]
"""training/calib/000000.txt of the KITTI object benchmark: a real, slightly tilted rig."""


def _ry(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def exact_rig() -> tuple[np.ndarray, np.ndarray]:
    """A rig whose camera y is exactly the lidar's −z (turned about camera y only), so
    a heading survives KITTI's single angle exactly: (Tr 3×4, R0 3×3)."""
    tr = np.hstack([_ry(0.13) @ PERMUTATION, [[0.27], [-0.08], [-0.31]]])
    return tr, _ry(-0.021)


def real_rig() -> tuple[np.ndarray, np.ndarray]:
    return np.array(KITTI_TR).reshape(3, 4), np.array(KITTI_R0).reshape(3, 3)


def velo_to_cam(tr: np.ndarray, r0: np.ndarray) -> np.ndarray:
    """The devkit's ``R0_rect · Tr_velo_to_cam`` as a 4×4."""
    t = np.vstack([tr, [0, 0, 0, 1]])
    r = np.eye(4)
    r[:3, :3] = r0
    return r @ t


def calib_text(tr: np.ndarray, r0: np.ndarray) -> str:
    row = lambda m: " ".join(repr(float(v)) for v in np.ravel(m))  # noqa: E731
    p = "7.215377e+02 0.0 6.095593e+02 4.485728e+01 0.0 7.215377e+02 1.728540e+02 " \
        "2.163791e-01 0.0 0.0 1.0 2.745884e-03"
    return (f"P0: {p}\nP1: {p}\nP2: {p}\nP3: {p}\nR0_rect: {row(r0)}\n"
            f"Tr_velo_to_cam: {row(tr)}\nTr_imu_to_velo: {row(np.eye(3, 4))}\n")


def kitti_line(kind: str, center: list[float], size: list[float], yaw: float,
               tr: np.ndarray, r0: np.ndarray, score: float | None = None) -> str:
    """A lidar box (centre, [l, w, h], yaw about z) as a KITTI label line (devkit
    readme): centre → camera, down h/2 to the bottom face (+y is down), heading →
    rotation_y = atan2(−f_z, f_x) of the length axis in the camera, ``h w l``."""
    l, w, h = size  # noqa: E741
    m = velo_to_cam(tr, r0)
    cam = m[:3, :3] @ np.array(center) + m[:3, 3]
    bottom = cam + np.array([0.0, h / 2, 0.0])
    f = m[:3, :3] @ np.array([math.cos(yaw), math.sin(yaw), 0.0])
    ry = math.atan2(-f[2], f[0])
    alpha = ry - math.atan2(bottom[0], bottom[2])
    fields = [kind, "0.00", "0", repr(alpha), "100.0", "120.0", "180.0", "200.0",
              repr(h), repr(w), repr(l), *(repr(float(v)) for v in bottom), repr(ry)]
    return " ".join(fields + ([repr(score)] if score is not None else []))


def devkit_corners(h: float, w: float, l: float, x: float, y: float, z: float,  # noqa: E741
                   ry: float) -> np.ndarray:
    """computeBox3D of the KITTI object devkit (camera frame), 8×3."""
    xs = [l / 2, l / 2, -l / 2, -l / 2, l / 2, l / 2, -l / 2, -l / 2]
    ys = [0, 0, 0, 0, -h, -h, -h, -h]
    zs = [w / 2, -w / 2, -w / 2, w / 2, w / 2, -w / 2, -w / 2, w / 2]
    return (_ry(ry) @ np.array([xs, ys, zs])).T + np.array([x, y, z])


def yaw_of(q: list[float]) -> float:
    return float(Rotation.from_quat(q).as_euler("ZYX")[0])


def angle_diff(a: float, b: float) -> float:
    return abs((a - b + math.pi) % (2 * math.pi) - math.pi)


def folder(root: Path, name: str, labels: dict[str, list[str]],
           calibs: dict[str, str] | None = None) -> Path:
    (root / name / "label_2").mkdir(parents=True)
    for item, lines in labels.items():
        (root / name / "label_2" / f"{item}.txt").write_text("".join(f"{x}\n" for x in lines))
    for item, text in (calibs or {}).items():
        (root / name / "calib").mkdir(exist_ok=True)
        (root / name / "calib" / f"{item}.txt").write_text(text)
    return root / name


# ------------------------------------------------------------------------ round trips


def test_a_lidar_box_comes_back_through_kitti(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    tr, r0 = exact_rig()
    center, size, yaw = [12.3, -4.56, -0.87], [4.2, 1.8, 1.55], 2.41
    line = kitti_line("Car", center, size, yaw, tr, r0)
    src = folder(tmp_path, "ana", {"000007": [line]}, {"000007": calib_text(tr, r0)})
    out = import_ok(capsys, "kitti", str(src), "-o", str(tmp_path / "p"))
    assert "no pitch or roll" in out
    [shape] = only_stored(tmp_path / "p", "ana", "000007")
    assert shape["type"] == "cuboid_3d" and shape["label"] == "Car"
    got = shape["coordinates"]
    assert np.allclose(got["center"], center, atol=1e-9, rtol=0)
    assert np.allclose(got["size"], size, atol=1e-12, rtol=0)
    assert got["rotation"][:2] == [0.0, 0.0]  # a turn about lidar z only
    assert angle_diff(yaw_of(got["rotation"]), yaw) < 1e-9
    # The devkit's corners of the written line, taken back to the lidar frame, are the
    # imported box's corners: the length, width and height axes are the devkit's.
    fields = [float(v) for v in line.split()[8:15]]
    cam = devkit_corners(*fields)
    lidar = (np.linalg.inv(velo_to_cam(tr, r0)) @ np.hstack([cam, np.ones((8, 1))]).T).T[:, :3]
    assert same_corners(lidar, cuboid_corners(got["center"], got["size"], got["rotation"]), 1e-9)
    # What Accord's reader reads back: metres, the same quaternion.
    [box] = load_study(tmp_path / "p").answers["objects"]["000007"]["ana"].objects
    assert isinstance(box, Cuboid) and box.label == "Car"
    assert np.allclose(box.center, center, atol=1e-9, rtol=0)
    assert np.allclose(box.size, size, atol=1e-12, rtol=0)
    assert angle_diff(yaw_of(list(box.rotation)), yaw) < 1e-9


def test_potato_own_kitti_reader_agrees(tmp_path: Path) -> None:
    """Potato 2.12.1's kitti3d (full rotation, Rᵀ as the inverse) gives the same centre
    and size, and the same heading on a rig whose camera y is the lidar's −z; on the
    real, tilted rig it keeps the camera's tilt, which this importer does not."""
    kitti3d = pytest.importorskip("potato.export.kitti3d")
    from app.core.formats.importers.kitti import read

    for name, (tr, r0), heading_tol in (("exact", exact_rig(), 1e-9),
                                        ("real", real_rig(), 0.02)):
        line = kitti_line("Cyclist", [8.0, 3.5, -0.9], [1.8, 0.6, 1.7], -0.7, tr, r0)
        src = folder(tmp_path, name, {"000005": [line]}, {"000005": calib_text(tr, r0)})
        mine = read([src], [])
        h, w, l, x, y, z, ry = (float(v) for v in line.split()[8:15])  # noqa: E741
        flat = list(velo_to_cam(tr, r0)[:3].ravel())
        theirs = kitti3d.kitti_to_cuboid("Cyclist", [h, w, l], [x, y, z], ry, flat)
        got = mine.answers[name]["000005"]["objects"][0]["coordinates"]
        assert np.allclose(got["center"], theirs["coordinates"]["center"], atol=1e-4)
        assert got["size"] == theirs["coordinates"]["size"]
        assert angle_diff(yaw_of(got["rotation"]),
                          yaw_of(theirs["coordinates"]["rotation"])) < heading_tol


def test_real_rig_keeps_the_centre_and_turns_about_lidar_z(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tr, r0 = real_rig()
    center, size, yaw = [20.1, 2.2, -0.95], [3.9, 1.7, 1.5], 0.4
    line = kitti_line("Van", center, size, yaw, tr, r0)
    src = folder(tmp_path, "ana", {"000000": [line]}, {"000000": calib_text(tr, r0)})
    import_ok(capsys, "kitti", str(src), "-o", str(tmp_path / "p"))
    [shape] = only_stored(tmp_path / "p", "ana", "000000")
    got = shape["coordinates"]
    # The camera's 0.8° tilt moves the bottom-face centre a little off the box's own
    # axis; the imported centre is the camera point moved up h/2, mapped exactly.
    h, *_rest = (float(v) for v in line.split()[8:11])
    x, y, z = (float(v) for v in line.split()[11:14])
    m = velo_to_cam(tr, r0)
    expected = np.linalg.solve(m[:3, :3], np.array([x, y - h / 2, z]) - m[:3, 3])
    assert np.allclose(got["center"], expected, atol=1e-9, rtol=0)
    assert np.allclose(got["center"], center, atol=0.03)
    assert got["rotation"][:2] == [0.0, 0.0]
    assert angle_diff(yaw_of(got["rotation"]), yaw) < 0.02
    # The classic hard-coded form for the standard rig, yaw = −ry − π/2, is close too.
    ry = float(line.split()[14])
    assert angle_diff(yaw_of(got["rotation"]), -ry - math.pi / 2) < 0.02


def test_without_calib_the_camera_frame_is_kept(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    fields = (1.5, 1.6, 3.9, 2.0, 1.7, 15.0, 0.6)  # h w l x y z ry
    line = "Car 0.00 0 -1.2 100 120 180 200 " + " ".join(repr(v) for v in fields)
    src = folder(tmp_path, "ana", {"000001": [line]})
    out = import_ok(capsys, "kitti", str(src), "-o", str(tmp_path / "p"))
    assert "camera frame" in out
    [shape] = only_stored(tmp_path / "p", "ana", "000001")
    got = shape["coordinates"]
    assert np.allclose(got["center"], [2.0, 1.7 - 0.75, 15.0], atol=1e-12, rtol=0)
    assert got["size"] == [3.9, 1.6, 1.5]
    assert same_corners(devkit_corners(*fields),
                        cuboid_corners(got["center"], got["size"], got["rotation"]), 1e-9)


def test_dont_care_empty_files_scores_and_absent_items(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    tr, r0 = exact_rig()
    car = kitti_line("Car", [10.0, 1.0, -0.9], [4.0, 1.8, 1.5], 0.1, tr, r0, score=0.93)
    dont = "DontCare -1 -1 -10 503.89 169.71 590.61 190.13 -1 -1 -1 -1000 -1000 -1000 -10"
    a = folder(tmp_path, "a", {"000001": [car, dont], "000002": [dont], "000003": []},
               {"000001": calib_text(tr, r0)})
    b = folder(tmp_path, "b", {"000001": [car]})
    out = import_ok(capsys, "kitti", str(a), str(b), "-o", str(tmp_path / "p"),
                    "--annotator", "alice", "--annotator", "bruno")
    assert "2 DontCare objects were skipped" in out
    assert "scores are ignored" in out
    assert len(only_stored(tmp_path / "p", "alice", "000001")) == 1
    assert only_stored(tmp_path / "p", "alice", "000002") == []
    assert only_stored(tmp_path / "p", "alice", "000003") == []
    study = load_study(tmp_path / "p")
    answers = study.answers["objects"]
    assert set(answers["000002"]) == {"alice"} and answers["000002"]["alice"] == ObjectSet(())
    # bruno has no calib for 000001: alice's (the rig's) is used, so both are in the
    # lidar frame and agree exactly.
    assert answers["000001"]["alice"] == answers["000001"]["bruno"]
    config = (tmp_path / "p" / "config.yaml").read_text()
    assert "spatial_annotation" in config and "DontCare" not in config


# ------------------------------------------------------------------------ end to end


TRUTH = {
    "000001": [("Car", [10.0, 2.0, -0.9], [4.2, 1.8, 1.5], 0.2),
               ("Pedestrian", [6.0, -3.0, -0.8], [0.6, 0.6, 1.8], 1.4)],
    "000002": [("Car", [25.0, -5.3, -0.95], [4.5, 1.9, 1.6], math.pi - 0.1)],
    "000003": [("Cyclist", [15.0, 3.5, -0.85], [1.8, 0.6, 1.7], -0.05)],
    "000004": [],
}
NOISE = {"ana": (0.0, 0.0), "ben": (0.25, 0.08), "cai": (-0.4, -0.15)}


def _study() -> dict[str, dict[str, list[tuple[str, list[float], list[float], float]]]]:
    out: dict[str, dict[str, list[tuple[str, list[float], list[float], float]]]] = {}
    for who, (shift, turn) in NOISE.items():
        out[who] = {item: [(k, [c[0] + shift, c[1] - shift / 2, c[2]], s, yaw + turn)
                           for k, c, s, yaw in boxes] for item, boxes in TRUTH.items()}
    del out["cai"]["000002"]  # cai did not see 000002
    out["cai"]["000003"] = []  # nothing drawn
    out["ben"]["000004"] = [("Car", [30.0, 8.0, -0.9], [4.0, 1.8, 1.5], 0.0)]
    return out


def test_agreement_equals_the_same_study_as_a_potato_project(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tr, r0 = exact_rig()
    study = _study()
    sources = []
    for k, (who, items) in enumerate(study.items()):
        calibs = {item: calib_text(tr, r0) for item in items} if k != 1 else {}
        sources.append(folder(tmp_path / "kitti", who, {
            item: [kitti_line(*box, tr, r0) for box in boxes] for item, boxes in items.items()},
            calibs))
    import_ok(capsys, "kitti", *map(str, sources), "-o", str(tmp_path / "imported"))
    potato = write_project(tmp_path / "potato", schemes=[{
        "annotation_type": "spatial_annotation", "name": "objects",
        "labels": ["Car", "Cyclist", "Pedestrian"]}],
        items=[{"id": item, "text": item} for item in TRUTH] or simple_items(0),
        annotators={who: {item: [structured("objects", [
            {"type": "cuboid_3d", "label": k, "coordinates": {
                "center": c, "size": s, "rotation": [0, 0, math.sin(yaw / 2),
                                                     math.cos(yaw / 2)]}}
            for k, c, s, yaw in boxes], under_data=True)] for item, boxes in items.items()}
            for who, items in study.items()})
    imported = agreement(capsys, tmp_path / "imported")
    direct = agreement(capsys, potato)
    got, want = imported["schemes"]["objects"], direct["schemes"]["objects"]
    assert got["kind"] == "cuboids" and got["n_items"] == 4 and got["n_empty_pairs"] == 1
    assert 0.3 < got["metrics"]["mean_agreement"] < 0.9
    assert_same_numbers(got, want)
    assert imported["coverage"] == direct["coverage"]


# ----------------------------------------------------------------------- bad input


GOOD = "Car 0.00 0 0.1 100 120 180 200 1.5 1.6 3.9 2.0 1.7 15.0 0.6"


@pytest.mark.parametrize(("line", "needle"), [
    ("Car 0.00 0 0.1 100 120 180 200 1.5 1.6 3.9 2.0 1.7", "expected 15"),
    (GOOD + " 0.9 7", "has 17 fields"),
    ("Car 0.00 0 0.1 100 120 180 200 1.5 -1.6 3.9 2.0 1.7 15.0 0.6", "negative size"),
    ("Car 0.00 0 0.1 100 120 180 200 1.5 1.6 3.9 2.0 abc 15.0 0.6", "field 'y'"),
    ("Car 0.00 0 0.1 100 120 180 200 1.5 1.6 3.9 2.0 nan 15.0 0.6", "finite number"),
])
def test_bad_label_line_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            line: str, needle: str) -> None:
    src = folder(tmp_path, "ana", {"000001": [GOOD, line]})
    message = import_fails(capsys, "kitti", [str(src)], tmp_path / "p", needle)
    assert f"{src / 'label_2' / '000001.txt'}:2:" in message


@pytest.mark.parametrize(("calib", "needle"), [
    ("Tr_velo_to_cam: 1 0 0 0 0 1 0 0 0 0 1\n", "holds 11 numbers; expected 12"),
    ("R0_rect: 1 0 0 0 1 0 0 0 2\nTr_velo_to_cam: 1 0 0 0 0 1 0 0 0 0 1 0\n", "not a rotation"),
    ("Tr_velo_to_cam: 1 0 0 0 0 1 0 0 0 0 1 x\n", "expected a finite number"),
])
def test_bad_calib_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       calib: str, needle: str) -> None:
    src = folder(tmp_path, "ana", {"000001": [GOOD]}, {"000001": calib})
    import_fails(capsys, "kitti", [str(src)], tmp_path / "p", needle,
                 str(src / "calib" / "000001.txt"))


def test_two_different_calibrations_for_one_item(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    tr, r0 = exact_rig()
    a = folder(tmp_path, "a", {"000001": [GOOD]}, {"000001": calib_text(tr, r0)})
    b = folder(tmp_path, "b", {"000001": [GOOD]}, {"000001": calib_text(*real_rig())})
    import_fails(capsys, "kitti", [str(a), str(b)], tmp_path / "p", "differs from the one in",
                 str(a / "calib" / "000001.txt"), str(b / "calib" / "000001.txt"))


def test_a_source_without_label_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ana").mkdir()
    import_fails(capsys, "kitti", [str(tmp_path / "ana")], tmp_path / "p", "label_2",
                 str(tmp_path / "ana"))


def test_existing_non_empty_output_is_refused(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    src = folder(tmp_path, "ana", {"000001": [GOOD]})
    out = tmp_path / "p"
    code, stderr = import_into_occupied(capsys, "kitti", out, str(src))
    assert code == 2
    err = stderr.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and "not empty" in err[0]
