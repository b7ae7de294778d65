"""An item's point cloud as the cuboids view draws it: at most ``max_points`` x, y, z rows.

Why well-kept readers and not ours: a lidar study arrives as whatever the sensor's tools
wrote (Potato 2.12.1's own ingest takes PCD, PLY, KITTI ``.bin`` and LAS), and each of
those formats has variants (PCD's ``ascii``/``binary``/``binary_compressed``, PLY's three
encodings, LAS's point formats and scale/offset) that a library used by the field already
gets right: pypcd4 (PCD), plyfile (PLY), laspy (LAS). Numpy reads the two headerless
layouts, ``.npy`` and the raw ``float32`` rows of KITTI's velodyne and nuScenes' lidar
``.bin``. Each library is imported when a file of its format is read, so opening a
project never pays for them.

The format is found from the file's first bytes (``ply``, ``# .PCD``/``VERSION``,
``LASF``, numpy's magic), then from its name, the way Potato's ingest does: ``.bin`` has
no header at all. Choices where the formats are silent:

- ``*.pcd.bin`` is nuScenes' layout (five ``float32`` per point: x, y, z, intensity,
  ring); any other ``.bin`` is KITTI's (four: x, y, z, intensity). A size that is not a
  whole number of rows is refused (a wrong file would otherwise draw as plausible noise).
- Coordinates are the file's own (LAS: scaled and offset, as laspy gives them), in
  ``float32`` like the ``.npy`` clouds; the first three fields of the file are not
  assumed to be x, y, z: PCD and PLY are read by field name.
- Thinning keeps every k-th point of the file (k the smallest that keeps at most
  ``max_points``), deterministic and spread over the whole sweep, as before; rows with a
  non-finite coordinate are then dropped (a PCD of an organized cloud marks missing
  returns with NaN).
- ``.npy``, KITTI/nuScenes ``.bin`` and binary PLY are memory-mapped and LAS is read in
  chunks, so a huge sweep costs only the rows kept; PCD and text PLY are read whole and
  so bounded like every file read whole (512 MiB).
- LAZ (compressed LAS) needs a LAZ backend that is not shipped: the sentence says so and
  names the conversion.

Every failure is one :class:`~app.core.errors.InputError` naming the file and what was
expected, which the cuboids view shows in its header.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.core.errors import InputError
from app.core.formats.reading.boundary import checked_file
from app.core.formats.reading.media_file import media_file, open_media_file

MAX_CLOUD_POINTS = 200_000
POINT_CLOUD_SUFFIXES = (".npy", ".pcd", ".ply", ".bin", ".las", ".laz")
"""What the cuboids view looks for among an item's media files (``.laz`` to say why not)."""

_EXPECTED = {
    "npy": "a .npy array of N × 3 numbers (x, y, z in metres)",
    "pcd": "a PCD file (ascii, binary or binary_compressed) with x, y and z fields",
    "ply": "a PLY file with a vertex element holding x, y and z",
    "las": "a LAS file (point formats 0-10)",
    "kitti": "KITTI velodyne float32 rows of x, y, z, intensity (16 bytes a point)",
    "nuscenes": "nuScenes lidar float32 rows of x, y, z, intensity, ring (20 bytes a point)",
}


def cloud_format(path: Path, head: bytes) -> str:
    """The reader for ``path`` whose first bytes are ``head``: content first, then name."""
    if head.startswith(b"ply"):
        return "ply"
    if head.startswith((b"# .PCD", b"VERSION", b"FIELDS")):
        return "pcd"
    if head.startswith(b"LASF"):
        return "laz" if path.suffix.lower() == ".laz" else "las"
    if head.startswith(b"\x93NUMPY"):
        return "npy"
    name = path.name.lower()
    if name.endswith(".pcd.bin"):
        return "nuscenes"
    return {".bin": "kitti", ".npy": "npy", ".pcd": "pcd", ".ply": "ply", ".las": "las",
            ".laz": "laz"}.get(path.suffix.lower(), "unknown")


def read_point_cloud(path: Path, max_points: int = MAX_CLOUD_POINTS) -> np.ndarray:
    """At most ``max_points`` finite points of the cloud, ``(n, 3)`` float32."""
    with open_media_file(path) as f:  # a FIFO or a device is refused, unread
        head = f.read(16)
    fmt = cloud_format(path, head)
    if fmt == "laz":
        raise InputError("the cloud is LAZ (compressed LAS), which Accord does not decompress; "
                         "expected LAS, PCD, PLY, KITTI .bin or .npy (convert it with "
                         "`laszip -i scan.laz -o scan.las`)", file=path)
    if fmt == "unknown":
        raise InputError("the point cloud's format is not recognised; expected PCD, PLY, "
                         "LAS, KITTI .bin or .npy", file=path)
    step_for = _stepper(max(1, max_points))
    try:
        points = _READERS[fmt](path, step_for)
    except InputError:
        raise
    except Exception as exc:  # a library's own parse error on a bad file, whatever its class
        raise InputError(f"cannot read the point cloud ({_short(exc)}); expected "
                         f"{_EXPECTED[fmt]}", file=path) from exc
    keep = np.isfinite(points).all(axis=1)
    out: np.ndarray = points[keep] if not keep.all() else points
    return out


