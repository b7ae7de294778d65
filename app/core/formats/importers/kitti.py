"""KITTI 3D object labels (``accord import kitti``) → one ``spatial_annotation`` scheme.

Format (the KITTI object devkit's ``readme.txt``): each SOURCE is one annotator's labels,
one file ``<item>.txt`` per item, as users hold them (:func:`_layout`):

- a folder holding ``label_2/`` (and optionally ``calib/`` and ``velodyne/``), as the
  benchmark's ``training/`` folder;
- the ``label_2`` folder itself: ``calib/`` and ``velodyne/`` are its siblings when
  present;
- any other folder of label ``.txt`` files: no calibration and no cloud (its boxes stay
  in the camera frame, and the notes say so).

A label line has 15 space-separated fields::

    type truncated occluded alpha x1 y1 x2 y2 h w l x y z rotation_y

(a 16th, ``score``, appears in detection results: it is ignored, and a note says how
many lines carried one). ``h w l`` are the box's height, width and length in metres;
``x y z`` is the centre of the box's **bottom face** in the rectified camera frame
(x right, **y down**, z forward); ``rotation_y`` turns the box about the camera's y axis
only. The devkit's ``computeBox3D`` lays the corners out with ``±l/2`` along the box's
x, ``0..-h`` along y and ``±w/2`` along z, so at ``rotation_y = 0`` the length runs along
camera x: the box's length axis is ``(cos ry, 0, -sin ry)``, its width axis
``(sin ry, 0, cos ry)``, its up axis ``(0, -1, 0)``.

Units and frame (converted here, in :func:`_cuboid`, the one place): metres throughout.
With ``Tr_velo_to_cam`` in the item's calibration (and ``R0_rect`` when present, applied
after it: ``x_cam = R0_rect · Tr_velo_to_cam · x_velo``), boxes go to the lidar frame
(x forward, y left, z up), the frame of the point cloud and of Potato's 3D answers: the
centre is the bottom-face centre moved up by ``h/2`` (``y − h/2`` in the camera), mapped
by the exact inverse of that transform; the yaw is the heading of the box's length axis
mapped the same way, measured about lidar z; the box is upright in the lidar frame.
Without ``Tr_velo_to_cam`` for an item in any source, that item's boxes stay in the
rectified camera frame (centre moved up the same way, the rotation being ``rotation_y``
about camera y as a quaternion), and a note says how many items that is.

Who is who: each SOURCE folder is one annotator (``--annotator`` in the same position,
else the folder's name; a ``label_2`` folder's parent's name). Items are matched across
annotators by the label file's stem (the item id). A label file with no object line (or
only ``DontCare`` lines) is an empty answer; an item with no label file in an
annotator's folder is no answer.

Where the spec is silent, chosen here:

- The calibration is the rig's, not the annotator's: an item's ``calib/<item>.txt`` may
  come from any source, and two sources with different calibrations for one item are
  an error (the boxes would be compared in different frames).
- ``DontCare`` lines are skipped (counted in a note). Every other type is a label,
  spelled as in the file; the scheme's labels are the types seen, sorted.
- The 2D box, truncation, occlusion and alpha have no place in a 3D answer: a note says
  they are not carried.
- Point clouds: ``velodyne/<item>.bin`` is the rig's, like the calibration (the first
  source holding it wins) and is copied as it is to ``media/velodyne/<item>.bin``
  under the record key ``point_cloud`` (:mod:`.cuboid_frames`), for the items in the
  lidar frame only: a camera-frame item's boxes would not sit in the cloud. A scan
  whose size is not a whole number of 16-byte points is an error.
- Only a folder named ``label_2`` takes ``calib/`` and ``velodyne/`` from beside it: a
  folder of another name may sit beside another dataset's calibration, and a wrong
  calibration would move every box without a word.
- The yaw about lidar z (not the full rotation of camera-upright boxes into a slightly
  tilted lidar frame, as Potato's own ``kitti3d`` does): KITTI's boxes were drawn in the
  lidar cloud with a heading only, and have no pitch or roll to keep.
- Bad input: a short line (under 15 fields) or one over 16, a field that is not a
  finite number, a negative ``h``, ``w`` or ``l``, a calibration matrix of the wrong
  size or not rigid: an error naming the file and line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.errors import InputError
from app.core.formats.importers.cuboid_frames import (
    CLOUD_KEY,
    KITTI_POINT_BYTES,
    ItemFrames,
    Rigid,
    checked_cloud,
    colored,
    cuboid,
    is_rigid,
    label_colors,
    quaternion_from_matrix,
    scheme_config,
    yaw_quaternion,
)
from app.core.formats.importers.model import ImportedItem, ImportedScheme, ImportedStudy
from app.core.formats.importers.registry import KITTI_LABELS, annotator_names
from app.core.formats.reading.boundary import ANYWHERE, read_bytes

SCHEME = "objects"
FIELDS = ("type", "truncated", "occluded", "alpha", "x1", "y1", "x2", "y2", "h", "w", "l",
          "x", "y", "z", "rotation_y")
DONT_CARE = "DontCare"
VELO_KEYS = ("Tr_velo_to_cam", "Tr_velo_cam")
RECT_KEYS = ("R0_rect", "R_rect")


@dataclass(frozen=True)
class _Label:
    type: str
    h: float
    w: float
    l: float  # noqa: E741  (the devkit's name)
    x: float
    y: float
    z: float
    rotation_y: float


@dataclass
class _Counts:
    dont_care: int = 0
    scored: int = 0
    no_velo: int = 0
    plain: int = 0
    clouds: int = 0


@dataclass(frozen=True)
class _Layout:
    """Where one source keeps its labels, and the rig's calibration and scans."""

    labels: Path
    calib: Path | None
    velodyne: Path | None


