"""A stored ``volume_annotation`` answer → :class:`~app.core.model.VolumeMasks`.

Potato 2.12.1's volume widget saves ``{"volume", "shape": [ni, nj, nk], "labels",
"masks": {label: {"k": counts}}, "shapes"}`` as one JSON string under ``_data``; each
``counts`` is the run-length encoding of slice k's (nj, ni) mask flattened in C order,
alternating runs of 0s and 1s, starting with 0s (``kinds.md`` B §2.7). Boxes and polygons
(``shapes``) are not scored, by Potato either.

Where the spec is silent (and where Accord is stricter than Potato, which skips or
ignores such answers without a word): an answer that is not an object with ``masks``, a
count that is not a non-negative integer, runs that pass the end of a slice, or a slice
index outside ``0..nk-1`` is bad input (:class:`~app.core.errors.InputError` naming file,
annotator, item and scheme). Counts are checked as one numpy array per slice: a list
mixing ``true`` with integers reads it as 1, as Potato's ``int(count)`` does. A missing
or malformed ``shape`` is kept as ``None``: Potato skips an item whose annotations do not
share one 3-D shape, and so does Accord, counting it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.core.formats.potato.place import Place
from app.core.model import Scheme, VolumeMasks


def parse_volume(raw: Any, scheme: Scheme, place: Place) -> VolumeMasks:
    """One annotator's volume answer, the counts as int64 arrays, checked."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("masks"), Mapping):
        raise place.error("a volume_annotation answer is an object with 'masks' "
                          "({label: {slice: run-length counts}})")
    shape = _shape(raw.get("shape"))
    masks: dict[str, dict[int, np.ndarray]] = {}
    for label, slices in raw["masks"].items():
        if not isinstance(slices, Mapping):
            raise place.error(f"masks of label '{label}' are not {{slice: counts}}")
        out: dict[int, np.ndarray] = {}
        for key, counts in slices.items():
            k = _slice_index(key, place, label)
            out[k] = _counts(counts, shape, k, place, label)
        masks[str(label)] = out
    labels = raw.get("labels")
    names = tuple(str(n) for n in labels) if isinstance(labels, list) else ()
    return VolumeMasks(shape=shape, masks=masks, labels=names)


def _shape(value: Any) -> tuple[int, int, int] | None:
    if not isinstance(value, list | tuple) or len(value) != 3:
        return None
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in value):
        return None
    return (int(value[0]), int(value[1]), int(value[2]))


def _slice_index(key: Any, place: Place, label: str) -> int:
    try:
        return int(str(key))
    except ValueError:
        raise place.error(f"label '{label}': slice key {key!r} is not a slice number"
                          ) from None


def _counts(counts: Any, shape: tuple[int, int, int] | None, k: int, place: Place,
            label: str) -> np.ndarray:
    where = f"label '{label}', slice {k}"
    try:  # one numpy pass, not a Python check per count (a 256² slice has hundreds)
        array = np.asarray(counts) if isinstance(counts, list) else None
    except ValueError:
        array = None
    if array is None or array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise place.error(f"{where}: run-length counts are a list of integers")
    array = array.astype(np.int64, copy=False)
    if array.size and int(array.min()) < 0:
        raise place.error(f"{where}: a run-length count is negative")
    if shape is not None:
        ni, nj, nk = shape
        if not 0 <= k < nk:
            raise place.error(f"{where}: the volume has slices 0..{nk - 1}")
        if int(array.sum()) > ni * nj:
            raise place.error(f"{where}: the runs pass the end of the slice "
                              f"({int(array.sum())} voxels, the slice has {ni * nj})")
    return array
