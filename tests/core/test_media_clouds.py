"""Point clouds in every format Potato 2.12.1's ingest reads, written by the formats' own
writers (pypcd4, plyfile, laspy, numpy's raw float32 rows) and read by Accord, compared
with Potato's own reader (``potato.media.pointcloud``) on the same files as the oracle:
the same points in the same order (Potato shifts them by an ``origin`` it reports; the
file's frame is ``positions + origin``), the same every-k-th thinning."""

from __future__ import annotations

from pathlib import Path

import laspy
import numpy as np
import pytest
from plyfile import PlyData, PlyElement
from potato.media import pointcloud as potato_clouds
from pypcd4.pypcd4 import Encoding
from pypcd4.pypcd4 import PointCloud as Pcd

from app.core.errors import InputError
from app.core.formats.media import POINT_CLOUD_SUFFIXES, item_media, read_point_cloud
from app.core.formats.media.clouds import cloud_format
from app.core.model import Item, Scheme


def _sweep(n: int = 1000, seed: int = 7) -> np.ndarray:
    """x, y, z, intensity of a lidar-like sweep (metres, a few tens around the car)."""
    rng = np.random.default_rng(seed)
    xyz = rng.uniform([-40, -40, -2], [40, 40, 4], size=(n, 3))
    return np.column_stack([xyz, rng.uniform(0, 1, n)]).astype(np.float32)


def _potato(path: Path, max_points: int = 0) -> np.ndarray:
    cloud = potato_clouds.read_point_cloud(path, max_points=max_points)
    points = np.frombuffer(cloud.positions.tobytes(), dtype="<f4").reshape(-1, 3)
    origin = np.zeros(3) if cloud.origin is None else np.asarray(cloud.origin)
    return points.astype(np.float64) + origin


def _write_pcd(path: Path, sweep: np.ndarray, encoding: Encoding) -> Path:
    Pcd.from_xyzi_points(sweep).save(path, encoding=encoding)
    return path


def _write_ply(path: Path, sweep: np.ndarray, text: bool) -> Path:
    rows = np.array([tuple(r) for r in sweep],
                    dtype=[("x", "f4"), ("y", "f4"), ("z", "f4"), ("intensity", "f4")])
    PlyData([PlyElement.describe(rows, "vertex")], text=text).write(str(path))
    return path


def _write_las(path: Path, sweep: np.ndarray) -> Path:
    header = laspy.LasHeader(point_format=3, version="1.2")
    header.scales = np.array([0.001, 0.001, 0.001])
    header.offsets = np.array([500_000.0, 4_000_000.0, 0.0])  # UTM-like, as surveys write
    las = laspy.LasData(header)
    las.x = sweep[:, 0].astype(np.float64) + 500_000.0
    las.y = sweep[:, 1].astype(np.float64) + 4_000_000.0
    las.z = sweep[:, 2].astype(np.float64)
    las.write(str(path))
    return path


def _write_kitti(path: Path, sweep: np.ndarray) -> Path:
    sweep.astype("<f4").tofile(path)
    return path


WRITERS = {
    "pcd_ascii": lambda d, s: _write_pcd(d / "c.pcd", s, Encoding.ASCII),
    "pcd_binary": lambda d, s: _write_pcd(d / "c.pcd", s, Encoding.BINARY),
    "pcd_binary_compressed": lambda d, s: _write_pcd(d / "c.pcd", s, Encoding.BINARY_COMPRESSED),
    "ply_text": lambda d, s: _write_ply(d / "c.ply", s, True),
    "ply_binary": lambda d, s: _write_ply(d / "c.ply", s, False),
    "las": lambda d, s: _write_las(d / "c.las", s),
    "kitti_bin": lambda d, s: _write_kitti(d / "000000.bin", s),
}


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_every_format_reads_the_points_potato_reads(tmp_path: Path, name: str) -> None:
    sweep = _sweep()
    path = WRITERS[name](tmp_path, sweep)
    ours = read_point_cloud(path)
    theirs = _potato(path)
    assert ours.dtype == np.float32 and ours.shape == (len(sweep), 3)
    # float32 coordinates: LAS ones are ~4e6, where a float32 step is 0.25 m
    tol = 0.5 if name == "las" else 1e-4
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=tol)
    if name != "las":  # and the writer's own numbers (LAS stores them at 1 mm)
        np.testing.assert_allclose(ours, sweep[:, :3], rtol=0, atol=1e-4)


@pytest.mark.parametrize("name", ["pcd_binary", "ply_binary", "las", "kitti_bin"])
def test_thinning_keeps_the_same_points_as_potato(tmp_path: Path, name: str) -> None:
    sweep = _sweep(n=1003)
    path = WRITERS[name](tmp_path, sweep)
    ours = read_point_cloud(path, max_points=100)
    theirs = _potato(path, max_points=100)
    assert len(ours) == len(theirs) == 92  # every 11th of 1003
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=0.5 if name == "las" else 1e-4)


