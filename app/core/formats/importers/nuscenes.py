"""nuScenes tables (``accord import nuscenes``) → one ``spatial_annotation`` scheme.

Format (the nuScenes schema, read as plain JSON without the devkit): each SOURCE is one
annotator's folder holding ``sample.json``, ``sample_annotation.json``,
``instance.json`` and ``category.json`` (directly, or in the one version folder such as
``v1.0-mini/`` inside it), and optionally ``sample_data.json``, ``ego_pose.json``,
``calibrated_sensor.json`` and ``sensor.json``. Each table is a JSON list of records
keyed by ``token``. A ``sample_annotation`` holds ``translation`` (the box centre in
the **global** frame, metres), ``size`` as ``[w, l, h]`` and ``rotation`` as a
quaternion ``[w, x, y, z]`` (**scalar first**); its label is
``instance.category_token`` → ``category.name``. In the devkit's ``Box`` the length runs
along the box's own x, the width along y, the height along z, as in Potato's ``[l, w,
h]``.

Units and frame (converted here, in :func:`_cuboid`, the one place): metres. When the
sample's ``LIDAR_TOP`` key-frame ``sample_data`` and its ``ego_pose`` and
``calibrated_sensor`` are present (in any source), boxes go to that lidar's frame as
the devkit's ``get_sample_data`` does: global → ego (``ego_pose``) → sensor
(``calibrated_sensor``), each the exact inverse of the pose, applied to the centre and
to the full rotation (pitch and roll kept). Otherwise the sample stays in the global
frame and a note counts it. The quaternion is rewritten as Potato's ``[qx, qy, qz, qw]``
and the size as ``[l, w, h]``.

Who is who: each SOURCE folder is one annotator (``--annotator`` in the same position,
else the folder's name). Items are samples, matched across annotators by the sample
``token``, listed by timestamp. A sample in an annotator's ``sample.json`` with no
annotation is an empty answer; a sample absent from it is no answer.

Where the spec is silent, chosen here:

- The ``LIDAR_TOP`` sample data is the sample's key frame whose sensor channel
  (``calibrated_sensor.sensor_token`` → ``sensor.channel``, or the record's own
  ``channel``, or a filename under ``LIDAR_TOP``) is ``LIDAR_TOP``. The poses are the
  rig's, not the annotator's: any source may carry them, and two sources with
  different transforms for one sample are an error.
- Attributes, visibility, lidar and radar point counts and instance tracks across
  samples have no place in Potato's 3D answer: a note says they are not carried.
- Point clouds: the ``LIDAR_TOP`` key frame's file (its ``filename``, relative to the
  dataroot: the folder holding the version folder, or the source itself) is the rig's,
  found in any source. For a sample in the LIDAR_TOP frame it goes to
  ``media/LIDAR_TOP/<name>.bin`` under ``point_cloud``, rewritten from nuScenes' float32
  × 5 to KITTI's float32 × 4 (:mod:`.cuboid_frames` says why); a sample in the global
  frame gets none (its boxes would not sit in the sensor's cloud). A scan whose size is
  not a whole number of 20-byte points is an error.
- Bad input: a file that is not JSON or not a list of records, a record without a
  token, an annotation pointing at an unknown sample, instance or category, a size
  that is negative or not three numbers, a quaternion that is zero: an error naming the
  file and the record's token.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.importers.cuboid_frames import (
    CLOUD_KEY,
    NUSCENES_POINT_BYTES,
    ItemFrames,
    Rigid,
    checked_cloud,
    colored,
    cuboid,
    label_colors,
    nuscenes_to_kitti_bin,
    quaternion_from_matrix,
    scheme_config,
    xyzw,
)
from app.core.formats.importers.model import ImportedItem, ImportedScheme, ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.reading import nesting
from app.core.formats.reading.boundary import ANYWHERE, read_bytes
from app.core.objects import quaternion_to_matrix

SCHEME = "objects"
REQUIRED = ("sample", "sample_annotation", "instance", "category")
OPTIONAL = ("sample_data", "ego_pose", "calibrated_sensor", "sensor")
LIDAR = "LIDAR_TOP"
Table = dict[str, dict[str, Any]]


class _Source:
    """One annotator's folder: its tables by name, each by token."""

    def __init__(self, source: Path) -> None:
        self.root = _table_folder(source)
        self.dataroots = (self.root.parent, self.root) if self.root == source else (source,)
        missing = [n for n in REQUIRED if not self.path(n).is_file()]
        if missing:
            raise InputError(f"has no {', '.join(f'{n}.json' for n in missing)}; expected "
                             f"the tables {', '.join(f'{n}.json' for n in REQUIRED)}",
                             file=self.root)
        self.tables: dict[str, Table] = {}
        for name in REQUIRED + OPTIONAL:
            path = self.root / f"{name}.json"
            if path.is_file():
                self.tables[name] = _table(path)
        self.key_frames: dict[str, list[dict[str, Any]]] = {}
        for data in self.get("sample_data").values():
            if data.get("is_key_frame") is not False:
                self.key_frames.setdefault(str(data.get("sample_token")), []).append(data)

    def path(self, name: str) -> Path:
        return self.root / f"{name}.json"

    def get(self, name: str) -> Table:
        return self.tables.get(name, {})


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    names = annotator_names(sources, annotators)
    folders = [_Source(s) for s in sources]
    frames = ItemFrames("transform global → ego → LIDAR_TOP")
    samples: dict[str, dict[str, Any]] = {}
    for folder in folders:
        for token, row in folder.get("sample").items():
            samples.setdefault(token, row)
            pose = _lidar_frame(folder, token)
            if pose is not None:
                frames.offer(token, pose, folder.path("ego_pose"), key=token)
    raw: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for name, folder in zip(names, folders, strict=True):
        raw[name] = {token: [] for token in folder.get("sample")}
        for token, note in folder.get("sample_annotation").items():
            sample = _ref(note, "sample_token", folder, "sample", "sample_annotation", token)
            raw[name][sample].append(_cuboid(note, _label(note, folder, token),
                                             frames.get(sample), folder, token))
    order = sorted(samples, key=lambda t: (_timestamp(samples[t]), t))
    labels = sorted({s["label"] for mine in raw.values() for shapes in mine.values()
                     for s in shapes})
    colors = label_colors(labels)
    study = ImportedStudy(format="nuscenes")
    for token in order:
        record: dict[str, Any] = {"text": f"nuScenes sample {token}",
                                  "frame": LIDAR if token in frames else "global"}
        for key in ("scene_token", "timestamp"):
            if key in samples[token]:
                record[key] = samples[token][key]
        study.items[token] = ImportedItem(token, record)
        found = _scan(folders, token) if token in frames else None
        if found is not None:
            relative = f"media/{LIDAR}/{found.name.removesuffix('.bin').removesuffix('.pcd')}.bin"
            record[CLOUD_KEY] = relative
            study.items[token].made[relative] = nuscenes_to_kitti_bin(found)
    for name, mine in raw.items():
        study.answers[name] = {t: {SCHEME: colored(mine[t], colors)} for t in order if t in mine}
    n_lidar = sum(1 for t in order if t in frames)
    frame = "LIDAR_TOP sensor frame" if n_lidar == len(order) else \
        "global frame" if n_lidar == 0 else "LIDAR_TOP frame where the poses are known"
    study.schemes.append(ImportedScheme(SCHEME, "spatial_annotation", scheme_config(
        labels, f"3D boxes imported from nuScenes sample_annotation tables (metres, {frame}).")))
    n_clouds = sum(1 for item in study.items.values() if CLOUD_KEY in item.record)
    study.notes.extend(_notes(n_lidar, n_clouds, len(order)))
    return study


