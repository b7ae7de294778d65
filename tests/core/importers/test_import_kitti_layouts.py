"""``accord import kitti`` on the folders users hold: the ``label_2`` folder itself (its
siblings ``calib/`` and ``velodyne/`` used), a plain folder of label files (no
calibration, no cloud), and the velodyne scans carried into the project.

Label and calibration files are written as in ``test_import_kitti`` (the devkit's
readme, by hand); a velodyne scan is raw float32 ``x, y, z, reflectance`` (the format
itself: no tool writes it differently). Potato 2.12.1's own cloud reader
(``potato/media/pointcloud.py``) is the oracle that the copied scan is a cloud it reads
with the same points, and so is Accord's (what the cuboids view draws).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from app.core.formats.importers.kitti import read
from app.core.formats.media import POINT_CLOUD_SUFFIXES, item_media, read_point_cloud
from app.core.formats.potato.project import load_study
from tests.core.importers.support import import_fails, import_ok, only_stored
from tests.core.importers.test_import_kitti import calib_text, exact_rig, folder, kitti_line

BOX = ("Car", [12.3, -4.56, -0.87], [4.2, 1.8, 1.55], 2.41)


def scan(path: Path, n: int = 50, seed: int = 3) -> np.ndarray:
    """A velodyne scan of ``n`` points at ``path`` (float32 × 4, little-endian)."""
    points = np.random.default_rng(seed).normal(size=(n, 4)).astype("<f4")
    path.parent.mkdir(parents=True, exist_ok=True)
    points.tofile(path)
    return points


def training(root: Path, name: str, items: list[str], *, velodyne: bool = True) -> Path:
    """A benchmark-style folder ``name/`` with label_2/, calib/ and velodyne/."""
    tr, r0 = exact_rig()
    src = folder(root, name, {item: [kitti_line(*BOX, tr, r0)] for item in items},
                 {item: calib_text(tr, r0) for item in items})
    if velodyne:
        for k, item in enumerate(items):
            scan(src / "velodyne" / f"{item}.bin", seed=k)
    return src


def config(project: Path) -> dict[str, object]:
    loaded: dict[str, object] = yaml.safe_load((project / "config.yaml").read_text())
    return loaded


def records(project: Path) -> dict[str, dict[str, object]]:
    lines = (project / "data" / "items.jsonl").read_text().splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def test_the_label_2_folder_itself_takes_calib_and_velodyne_beside_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = training(tmp_path / "whole", "alice", ["000007", "000008"])
    import_ok(capsys, "kitti", str(src), "-o", str(tmp_path / "from_parent"))
    out = import_ok(capsys, "kitti", str(src / "label_2"), "-o", str(tmp_path / "from_labels"))
    # Named after the folder holding label_2, not "label_2".
    assert "alice: answers on 2 items" in out
    for item in ("000007", "000008"):
        assert only_stored(tmp_path / "from_labels", "alice", item) == \
            only_stored(tmp_path / "from_parent", "alice", item)
    [shape] = only_stored(tmp_path / "from_labels", "alice", "000007")
    assert np.allclose(shape["coordinates"]["center"], BOX[1], atol=1e-9)  # lidar frame
    assert "2 of 2 items carry their point cloud" in out
    assert "camera frame" not in out


def test_the_scans_are_copied_as_they_are_and_potato_reads_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = training(tmp_path, "alice", ["000007", "000008"])
    project = tmp_path / "p"
    import_ok(capsys, "kitti", str(src / "label_2"), "-o", str(project))
    [scheme] = config(project)["annotation_schemes"]  # type: ignore[misc]
    assert scheme["source_field"] == "point_cloud"
    for item in ("000007", "000008"):
        relative = records(project)[item]["point_cloud"]
        assert relative == f"media/velodyne/{item}.bin"
        copied = project / str(relative)
        assert copied.read_bytes() == (src / "velodyne" / f"{item}.bin").read_bytes()
        assert load_study(project).items[item].media["point_cloud"] == copied.resolve()
    want = np.fromfile(src / "velodyne" / "000007.bin", dtype="<f4").reshape(-1, 4)
    # Accord's cuboids view reads it (its cloud reader, as the view calls it) ...
    study = load_study(project)
    scheme = study.schemes["objects"]
    found = item_media(study.items["000007"], scheme, POINT_CLOUD_SUFFIXES)
    assert found is not None and np.array_equal(read_point_cloud(found), want[:, :3])
    # ... and so does Potato 2.12.1's own ingest.
    pointcloud = pytest.importorskip("potato.media.pointcloud")
    cloud = pointcloud.read_point_cloud(project / "media" / "velodyne" / "000007.bin")
    got = np.array(cloud.positions, dtype=np.float32).reshape(-1, 3)
    assert np.array_equal(got, want[:, :3])


def test_a_plain_folder_of_label_files_has_no_calib_and_no_cloud(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = training(tmp_path, "rig", ["000007"])
    plain = src / "alice_labels"  # beside calib/ and velodyne/, but not named label_2
    plain.mkdir()
    (plain / "000007.txt").write_bytes((src / "label_2" / "000007.txt").read_bytes())
    project = tmp_path / "p"
    out = import_ok(capsys, "kitti", str(plain), "-o", str(project))
    assert "alice_labels: answers on 1 items" in out
    assert "1 sources are plain folders of label files" in out
    assert "stay in the rectified camera frame" in out and "without a point cloud" in out
    assert "point_cloud" not in records(project)["000007"]
    assert records(project)["000007"]["frame"] == "camera"
    assert not (project / "media").exists()
    # The box is the label line's, in the camera frame: x right, y down (h/2 above the
    # bottom face), z forward.
    fields = [float(v) for v in (plain / "000007.txt").read_text().split()[8:15]]
    h, _w, _l, x, y, z, _ry = fields
    [shape] = only_stored(project, "alice_labels", "000007")
    assert np.allclose(shape["coordinates"]["center"], [x, y - h / 2, z], atol=1e-12)


def test_a_camera_frame_item_gets_no_cloud_and_a_lidar_one_without_scan_says_so(
        tmp_path: Path) -> None:
    src = training(tmp_path, "alice", ["000001", "000002", "000003"])
    (src / "calib" / "000002.txt").unlink()  # camera frame, though its scan is there
    (src / "velodyne" / "000003.bin").unlink()  # lidar frame, no scan
    study = read([src / "label_2"], [])
    assert "point_cloud" in study.items["000001"].record
    assert "point_cloud" not in study.items["000002"].record
    assert "point_cloud" not in study.items["000003"].record
    notes = " ".join(study.notes)
    assert "1 of 3 items carry their point cloud" in notes
    assert "1 items in the lidar frame have no velodyne/<item>.bin" in notes
    assert "1 of 3 items have no calib/<item>.txt" in notes


def test_the_scan_is_the_rigs_from_any_source(tmp_path: Path) -> None:
    a = training(tmp_path, "a", ["000001"], velodyne=False)
    b = training(tmp_path, "b", ["000001"])
    study = read([a / "label_2", b / "label_2"], [])
    assert study.items["000001"].media == {
        "media/velodyne/000001.bin": b / "velodyne" / "000001.bin"}
    assert study.annotators() == ["a", "b"]


# ----------------------------------------------------------------------- bad input


def test_a_scan_that_is_not_whole_points_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = training(tmp_path, "alice", ["000001"], velodyne=False)
    bad = src / "velodyne" / "000001.bin"
    bad.parent.mkdir()
    bad.write_bytes(bytes(17))
    import_fails(capsys, "kitti", [str(src / "label_2")], tmp_path / "p", str(bad),
                 "17 bytes, not a multiple of 16", "float32 x, y, z, reflectance")


def test_a_folder_without_label_files_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "alice"
    empty.mkdir()
    (empty / "notes.md").write_text("no labels here")
    import_fails(capsys, "kitti", [str(empty)], tmp_path / "p", str(empty),
                 "the label_2 folder itself", "a folder of <item>.txt label files")


def test_two_label_2_folders_of_one_name_need_annotator_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = training(tmp_path / "one", "training", ["000001"])
    b = training(tmp_path / "two", "training", ["000001"])
    import_fails(capsys, "kitti", [str(a / "label_2"), str(b / "label_2")], tmp_path / "p",
                 "two sources are both annotator 'training'", "--annotator")
    study = read([a / "label_2", b / "label_2"], ["ana", "ben"])
    assert study.annotators() == ["ana", "ben"]
