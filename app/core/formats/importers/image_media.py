"""What the three 2D image importers share (Label Studio, CVAT, COCO): finding the export
file in a source, finding an image file beside the export, the image item record, the
``image_annotation`` scheme, and Potato's image shapes.

Potato's shapes (``formats.md``; ``scripts/demo_data/make_images.py``): a list of
``{"type", "label", "color", "coordinates"}`` with coordinates **normalized to [0, 1]**,
origin top-left — ``bbox {x, y, width, height}`` (x, y the top-left corner), ``polygon``
and ``polyline`` a list of ``{x, y}``, ``ellipse {cx, cy, rx, ry, angle}`` (rx a share of
the width, ry of the height, angle in degrees clockwise on screen), ``landmark {x, y}`` —
and masks ``{"type": "mask", "label", "color", "rle": {"counts", "size": [h, w]}}`` in
pixels, row-major, runs alternating and starting with background. The builders here
take values that are already normalized (or a boolean pixel array): each importer
converts its own units in one function of its own.

Choices where the formats are silent:

- **Image files.** Exports do not hold pixels (Label Studio and COCO never, CVAT only in
  its zip). An image is looked for under its reference's relative path beside the
  export, then by its file name in the export's folder and in ``images/``, ``media/``
  and ``data/`` under it; for a Label Studio upload (``/data/upload/1/8f3c2a1b-x.png``)
  also without the 8-hex-digit prefix Label Studio adds. No folder is searched deeper.
- **Where an image goes in the project.** ``images/<name>`` (``<name>`` keeps the
  reference's safe subfolders, as COCO's ``train/0001.jpg``; of a Label Studio server
  path only the file name is kept, without the upload prefix); a second, different file
  with the same name gets ``_2``, ``_3``... before its suffix. A missing image keeps that
  path in the record (drop the file there later and it is found) and its reference
  under ``image_source``; a note counts them. The record also holds ``width`` and
  ``height`` in pixels when known, as the street_images demo does.
- **Colours.** A label's colour is the one its tool gave (CVAT), else the next of a fixed
  palette in order of first use; the same colour is written in the config and on every
  shape of that label.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import numpy as np

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedItem, ImportedScheme, ImportedStudy
from app.core.image_size import image_size
from app.core.objects import Mask

PALETTE = ("#FF6B6B", "#4ECDC4", "#45B7D1", "#FFEAA7", "#96CEB4", "#DDA0DD", "#F0B27A",
           "#95A5A6", "#5DADE2", "#58D68D", "#EC7063", "#AF7AC5")
TOOL_ORDER = ("bbox", "polygon", "polyline", "ellipse", "landmark", "brush")
TOOL_OF = {"bbox": "bbox", "polygon": "polygon", "polyline": "polyline", "ellipse": "ellipse",
           "landmark": "landmark", "mask": "brush"}
"""Potato shape type → the Potato tool that draws it."""
SEARCH_FOLDERS = ("", "images", "media", "data")
MEDIA_KEY = "image"
UPLOAD_PREFIX = re.compile(r"^[0-9a-f]{8}-", re.IGNORECASE)
MISSING = {"image": ("images", "pixels"), "audio": ("audio files", "sound"),
           "video": ("videos", "pictures or sound")}
"""Record key → how the note on files not found names them and what their items lack."""


def export_file(source: Path, suffixes: tuple[str, ...], what: str) -> Path:
    """The export file of a source: the file itself, or the one such file in a folder
    (``annotations.xml`` or ``annotations.json`` first when a folder holds several)."""
    if source.is_file():
        return source
    found = sorted(p for p in source.iterdir() if p.is_file() and p.suffix.lower() in suffixes)
    if len(found) == 1:
        return found[0]
    preferred = [p for p in found if p.stem == "annotations"]
    if len(preferred) == 1:
        return preferred[0]
    if not found:
        raise InputError(f"no {'/'.join(suffixes)} file in this folder; expected {what}",
                         file=source)
    raise InputError(f"{len(found)} {'/'.join(suffixes)} files in this folder; expected one "
                     f"({what}): give the file itself", file=source)


def reference_name(reference: str) -> str:
    """The file name a media reference points at: a path, a URL, or Label Studio's
    ``/data/local-files/?d=dir/x.png``."""
    parsed = urlparse(reference)
    local = parse_qs(parsed.query).get("d")
    path = local[0] if local else unquote(parsed.path or reference)
    return PurePosixPath(path.replace("\\", "/")).name


def safe_relative(reference: str) -> PurePosixPath:
    """The reference's relative path without a scheme, root, drive or ``..`` part."""
    parsed = urlparse(reference)
    text = unquote(parsed.path) if parsed.scheme and len(parsed.scheme) > 1 else reference
    parts = [p for p in PurePosixPath(text.replace("\\", "/")).parts
             if p not in ("", ".", "..", "/") and not p.endswith(":")]
    return PurePosixPath(*parts) if parts else PurePosixPath(reference_name(reference) or "image")