def _table_folder(source: Path) -> Path:
    if source.is_dir() and (source / "sample.json").is_file():
        return source
    inner = [d for d in sorted(source.iterdir()) if (d / "sample.json").is_file()] \
        if source.is_dir() else []
    if len(inner) == 1:
        return inner[0]
    raise InputError("expected an annotator's folder holding the nuScenes tables "
                     f"({', '.join(f'{n}.json' for n in REQUIRED)})", file=source)


def _table(path: Path) -> Table:
    try:
        rows = nesting.loads(read_bytes(path, root=ANYWHERE), file=path)
    except json.JSONDecodeError as exc:
        raise InputError(f"is not valid JSON ({exc.msg}); expected a list of records",
                         file=path, line=exc.lineno) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot be read ({exc}); expected a JSON file", file=path) from None
    if not isinstance(rows, list):
        raise InputError("expected a JSON list of records", file=path)
    table: Table = {}
    for i, row in enumerate(rows):
        token = row.get("token") if isinstance(row, dict) else None
        if not isinstance(token, str) or not token:
            raise InputError(f"record {i} has no token; expected every record to carry "
                             "its 'token'", file=path)
        table[token] = row
    return table


def _ref(row: dict[str, Any], key: str, folder: _Source, table: str, where: str,
         token: str) -> str:
    """``row[key]``, a token that must be in ``folder``'s ``table``."""
    ref = row.get(key)
    if not isinstance(ref, str) or ref not in folder.get(table):
        raise InputError(f"{key} {ref!r} is not in {table}.json; expected the token of one "
                         f"of its records", file=folder.path(where), key=token)
    return ref


def _label(note: dict[str, Any], folder: _Source, token: str) -> str:
    instance = _ref(note, "instance_token", folder, "instance", "sample_annotation", token)
    category = _ref(folder.get("instance")[instance], "category_token", folder, "category",
                    "instance", instance)
    name = folder.get("category")[category].get("name")
    if not isinstance(name, str) or not name:
        raise InputError("the category has no name; expected a category name",
                         file=folder.path("category"), key=category)
    return name


def _numbers(row: dict[str, Any], key: str, n: int, path: Path, token: str) -> list[float]:
    value = row.get(key)
    if not isinstance(value, list) or len(value) != n or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in value):
        raise InputError(f"{key} is {value!r}; expected a list of {n} finite numbers",
                         file=path, key=token)
    return [float(v) for v in value]