def _layout(source: Path, counts: _Counts) -> _Layout:
    """The source as a user holds it (see the module)."""
    if source.is_dir() and (source / KITTI_LABELS).is_dir():
        return _Layout(source / KITTI_LABELS, source / "calib", source / "velodyne")
    if source.is_dir() and any(p.is_file() for p in source.glob("*.txt")):
        if source.name == KITTI_LABELS:
            return _Layout(source, source.parent / "calib", source.parent / "velodyne")
        counts.plain += 1
        return _Layout(source, None, None)
    raise InputError("expected KITTI label files: a folder holding label_2/<item>.txt (and "
                     "optionally calib/ and velodyne/), the label_2 folder itself, or a "
                     "folder of <item>.txt label files", file=source)


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    names = annotator_names(sources, annotators)
    counts = _Counts()
    layouts = [_layout(source, counts) for source in sources]
    labels: dict[str, dict[str, list[_Label]]] = {}
    for layout, name in zip(layouts, names, strict=True):
        labels[name] = {f.stem: _read_labels(f, counts)
                        for f in sorted(layout.labels.glob("*.txt")) if f.is_file()}
    items = sorted({item for mine in labels.values() for item in mine})
    frames = ItemFrames("calibration (R0_rect · Tr_velo_to_cam)")
    for layout in layouts:
        for item in items:
            calib = layout.calib / f"{item}.txt" if layout.calib else None
            if calib is not None and calib.is_file():
                velo_to_cam = _read_calib(calib)
                if velo_to_cam is None:
                    counts.no_velo += 1
                else:
                    frames.offer(item, velo_to_cam.inverse(), calib)
    types = sorted({b.type for mine in labels.values() for boxes in mine.values()
                    for b in boxes})
    colors = label_colors(types)
    study = ImportedStudy(format="kitti")
    for item in items:
        frame = "lidar" if item in frames else "camera"
        study.items[item] = ImportedItem(item, {"text": f"KITTI frame {item}", "frame": frame})
        scan = _scan(layouts, item) if item in frames else None
        if scan is not None:
            relative = f"media/velodyne/{item}.bin"
            study.items[item].record[CLOUD_KEY] = relative
            study.items[item].media[relative] = scan
            counts.clouds += 1
    for name, mine in labels.items():
        study.answers[name] = {
            item: {SCHEME: colored([_cuboid(b, frames.get(item)) for b in mine[item]], colors)}
            for item in items if item in mine}
    n_lidar = sum(1 for item in items if item in frames)
    study.schemes.append(ImportedScheme(SCHEME, "spatial_annotation", scheme_config(
        types, _description(n_lidar, len(items)))))
    study.notes.extend(_notes(counts, n_lidar, len(items)))
    return study


def _scan(layouts: list[_Layout], item: str) -> Path | None:
    """The item's ``velodyne/<item>.bin`` in the first source that holds one."""
    for layout in layouts:
        scan = layout.velodyne / f"{item}.bin" if layout.velodyne else None
        if scan is not None and scan.is_file():
            return checked_cloud(scan, KITTI_POINT_BYTES, "a KITTI velodyne scan: float32 "
                                 "x, y, z, reflectance per point")
    return None


def _text(path: Path) -> str:
    try:
        return read_bytes(path, root=ANYWHERE).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot be read ({exc}); expected a text file", file=path) from None