def locate(folder: Path, reference: str, *, upload_prefix: bool = False) -> Path | None:
    """The image file ``reference`` names, beside the export in ``folder`` (see the module)."""
    relative = safe_relative(reference)
    name = reference_name(reference)
    candidates = [folder / relative] if len(relative.parts) > 1 else []
    names = [name]
    if upload_prefix and UPLOAD_PREFIX.match(name):
        names.append(UPLOAD_PREFIX.sub("", name, count=1))
    candidates += [folder / sub / n for n in names if n for sub in SEARCH_FOLDERS]
    for path in candidates:
        if path.is_file():
            return path
    return None


def counted(counts: Mapping[str, int], templates: Mapping[str, str]) -> list[str]:
    """A note per counted thing: ``templates[key]`` with ``{n}``, where the count is not 0."""
    return [text.format(n=counts[key]) for key, text in templates.items() if counts.get(key)]


def check_size(width: Any, height: Any, *, file: Path | str, key: str,
               line: int | None = None) -> tuple[int, int]:
    """An image size in pixels: two positive integers (or integral numbers)."""
    out = []
    for value in (width, height):
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if isinstance(value, bool) or not number.is_integer() or number <= 0:
            raise InputError(f"image width and height must be positive whole pixels, found "
                             f"{width!r} × {height!r}", file=file, line=line, key=key)
        out.append(int(number))
    return (out[0], out[1])


# ------------------------------------------------------------------------------- shapes


def pixels_to_unit(points: list[tuple[float, float]], size: tuple[int, int]
                   ) -> list[tuple[float, float]]:
    """Pixels → Potato's [0, 1] (x by the image width, y by its height): the one
    conversion of the pixel formats (CVAT, COCO)."""
    width, height = size
    return [(x / width, y / height) for x, y in points]


def _r(value: float) -> float:
    """A plain float, unrounded (Potato's browser writes full doubles too)."""
    return float(value)


def bbox(label: str, color: str, x: float, y: float, w: float, h: float) -> dict[str, Any]:
    return {"type": "bbox", "label": label, "color": color,
            "coordinates": {"x": _r(x), "y": _r(y), "width": _r(w), "height": _r(h)}}


def polygon(label: str, color: str, points: Iterable[tuple[float, float]], *,
            closed: bool = True) -> dict[str, Any]:
    shape: dict[str, Any] = {"type": "polygon" if closed else "polyline", "label": label,
                             "color": color,
                             "coordinates": [{"x": _r(x), "y": _r(y)} for x, y in points]}
    if not closed:
        shape["closed"] = False
    return shape


def ellipse(label: str, color: str, cx: float, cy: float, rx: float, ry: float,
            angle: float) -> dict[str, Any]:
    return {"type": "ellipse", "label": label, "color": color,
            "coordinates": {"cx": _r(cx), "cy": _r(cy), "rx": _r(rx), "ry": _r(ry),
                            "angle": _r(angle)}}


def landmark(label: str, color: str, x: float, y: float) -> dict[str, Any]:
    return {"type": "landmark", "label": label, "color": color,
            "coordinates": {"x": _r(x), "y": _r(y)}}


def mask(label: str, color: str, pixels: np.ndarray) -> dict[str, Any]:
    """Potato's mask of a boolean ``(height, width)`` array: row-major runs."""
    encoded = Mask.from_array(label, pixels)
    return {"type": "mask", "label": label, "color": color,
            "rle": {"counts": list(encoded.counts), "size": [encoded.height, encoded.width]}}


def rotated_corners(x: float, y: float, w: float, h: float, angle: float,
                    pivot: tuple[float, float]) -> list[tuple[float, float]]:
    """The four corners of the box ``(x, y, w, h)`` turned by ``angle`` degrees clockwise
    on screen (y down) about ``pivot``, in the box's own units (pixels)."""
    theta = math.radians(angle)
    c, s = math.cos(theta), math.sin(theta)
    px, py = pivot
    corners = ((x, y), (x + w, y), (x + w, y + h), (x, y + h))
    return [(px + (cx - px) * c - (cy - py) * s, py + (cx - px) * s + (cy - py) * c)
            for cx, cy in corners]