def _pose(row: dict[str, Any], path: Path, token: str) -> Rigid:
    rotation = _numbers(row, "rotation", 4, path, token)
    translation = _numbers(row, "translation", 3, path, token)
    try:
        return Rigid.from_pose(rotation, translation)
    except ValueError:
        raise InputError("rotation is a zero quaternion; expected [w, x, y, z] of a rotation",
                         file=path, key=token) from None


def _lidar_frame(folder: _Source, sample: str) -> Rigid | None:
    """Global → LIDAR_TOP for ``sample`` when its poses are all in ``folder``."""
    poses, sensors = folder.get("ego_pose"), folder.get("calibrated_sensor")
    for data in folder.key_frames.get(sample, []):
        calibrated = sensors.get(str(data.get("calibrated_sensor_token")))
        if _channel(data, calibrated, folder) != LIDAR:
            continue
        ego = poses.get(str(data.get("ego_pose_token")))
        if ego is None or calibrated is None:
            return None
        ego_to_global = _pose(ego, folder.path("ego_pose"), str(data["ego_pose_token"]))
        lidar_to_ego = _pose(calibrated, folder.path("calibrated_sensor"),
                             str(data["calibrated_sensor_token"]))
        return lidar_to_ego.then(ego_to_global).inverse()
    return None


def _scan(folders: list[_Source], sample: str) -> Path | None:
    """The sample's LIDAR_TOP key-frame scan in the first source that holds the file."""
    for folder in folders:
        for data in folder.key_frames.get(sample, []):
            calibrated = folder.get("calibrated_sensor").get(
                str(data.get("calibrated_sensor_token")))
            filename = data.get("filename")
            if _channel(data, calibrated, folder) != LIDAR or not isinstance(filename, str) \
                    or Path(filename).is_absolute() or ".." in Path(filename).parts:
                continue
            for root in folder.dataroots:
                path = root / filename
                if filename and path.is_file():
                    return checked_cloud(path, NUSCENES_POINT_BYTES, "a nuScenes lidar "
                                         "scan: float32 x, y, z, intensity, ring per point")
    return None


def _channel(data: dict[str, Any], calibrated: dict[str, Any] | None, folder: _Source
             ) -> str | None:
    if isinstance(data.get("channel"), str):
        return str(data["channel"])
    sensor = folder.get("sensor").get(str((calibrated or {}).get("sensor_token")))
    if sensor is not None and isinstance(sensor.get("channel"), str):
        return str(sensor["channel"])
    filename = str(data.get("filename", ""))
    return LIDAR if f"/{LIDAR}/" in f"/{filename}" else None


def _cuboid(note: dict[str, Any], label: str, global_to_lidar: Rigid | None,
            folder: _Source, token: str) -> dict[str, Any]:
    """The one unit and frame conversion of this format (see the module)."""
    path = folder.path("sample_annotation")
    centre = _numbers(note, "translation", 3, path, token)
    w, l, h = _numbers(note, "size", 3, path, token)  # noqa: E741
    if min(w, l, h) < 0:
        raise InputError(f"size is {[w, l, h]}; expected [w, l, h] of 0 or more",
                         file=path, key=token)
    try:
        rotation = xyzw(_numbers(note, "rotation", 4, path, token))
    except ValueError:
        raise InputError("rotation is a zero quaternion; expected [w, x, y, z] of a rotation",
                         file=path, key=token) from None
    if global_to_lidar is not None:
        turned = global_to_lidar.rotation @ quaternion_to_matrix(rotation)
        rotation = quaternion_from_matrix(turned)
        centre = global_to_lidar.point(centre).tolist()
    return cuboid(label, centre, (l, w, h), rotation, "")


def _timestamp(sample: dict[str, Any]) -> float:
    value = sample.get("timestamp")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else math.inf


def _notes(n_lidar: int, n_clouds: int, n_items: int) -> list[str]:
    notes = []
    if n_lidar:
        notes.append(f"{n_lidar} of {n_items} samples are in their LIDAR_TOP sensor frame "
                     "(global → ego_pose → calibrated_sensor, full rotation: pitch and roll "
                     "kept).")
    if n_lidar < n_items:
        notes.append(f"{n_items - n_lidar} of {n_items} samples have no LIDAR_TOP "
                     "sample_data with its ego_pose and calibrated_sensor in any source: "
                     "their boxes stay in the global frame.")
    notes.append("nuScenes attributes, visibility, lidar/radar point counts and instance "
                 "tracks are not carried (a 3D answer holds the box and its category only).")
    if n_clouds:
        notes.append(f"{n_clouds} of {n_items} samples carry their LIDAR_TOP point cloud, "
                     "written as x, y, z, intensity (the ring index is dropped).")
    if n_lidar > n_clouds:
        notes.append(f"{n_lidar - n_clouds} samples in the LIDAR_TOP frame have no scan file "
                     "(samples/LIDAR_TOP/...) under the dataroot: they come without a point "
                     "cloud.")
    return notes