Step = Callable[[int], int]


def _stepper(max_points: int) -> Step:
    """k for a cloud of ``n`` points: the smallest stride that keeps at most the cap."""
    return lambda n: max(1, -(-n // max_points))


def _short(exc: BaseException) -> str:
    """The library's reason in a few words: its first line, or for pypcd4's header model
    (a pydantic error listing every field) the header fields that are wrong."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            names = sorted({str(e["loc"][0]).upper() for e in errors() if e.get("loc")})
        except (TypeError, KeyError, IndexError, AttributeError):
            names = []
        if names:
            return f"its header lacks or misstates {', '.join(names)}"
    lines = str(exc).strip().splitlines()
    text = " ".join(lines[0].split()) if lines else type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _columns(path: Path, fmt: str, raw: np.ndarray, step_for: Step) -> np.ndarray:
    if raw.ndim != 2 or raw.shape[1] < 3 or not np.issubdtype(raw.dtype, np.number):
        raise InputError(f"point cloud has shape {raw.shape} and type {raw.dtype}; "
                         f"expected {_EXPECTED[fmt]}", file=path)
    return np.asarray(raw[::step_for(raw.shape[0]), :3], dtype=np.float32)


def _read_npy(path: Path, step_for: Step) -> np.ndarray:
    media_file(path)
    try:
        raw = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the point cloud ({exc}); expected "
                         f"{_EXPECTED['npy']}", file=path) from exc
    return _columns(path, "npy", raw, step_for)


def _rows_of_floats(width: int, fmt: str) -> Callable[[Path, Step], np.ndarray]:
    def read(path: Path, step_for: Step) -> np.ndarray:
        size = media_file(path).stat().st_size
        if size % (4 * width):
            raise InputError(f"the file is {size} bytes, not a whole number of "
                             f"{4 * width}-byte points; expected {_EXPECTED[fmt]}", file=path)
        if size == 0:
            return np.zeros((0, 3), dtype=np.float32)
        raw = np.memmap(path, dtype="<f4", mode="r").reshape(-1, width)
        return _columns(path, fmt, raw, step_for)
    return read


def _read_pcd(path: Path, step_for: Step) -> np.ndarray:
    from pypcd4.pypcd4 import PointCloud  # only when a PCD is read

    checked_file(path)  # read whole: bounded
    cloud = PointCloud.from_path(path)
    names = {name.lower(): name for name in cloud.fields}
    missing = [axis for axis in "xyz" if axis not in names]
    if missing:
        raise InputError(f"the PCD has no {', '.join(missing)} field (fields: "
                         f"{', '.join(cloud.fields)}); expected {_EXPECTED['pcd']}", file=path)
    data = cloud.pc_data
    rows = slice(None, None, step_for(len(data)))
    return np.column_stack([np.asarray(data[names[a]][rows], dtype=np.float32)
                            for a in "xyz"]).reshape(-1, 3)


def _read_ply(path: Path, step_for: Step) -> np.ndarray:
    from plyfile import PlyData  # only when a PLY is read

    checked_file(path)  # text PLY is read whole: bounded (binary is memory-mapped)
    ply = PlyData.read(str(path), mmap="r")
    if "vertex" not in ply:
        raise InputError(f"the PLY has no vertex element; expected {_EXPECTED['ply']}",
                         file=path)
    vertex = ply["vertex"].data
    names = {name.lower(): name for name in vertex.dtype.names or ()}
    missing = [axis for axis in "xyz" if axis not in names]
    if missing:
        raise InputError(f"the PLY's vertices have no {', '.join(missing)} property; "
                         f"expected {_EXPECTED['ply']}", file=path)
    rows = slice(None, None, step_for(len(vertex)))
    return np.column_stack([np.asarray(vertex[names[a]][rows], dtype=np.float32)
                            for a in "xyz"]).reshape(-1, 3)


def _read_las(path: Path, step_for: Step) -> np.ndarray:
    import laspy  # only when a LAS is read

    media_file(path)  # read in chunks: only the kept rows stay
    parts: list[np.ndarray] = []
    with laspy.open(str(path)) as las:
        step = step_for(int(las.header.point_count))
        seen = 0
        for chunk in las.chunk_iterator(1_000_000):
            first = (-seen) % step  # the first row of this chunk on the global stride
            kept = slice(first, None, step)
            parts.append(np.column_stack([np.asarray(chunk.x[kept], dtype=np.float32),
                                          np.asarray(chunk.y[kept], dtype=np.float32),
                                          np.asarray(chunk.z[kept], dtype=np.float32)]))
            seen += len(chunk)
    return np.concatenate(parts).reshape(-1, 3) if parts else np.zeros((0, 3), np.float32)


_READERS: dict[str, Callable[[Path, Step], np.ndarray]] = {
    "npy": _read_npy,
    "kitti": _rows_of_floats(4, "kitti"),
    "nuscenes": _rows_of_floats(5, "nuscenes"),
    "pcd": _read_pcd,
    "ply": _read_ply,
    "las": _read_las,
}