def _read_labels(path: Path, counts: _Counts) -> list[_Label]:
    out = []
    for n, line in enumerate(_text(path).splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < len(FIELDS) or len(fields) > len(FIELDS) + 1:
            raise InputError(f"has {len(fields)} fields; expected 15 ({' '.join(FIELDS)}), "
                             "or 16 with a score", file=path, line=n)
        if fields[0] == DONT_CARE:
            counts.dont_care += 1
            continue
        values = [_number(v, FIELDS[i + 1] if i + 1 < len(FIELDS) else "score", path, n)
                  for i, v in enumerate(fields[1:])]
        counts.scored += len(fields) > len(FIELDS)
        h, w, l = values[7:10]  # noqa: E741
        if min(h, w, l) < 0:
            raise InputError(f"a '{fields[0]}' box has a negative size (h w l = {h} {w} {l}); "
                             "expected sizes of 0 or more", file=path, line=n)
        x, y, z, ry = values[10:14]
        out.append(_Label(fields[0], h, w, l, x, y, z, ry))
    return out


def _number(text: str, field: str, path: Path, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError(f"field '{field}' is '{text}'; expected a finite number",
                         file=path, line=line)
    return value


def _read_calib(path: Path) -> Rigid | None:
    """The lidar → rectified camera transform ``R0_rect · Tr_velo_to_cam``, or ``None``
    when the file has no ``Tr_velo_to_cam``."""
    rows: dict[str, tuple[list[float], int]] = {}
    for n, line in enumerate(_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        key, colon, rest = line.partition(":")
        if not colon:  # the tracking benchmark writes "R_rect 9.99e-01 ..."
            key, _, rest = line.strip().partition(" ")
        values = [_number(v, key.strip(), path, n) for v in rest.split()]
        rows[key.strip()] = (values, n)
    velo = next((rows[k] for k in VELO_KEYS if k in rows), None)
    if velo is None:
        return None
    transform = _matrix(velo, 12, (3, 4), "Tr_velo_to_cam", path)
    rect = next((rows[k] for k in RECT_KEYS if k in rows), None)
    if rect is not None:
        r0 = np.eye(4)
        r0[:3, :3] = _matrix(rect, 9, (3, 3), "R0_rect", path)
        transform = r0[:3, :] @ np.vstack([transform, [0.0, 0.0, 0.0, 1.0]])
    return Rigid.from_matrix(transform)


def _matrix(row: tuple[list[float], int], size: int, shape: tuple[int, int], key: str,
            path: Path) -> np.ndarray:
    values, line = row
    if len(values) != size:
        raise InputError(f"{key} holds {len(values)} numbers; expected {size} (a "
                         f"{shape[0]}×{shape[1]} matrix, row by row)", file=path, line=line)
    m = np.array(values, dtype=np.float64).reshape(shape)
    if not is_rigid(m[:3, :3]):
        raise InputError(f"{key} is not a rotation (with a translation); expected an "
                         "orthonormal 3×3 block with determinant 1", file=path, line=line)
    return m


def _cuboid(box: _Label, camera_to_lidar: Rigid | None) -> dict[str, object]:
    """The one unit and frame conversion of this format (see the module)."""
    c, s = math.cos(box.rotation_y), math.sin(box.rotation_y)
    centre = (box.x, box.y - box.h / 2.0, box.z)  # camera +y points down
    length_axis = (c, 0.0, -s)
    if camera_to_lidar is None:
        axes = np.column_stack([length_axis, (s, 0.0, c), (0.0, -1.0, 0.0)])
        rotation = quaternion_from_matrix(axes)
        where: tuple[float, ...] = centre
    else:
        heading = camera_to_lidar.direction(length_axis)
        rotation = yaw_quaternion(math.atan2(heading[1], heading[0]))
        where = tuple(camera_to_lidar.point(centre).tolist())
    return cuboid(box.type, where, (box.l, box.w, box.h), rotation, "")


def _description(n_lidar: int, n_items: int) -> str:
    if n_lidar == n_items:
        frame = "lidar frame: x forward, y left, z up"
    elif n_lidar == 0:
        frame = "KITTI's rectified camera frame: x right, y down, z forward"
    else:
        frame = "lidar frame where the item has a calibration, else the camera frame"
    return f"3D boxes imported from KITTI label_2 files (metres, {frame})."


def _notes(counts: _Counts, n_lidar: int, n_items: int) -> list[str]:
    notes = ["KITTI has no pitch or roll: every box is upright, turned about the vertical "
             "only (rotation_y).",
             "KITTI's 2D image box, truncation, occlusion and alpha are not carried (a 3D "
             "answer holds the box, its size, rotation and type only)."]
    if n_lidar:
        notes.append(f"{n_lidar} of {n_items} items are in the lidar frame (x forward, y "
                     "left, z up), converted with their calib Tr_velo_to_cam (and R0_rect).")
    if n_lidar < n_items:
        notes.append(f"{n_items - n_lidar} of {n_items} items have no calib/<item>.txt with "
                     "Tr_velo_to_cam in any source: their boxes stay in the rectified camera "
                     "frame (x right, y down, z forward), centred half a height above the "
                     "bottom face, and come without a point cloud (a scan is in the lidar "
                     "frame, where those boxes cannot be placed).")
    if counts.plain:
        notes.append(f"{counts.plain} sources are plain folders of label files (not label_2 "
                     "or a folder holding it): Accord looks for no calib/ or velodyne/ beside "
                     "them.")
    if counts.no_velo:
        notes.append(f"{counts.no_velo} calibration files have no Tr_velo_to_cam and were "
                     "not used.")
    if counts.dont_care:
        notes.append(f"{counts.dont_care} DontCare objects were skipped (they mark regions "
                     "left out of evaluation, not objects).")
    if counts.scored:
        notes.append(f"{counts.scored} label lines carry a 16th field (a detection score); "
                     "scores are ignored.")
    if counts.clouds:
        notes.append(f"{counts.clouds} of {n_items} items carry their point cloud "
                     "(velodyne/<item>.bin, copied as it is).")
    if n_lidar > counts.clouds:
        notes.append(f"{n_lidar - counts.clouds} items in the lidar frame have no "
                     "velodyne/<item>.bin in any source: they come without a point cloud.")
    return notes

