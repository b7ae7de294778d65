"""NIfTI label maps (nibabel) → a Potato project with ``volume_annotation`` schemes.

**Format.** A NIfTI-1 or NIfTI-2 file (``.nii`` or ``.nii.gz``) holding one 3-D integer
label map: 0 is background, n > 0 a label. This is what ITK-SNAP, 3D Slicer and nnU-Net
write, and what Potato 2.12.1's own ``volume_nifti`` export writes (``<user>/<item>__
<schema>.nii.gz``, label n the scheme's n-th label, with ``labels__<schema>.json`` =
``{"0": "background", "1": name, …}`` beside the user folders).

**Items and who is who.** Each SOURCE (a folder of label maps, not recursive, or one
file) is one annotator, named by the ``--annotator`` in the same position, else by the
folder's name (a file's: its name without ``.nii``/``.nii.gz``). A file ``<item>.nii.gz``
is item ``<item>`` of scheme ``volume``; a file ``<item>__<schema>.nii.gz`` (Potato's
export) is item ``<item>`` of scheme ``<schema>``. Items are matched across annotators by
name.

**Labels.** The label names come from ``labels__<schema>.json`` or ``labels.json`` in the
source folder or the folder above it (Potato's export puts it above the user folders); the
scheme's labels are the table's, in value order. Without a table a label is named
``label_<n>`` and the scheme lists every value found, in order.

**Voxel space.** Every map is put in the closest canonical orientation, RAS+
(``nibabel.as_closest_canonical``), the voxel space in which Potato reads a volume and
stores its masks (``potato/media/volumes.py``); the stored ``shape`` is the canonical
``[ni, nj, nk]`` and the masks are written per axial slice as Potato's widget writes
them (:mod:`.rle`). A map drawn on a differently sized volume than another annotator's
is kept as it is; Potato and Accord skip such an item, and a note names it.

A label map holds one label per voxel: where an annotator's masks overlapped in Potato,
its export kept the later label (``volume_masks.labelmap``), and that is what comes back.

**Choices where the format leaves room.** An unreadable file, a map that is not 3-D (a
4-D map with one volume is read as 3-D), non-integer or negative values, or a value not in
the label table is an error naming the file and what was expected. The label maps hold
no image: the project's items name none (``source_field`` ``volume`` is left for the user
to fill in to label in Potato), and a note says so.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedItem, ImportedScheme, ImportedStudy
from app.core.formats.importers.volumes.rle import slice_counts

SUFFIXES = (".nii.gz", ".nii")
SCHEME = "volume"
EXPECTED = "a NIfTI label map (.nii or .nii.gz: a 3-D integer volume, 0 background)"


def _stem(path: Path) -> str | None:
    name = path.name
    for suffix in SUFFIXES:
        if name.lower().endswith(suffix):
            return name[:-len(suffix)]
    return None


def _files(source: Path) -> list[Path]:
    if source.is_file():
        if _stem(source) is None:
            raise InputError(f"expected {EXPECTED}", file=source)
        return [source]
    found = sorted(p for p in source.iterdir() if p.is_file() and _stem(p) is not None)
    if not found:
        raise InputError("no .nii or .nii.gz file here; expected a folder of label maps "
                         "(one per item)", file=source)
    return found


def _names(sources: Sequence[Path], annotators: Sequence[str]) -> list[str]:
    names = list(annotators) or [(_stem(s) or s.name) if s.is_file() else s.name
                                 for s in sources]
    seen: dict[str, Path] = {}
    for name, source in zip(names, sources, strict=True):
        if not name or name.startswith("."):
            raise InputError(f"'{name}' cannot be an annotator's folder name; give "
                             "--annotator NAME", file=source)
        if name in seen:
            raise InputError(f"two sources are both annotator '{name}' ({seen[name]} and "
                             f"{source}); give --annotator names", file=source)
        seen[name] = source
    return names


def _label_table(source: Path, scheme: str) -> tuple[Path, dict[int, str]] | None:
    folder = source if source.is_dir() else source.parent
    for where in (folder, folder.parent):
        for name in (f"labels__{scheme}.json", "labels.json"):
            path = where / name
            if path.is_file():
                return path, _read_table(path)
    return None


def _read_table(path: Path) -> dict[int, str]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"unreadable label table ({exc}); expected JSON "
                         '{"0": "background", "1": "Liver", …}', file=path) from None
    if not isinstance(raw, dict):
        raise InputError('expected a label table {"0": "background", "1": "Liver", …}',
                         file=path)
    table: dict[int, str] = {}
    for key, name in raw.items():
        if not str(key).isdigit() or not isinstance(name, str) or not name.strip():
            raise InputError(f"entry {key!r}: {name!r}; expected a label value (0, 1, …) "
                             "and its name", file=path, key=str(key))
        if int(key):
            table[int(key)] = name
    if len(set(table.values())) != len(table):
        raise InputError("two label values share one name; expected one name per value",
                         file=path)
    return table


def load_labels(path: Path) -> tuple[np.ndarray, bool]:
    """One label map as an integer [i, j, k] array in canonical RAS+ voxel order, and
    whether it had to be reoriented."""
    import nibabel as nib

    try:
        image: Any = nib.load(str(path))
        canonical = nib.as_closest_canonical(image)  # type: ignore[no-untyped-call]
        data = np.asanyarray(canonical.dataobj)
    except Exception as exc:  # nibabel raises many kinds for a broken file
        raise InputError(f"unreadable ({type(exc).__name__}: {exc}); expected {EXPECTED}",
                         file=path) from None
    if data.ndim == 4 and data.shape[3] == 1:
        data = data[..., 0]
    if data.ndim != 3:
        raise InputError(f"a {data.ndim}-D image of shape {list(data.shape)}; expected "
                         f"{EXPECTED}", file=path)
    if data.dtype.kind == "f":
        if not np.all(np.isfinite(data)) or not np.array_equal(data, np.round(data)):
            bad = data[~np.isfinite(data) | (data != np.round(data))].flat[0]
            raise InputError(f"voxel value {float(bad)} is not a whole number; expected "
                             f"{EXPECTED}", file=path)
    elif data.dtype.kind not in "iub":
        raise InputError(f"voxels of type {data.dtype}; expected {EXPECTED}", file=path)
    labels = data.astype(np.int64)
    if labels.size and int(labels.min()) < 0:
        raise InputError(f"voxel value {int(labels.min())} is negative; expected {EXPECTED}",
                         file=path)
    reoriented = nib.aff2axcodes(image.affine) != ("R", "A", "S")  # type: ignore[no-untyped-call]
    return labels, reoriented


def _split(stem: str) -> tuple[str, str]:
    """(item, scheme) of a file name (Potato's export: ``<item>__<schema>``)."""
    item, sep, scheme = stem.rpartition("__")
    return (item, scheme) if sep and item and scheme else (stem, SCHEME)


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    """The study in ``sources`` (see the module)."""
    names = _names(sources, annotators)
    study = ImportedStudy(format="nifti")
    maps: dict[str, dict[str, dict[str, tuple[Path, np.ndarray]]]] = {}  # scheme/who/item
    tables: dict[str, tuple[Path, dict[int, str]]] = {}
    reoriented = 0
    for name, source in zip(names, sources, strict=True):
        seen: dict[tuple[str, str], Path] = {}
        for path in _files(source):
            item, scheme = _split(_stem(path) or path.name)
            if (item, scheme) in seen:
                raise InputError(f"a second label map of item '{item}' ({seen[item, scheme]})"
                                 "; expected one file per item", file=path)
            seen[item, scheme] = path
            labels, turned = load_labels(path)
            reoriented += turned
            maps.setdefault(scheme, {}).setdefault(name, {})[item] = (path, labels)
            if scheme not in tables and (found := _label_table(source, scheme)) is not None:
                tables[scheme] = found
    for scheme in sorted(maps):
        values = _values(maps[scheme], tables.get(scheme))
        label_names = [n for _v, n in sorted(values.items())]
        study.schemes.append(ImportedScheme(scheme, "volume_annotation", {
            "description": f"Label map ({scheme})", "source_field": "volume",
            "labels": [{"name": n} for n in label_names]}))
        for who, items in maps[scheme].items():
            for item, (_path, labels) in items.items():
                study.items.setdefault(item, ImportedItem(item, {"text": item}))
                study.answers.setdefault(who, {}).setdefault(item, {})[scheme] = {
                    "shape": [int(n) for n in labels.shape], "labels": label_names,
                    "masks": {values[v]: slice_counts(labels == v)
                              for v in np.unique(labels).tolist() if v},
                    "shapes": []}
        _note_shapes(study, scheme, maps[scheme])
    study.items = dict(sorted(study.items.items()))
    study.notes.append("The label maps hold no image: the items name no volume; add each "
                       "item's image under 'volume' to label it in Potato.")
    if reoriented:
        study.notes.append(f"{reoriented} label maps were reoriented to RAS+ (Potato's "
                           "canonical voxel space) before their masks were written.")
    for scheme, (path, _table) in sorted(tables.items()):
        study.notes.append(f"Scheme '{scheme}': label names from {path}.")
    return study


def _values(by_who: dict[str, dict[str, tuple[Path, np.ndarray]]],
            table: tuple[Path, dict[int, str]] | None) -> dict[int, str]:
    """Label value → name: the table's (every value found must be in it), else
    ``label_<n>`` for each value found."""
    found: dict[int, Path] = {}
    for items in by_who.values():
        for path, labels in items.values():
            for v in np.unique(labels).tolist():
                if v:
                    found.setdefault(int(v), path)
    if table is None:
        return {v: f"label_{v}" for v in sorted(found)}
    where, names = table
    for value, path in found.items():
        if value not in names:
            raise InputError(f"label value {value} is not in the label table {where}; "
                             f"expected one of {sorted(names)}", file=path)
    return dict(names)


def _note_shapes(study: ImportedStudy, scheme: str,
                 by_who: dict[str, dict[str, tuple[Path, np.ndarray]]]) -> None:
    shapes: dict[str, set[tuple[int, ...]]] = {}
    for items in by_who.values():
        for item, (_path, labels) in items.items():
            shapes.setdefault(item, set()).add(tuple(labels.shape))
    mixed = sorted(item for item, s in shapes.items() if len(s) > 1)
    if mixed:
        study.notes.append(f"Scheme '{scheme}': {len(mixed)} items have label maps of "
                           f"different shapes ({', '.join(mixed[:5])}); Potato and Accord "
                           "skip them.")