def test_las_read_in_chunks_keeps_the_global_stride(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 7 points over a stride of 3: the kept rows are still 0, 3, 6, …"""
    sweep = _sweep(n=50)
    path = _write_las(tmp_path / "c.las", sweep)
    real = laspy.LasReader.chunk_iterator
    monkeypatch.setattr(laspy.LasReader, "chunk_iterator",
                        lambda self, n: real(self, 7))
    ours = read_point_cloud(path, max_points=17)
    np.testing.assert_allclose(ours[:, 2], sweep[::3, 2], atol=1e-3)


def test_nuscenes_pcd_bin_has_five_columns(tmp_path: Path) -> None:
    sweep = _sweep(n=40)
    rows = np.column_stack([sweep, np.arange(40, dtype=np.float32) % 32])  # + ring
    rows.astype("<f4").tofile(tmp_path / "n008__LIDAR_TOP__1.pcd.bin")
    ours = read_point_cloud(tmp_path / "n008__LIDAR_TOP__1.pcd.bin")
    np.testing.assert_array_equal(ours, sweep[:, :3])


def test_pcd_nan_returns_are_dropped(tmp_path: Path) -> None:
    sweep = _sweep(n=10)
    sweep[3, 0] = np.nan
    path = _write_pcd(tmp_path / "c.pcd", sweep, Encoding.BINARY)
    ours = read_point_cloud(path)
    np.testing.assert_array_equal(ours, np.delete(sweep, 3, axis=0)[:, :3])


def test_format_is_found_from_content_before_the_name(tmp_path: Path) -> None:
    path = _write_pcd(tmp_path / "scan.bin", _sweep(n=5), Encoding.BINARY)
    assert cloud_format(path, path.read_bytes()[:16]) == "pcd"
    np.testing.assert_array_equal(read_point_cloud(path), _sweep(n=5)[:, :3])


@pytest.mark.parametrize(("name", "data", "expected"), [
    ("000001.bin", b"\0" * 20, r"000001\.bin: the file is 20 bytes, not a whole number of "
                               r"16-byte points; expected KITTI velodyne float32 rows"),
    ("c.pcd", b"# .PCD v0.7\nFIELDS x y\nSIZE 4 4\nTYPE F F\nCOUNT 1 1\nWIDTH 1\nHEIGHT 1\n"
              b"POINTS 1\nDATA ascii\n1 2\n", r"c\.pcd: .*expected a PCD file"),
    ("h.pcd", b"VERSION .7\nFIELDS x y\n", r"h\.pcd: cannot read the point cloud \(its header "
                                             r"lacks or misstates COUNT, POINTS, SIZE, TYPE, "
                                             r"WIDTH\); expected a PCD file"),
    ("c.ply", b"ply\nformat ascii 1.0\nelement face 0\nend_header\n",
     r"c\.ply: the PLY has no vertex element"),
    ("c.las", b"LASF" + b"\0" * 40, r"c\.las: cannot read the point cloud .*expected a LAS"),
    ("c.laz", b"LASF" + b"\0" * 40, r"c\.laz: the cloud is LAZ"),
    ("c.xyz", b"1 2 3\n", r"c\.xyz: the point cloud's format is not recognised"),
])
def test_an_unreadable_cloud_is_one_sentence_naming_the_file(
        tmp_path: Path, name: str, data: bytes, expected: str) -> None:
    (tmp_path / name).write_bytes(data)
    with pytest.raises(InputError, match=expected) as caught:
        read_point_cloud(tmp_path / name)
    assert "\n" not in str(caught.value)


def test_the_cuboids_view_finds_every_cloud_format() -> None:
    for suffix in (".pcd", ".ply", ".las", ".bin", ".npy"):
        item = Item("i", {}, media={"text": Path("a.txt"), "cloud": Path(f"s{suffix}")})
        scheme = Scheme("boxes", "spatial_annotation", None, config={"source_field": "cloud"})
        assert item_media(item, scheme, POINT_CLOUD_SUFFIXES) == Path(f"s{suffix}")
    item = Item("i", {}, media={"cloud": Path("n__LIDAR_TOP__1.pcd.bin")})
    assert item_media(item, None, POINT_CLOUD_SUFFIXES) == Path("n__LIDAR_TOP__1.pcd.bin")


def test_the_importers_clouds_are_read_where_the_cuboids_view_looks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``accord import kitti`` and ``accord import nuscenes`` carry each scan into the
    project (the importers' own tests build the sources); the cuboids view finds each
    item's cloud and reads the scan's points."""
    from app.core.formats.potato.project import load_study
    from tests.core.importers.support import import_ok
    from tests.core.importers.test_import_kitti_layouts import training
    from tests.core.importers.test_import_nuscenes_clouds import SCAN, dataset

    kitti = training(tmp_path / "k", "alice", ["000007", "000008"])
    import_ok(capsys, "kitti", str(kitti / "label_2"), "-o", str(tmp_path / "pk"))
    nuscenes = dataset(tmp_path / "n")
    import_ok(capsys, "nuscenes", str(nuscenes), "-o", str(tmp_path / "pn"))
    seen = 0
    for project, source in ((tmp_path / "pk", lambda item: (kitti / "velodyne" / f"{item}.bin",
                                                            4)),
                            (tmp_path / "pn", lambda item: (nuscenes / SCAN.format(k=item), 5))):
        study = load_study(project)
        scheme = next(iter(study.schemes.values()))
        for item in study.items.values():
            path = item_media(item, scheme, POINT_CLOUD_SUFFIXES)
            if path is None:
                continue
            original, width = source(item.id)
            want = np.fromfile(original, dtype="<f4").reshape(-1, width)[:, :3]
            np.testing.assert_array_equal(read_point_cloud(path), want)
            seen += 1
    assert seen == 4