# -------------------------------------------------------------------------------- study


class ImageStudy:
    """An :class:`ImportedStudy` of image items being assembled (see the module)."""

    def __init__(self, fmt: str) -> None:
        self.study = ImportedStudy(fmt, text_key="text", media_keys=(MEDIA_KEY,))
        self.colors: dict[str, str] = {}
        self._paths: dict[str, Path | None] = {}
        self.missing: Counter[str] = Counter()
        """Record key (``image``, ``audio``) → media files not found."""

    def color(self, label: str, given: str | None = None) -> str:
        if label not in self.colors:
            self.colors[label] = given or PALETTE[len(self.colors) % len(PALETTE)]
        return self.colors[label]

    def add_item(self, item_id: str, reference: str | None, folder: Path,
                 size: tuple[int, int] | None, *, text: str | None = None,
                 upload_prefix: bool = False, extra: dict[str, Any] | None = None
                 ) -> ImportedItem:
        """The item ``item_id``, created on first sight with its image (when found)."""
        item = self.study.items.get(item_id)
        if item is not None:
            if size is not None and "width" not in item.record:
                item.record["width"], item.record["height"] = size
            return item
        record: dict[str, Any] = {"text": text if text is not None else item_id}
        item = ImportedItem(item_id, record)
        self.study.items[item_id] = item
        if reference:
            found = self.attach(item, MEDIA_KEY, reference, folder, upload_prefix=upload_prefix)
            if found is not None and size is None:
                size = image_size(found)
        if size is not None:
            record["width"], record["height"] = size
        record.update(extra or {})
        return item

    def attach(self, item: ImportedItem, key: str, reference: str, folder: Path, *,
               upload_prefix: bool = False, under: str = "images") -> Path | None:
        """Put the media file ``reference`` names under ``key`` in the item's record
        (copied into ``under/`` when found beside the export); the file, or ``None``."""
        found = locate(folder, reference, upload_prefix=upload_prefix)
        if upload_prefix:  # a server path: only the file name, less the upload prefix
            relative = PurePosixPath(UPLOAD_PREFIX.sub("", reference_name(reference), count=1)
                                     or "media")
        else:
            relative = safe_relative(reference)
        target = PurePosixPath(under) / relative
        n = 1
        while str(target) in self._paths and (found is None
                                              or self._paths[str(target)] != found):
            n += 1
            target = target.with_name(f"{relative.stem}_{n}{relative.suffix}")
        self._paths[str(target)] = found
        item.record[key] = str(target)
        if found is None:
            item.record[f"{key}_source"] = reference
            self.missing[key] += 1
        else:
            item.media[str(target)] = found
        return found

    def answer(self, annotator: str, item_id: str, scheme: str, value: Any) -> None:
        self.study.answers.setdefault(annotator, {}).setdefault(item_id, {})[scheme] = value

    def scheme(self, name: str, labels: Sequence[str], shapes: Iterable[str]
               ) -> ImportedScheme:
        """An ``image_annotation`` scheme as Potato's reader and the demo configure it:
        ``source_field: image``, the tools that draw ``shapes`` and the labels with
        their colours."""
        used = {TOOL_OF[s] for s in shapes if s in TOOL_OF}
        tools = [t for t in TOOL_ORDER if t in used] or ["bbox", "polygon"]
        if "brush" in tools:
            tools.append("eraser")
        return ImportedScheme(name, "image_annotation", {
            "description": f"Imported from {self.study.format}.",
            "source_field": MEDIA_KEY, "tools": tools,
            "labels": [{"name": label, "color": self.color(label)} for label in labels]})

    def finish(self, looked_in: str) -> ImportedStudy:
        """The study, with a note per kind of media that was not found (images, audio:
        each spoken of as what it is)."""
        for key, n in sorted(self.missing.items()):
            files, missing = MISSING.get(key, (f"{key} files", "it"))
            self.study.notes.append(
                f"{n} {files} were not found beside the export ({looked_in}); their items "
                f"are kept without {missing}, with the path where each file would go and the "
                f"original reference under {key}_source.")
        if not any(MEDIA_KEY in item.record for item in self.study.items.values()):
            self.study.media_keys = ()  # an audio-only study shows no image field
        return self.study
