"""``accord import nuscenes`` carries each sample's LIDAR_TOP scan into the project.

A nuScenes lidar scan (``samples/LIDAR_TOP/*.pcd.bin``) is raw float32 ``x, y, z,
intensity, ring``; the tables are written as in ``test_import_nuscenes``. The scan in the
project must be one Potato 2.12.1's own cloud reader (``potato/media/pointcloud.py``,
which takes any ``.bin`` as KITTI's float32 × 4) reads with the scan's own x, y, z: the
oracle that the ring column was dropped and nothing else moved; Accord's own cloud reader
(what the cuboids view draws) reads the same points.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.core.formats.importers.nuscenes import read
from app.core.formats.media import read_point_cloud
from app.core.formats.potato.project import load_study
from tests.core.importers.support import import_fails, import_ok
from tests.core.importers.test_import_nuscenes import write_tables

BOXES = {"s0": [("vehicle.car", [10.0, 2.0, -0.9], [4.2, 1.8, 1.5],
                 Rotation.from_euler("z", 0.3))],
         "s1": []}
SCAN = "samples/LIDAR_TOP/n015-2018-07-24-11-22-45+0800__LIDAR_TOP__{k}.pcd.bin"


def nuscenes_scan(path: Path, n: int, seed: int) -> np.ndarray:
    """A scan of ``n`` points: float32 × 5, the ring a small whole number."""
    rng = np.random.default_rng(seed)
    points = rng.normal(scale=20.0, size=(n, 5)).astype("<f4")
    points[:, 4] = rng.integers(0, 32, size=n)
    path.parent.mkdir(parents=True, exist_ok=True)
    points.tofile(path)
    return points


def dataset(root: Path, *, scans: bool = True, **kwargs: object) -> Path:
    """``root/v1.0-mini/*.json`` with the LIDAR_TOP filenames nuScenes uses, and the
    scans under ``root/samples/LIDAR_TOP/``."""
    tables = write_tables(root / "v1.0-mini", BOXES, **kwargs)  # type: ignore[arg-type]
    data_path = tables / "sample_data.json"
    if data_path.is_file():
        rows = json.loads(data_path.read_text())
        for row in rows:
            if row["token"].startswith("sd-lidar-"):
                row["filename"] = SCAN.format(k=row["sample_token"])
        data_path.write_text(json.dumps(rows))
    if scans:
        for k, sample in enumerate(BOXES):
            nuscenes_scan(root / SCAN.format(k=sample), 40 + k, seed=k)
    return root


def test_the_scan_goes_in_as_kitti_bin_and_potato_reads_its_points(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = dataset(tmp_path / "ana")
    project = tmp_path / "p"
    out = import_ok(capsys, "nuscenes", str(root), "-o", str(project))
    assert "2 of 2 samples carry their LIDAR_TOP point cloud" in out
    assert "ring index is dropped" in out
    records = {r["id"]: r for r in map(json.loads, (project / "data" / "items.jsonl")
                                       .read_text().splitlines())}
    pointcloud = pytest.importorskip("potato.media.pointcloud")
    for sample in BOXES:
        relative = records[sample]["point_cloud"]
        assert relative == f"media/LIDAR_TOP/{Path(SCAN.format(k=sample)).name[:-8]}.bin"
        original = np.fromfile(root / SCAN.format(k=sample), dtype="<f4").reshape(-1, 5)
        written = np.fromfile(project / relative, dtype="<f4").reshape(-1, 4)
        assert np.array_equal(written, original[:, :4])
        cloud = pointcloud.read_point_cloud(project / relative)
        got = np.array(cloud.positions, dtype=np.float32).reshape(-1, 3)
        assert np.array_equal(got, original[:, :3])
        assert np.array_equal(read_point_cloud(project / relative), original[:, :3])  # Accord
        assert load_study(project).items[sample].media["point_cloud"] == \
            (project / relative).resolve()
    assert "point_cloud" in (project / "config.yaml").read_text()  # the source_field


def test_the_tables_folder_itself_finds_the_scans_in_its_dataroot(tmp_path: Path) -> None:
    root = dataset(tmp_path / "ana")
    study = read([root / "v1.0-mini"], ["ana"])
    assert all("point_cloud" in item.record for item in study.items.values())


def test_a_sample_in_the_global_frame_gets_no_scan(tmp_path: Path) -> None:
    root = dataset(tmp_path / "ana", posed={"s0"})
    study = read([root], [])
    assert "point_cloud" in study.items["s0"].record
    assert "point_cloud" not in study.items["s1"].record
    assert any("1 of 2 samples carry" in note for note in study.notes)


def test_a_missing_scan_is_a_note(tmp_path: Path) -> None:
    root = dataset(tmp_path / "ana", scans=False)
    study = read([root], [])
    assert not any("point_cloud" in item.record for item in study.items.values())
    assert any("2 samples in the LIDAR_TOP frame have no scan file" in note
               for note in study.notes)


def test_a_scan_that_is_not_whole_points_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = dataset(tmp_path / "ana")
    bad = root / SCAN.format(k="s1")
    bad.write_bytes(bytes(16 * 5))  # 80 bytes: KITTI's 5 points, nuScenes' 4: fine
    read([root], [])
    bad.write_bytes(bytes(16 * 3))  # 48 bytes: not whole 20-byte points
    import_fails(capsys, "nuscenes", [str(root)], tmp_path / "p", str(bad),
                 "48 bytes, not a multiple of 20", "x, y, z, intensity, ring")


def test_a_scan_changed_between_reading_and_writing_is_refused_by_name(tmp_path: Path) -> None:
    """The dialog writes the study it previewed: a scan cut short meanwhile is one error
    naming it, and no project is left."""
    from app.core.errors import InputError
    from app.core.formats.importers.writer import write_project

    root = dataset(tmp_path / "ana")
    study = read([root], [])
    bad = root / SCAN.format(k="s0")
    bad.write_bytes(bad.read_bytes()[:-4])
    with pytest.raises(InputError, match="not a multiple of 20") as caught:
        write_project(study, tmp_path / "p")
    assert caught.value.file == str(bad)
    assert not (tmp_path / "p").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".p.")]
