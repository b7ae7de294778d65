"""COCO object-detection JSON (``accord import coco``); masks decoded with pycocotools.

**Format.** ``{"images": [{id, file_name, width, height}], "annotations": [{id,
image_id, category_id, bbox: [x, y, w, h], segmentation, iscrowd}], "categories":
[{id, name}]}``. ``bbox`` is in **pixels**, (x, y) the top-left corner; polygons are flat
lists ``[x1, y1, x2, y2, …]`` in pixels; an RLE segmentation ``{size: [h, w], counts}``
is **column-major** (compressed string or uncompressed list). Pixels are divided by the
image's width and height in :func:`_unit` and nowhere else; RLE masks are decoded by
pycocotools and re-encoded row-major, as Potato stores them.

**Who is who.** One file (or a folder holding one ``.json``) per annotator, named by
``--annotator`` or the file's stem (the folder's name).

**Items.** Matched across files by ``file_name`` (image and category ids differ between
files); the item id is the file name. Categories are matched by name. An image with no
annotation is an empty answer; an image a file does not list is no answer.

**Schemes.** One ``image_annotation`` scheme, ``objects``, with every file's category
names (in order of first use).

**Shapes.** A polygon segmentation wins over the bbox: each of its polygons becomes a
Potato ``polygon`` (an object in several parts becomes several polygons, counted). An
RLE segmentation becomes a Potato ``mask`` (an empty one is left out, counted). With no
segmentation (or an empty list) the bbox becomes a ``bbox``. An annotation whose
category id is not in ``categories``, whose image id is not in ``images``, or whose bbox
has a negative width or height is an error, as is an RLE whose size is not its image's.
``keypoints`` are not imported (counted), nor ``score`` (a detector's output kept as
the annotator's, counted).
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from pycocotools import mask as coco_mask

from app.core.errors import InputError
from app.core.formats.importers import image_media as im
from app.core.formats.importers.model import ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.reading.boundary import ANYWHERE
from app.core.formats.reading.json_file import read_json

SCHEME = "objects"


class _File:
    """One annotator's COCO file."""

    def __init__(self, path: Path, annotator: str, images: im.ImageStudy,
                 counts: Counter[str], used: set[str], labels: dict[str, None]) -> None:
        self.path, self.annotator, self.images = path, annotator, images
        self.counts, self.used, self.labels = counts, used, labels

    def error(self, message: str, key: str) -> InputError:
        return InputError(message, file=self.path, key=key)

    def read(self) -> None:
        raw = read_json(self.path, root=ANYWHERE)
        if not isinstance(raw, dict) or not all(
                isinstance(raw.get(k), list) for k in ("images", "annotations", "categories")):
            raise self.error("expected COCO JSON: an object with the lists images, "
                             "annotations and categories", "images")
        categories = self.categories(raw["categories"])
        frames = self.frames(raw["images"])
        shapes: dict[Any, list[dict[str, Any]]] = {ident: [] for ident in frames}
        for i, ann in enumerate(raw["annotations"]):
            key = f"annotations[{i}]"
            if not isinstance(ann, dict):
                raise self.error("expected an annotation object", key)
            image_id, category_id = ann.get("image_id"), ann.get("category_id")
            if not _is_id(image_id) or image_id not in frames:
                raise self.error(f"image_id {image_id!r} is not the id of an image in "
                                 "images", f"{key}.image_id")
            if not _is_id(category_id) or category_id not in categories:
                raise self.error(f"unknown category_id {category_id!r}; expected one of "
                                 f"the ids in categories ({', '.join(map(str, categories))})",
                                 f"{key}.category_id")
            label = categories[category_id]
            self.labels.setdefault(label)
            shapes[image_id].extend(self.shape(ann, label, frames[image_id][1], key))
        for ident, (name, _size) in frames.items():
            self.images.answer(self.annotator, name, SCHEME, shapes[ident])

    def categories(self, raw: list[Any]) -> dict[Any, str]:
        out: dict[Any, str] = {}
        for i, cat in enumerate(raw):
            if not isinstance(cat, dict) or not _is_id(cat.get("id")) or \
                    not isinstance(cat.get("name"), str) or not cat["name"]:
                raise self.error("expected a category {id, name}", f"categories[{i}]")
            if cat["id"] in out:
                raise self.error(f"category id {cat['id']!r} appears twice", f"categories[{i}]")
            out[cat["id"]] = cat["name"]
        return out

    def frames(self, raw: list[Any]) -> dict[Any, tuple[str, tuple[int, int]]]:
        out: dict[Any, tuple[str, tuple[int, int]]] = {}
        names: set[str] = set()
        for i, img in enumerate(raw):
            key = f"images[{i}]"
            if not isinstance(img, dict) or not _is_id(img.get("id")) or \
                    not isinstance(img.get("file_name"), str) or not img["file_name"]:
                raise self.error("expected an image {id, file_name, width, height}", key)
            name = img["file_name"]
            if img["id"] in out or name in names:
                raise self.error(f"image id {img['id']!r} or file_name '{name}' appears twice; "
                                 "expected one entry per image", key)
            names.add(name)
            size = None
            if img.get("width") is not None or img.get("height") is not None:
                size = im.check_size(img.get("width"), img.get("height"), file=self.path,
                                     key=f"{key}.width")
            item = self.images.add_item(name, name, self.path.parent, size, text=name)
            if size is None:
                if "width" not in item.record:
                    raise self.error("no width and height, and the image file was not found "
                                     "beside the export; expected the image's size in pixels",
                                     f"{key}.width")
                size = (item.record["width"], item.record["height"])
            out[img["id"]] = (name, size)
        return out

    def shape(self, ann: dict[str, Any], label: str, size: tuple[int, int], key: str
              ) -> list[dict[str, Any]]:
        color = self.images.color(label)
        if ann.get("keypoints"):
            self.counts["keypoints"] += 1
        if "score" in ann:
            self.counts["score"] += 1
        seg = ann.get("segmentation")
        out: list[dict[str, Any]]
        if isinstance(seg, dict):
            pixels = self.rle(seg, size, f"{key}.segmentation")
            if not pixels.any():
                self.counts["empty masks"] += 1
                return []
            out = [im.mask(label, color, pixels)]
        elif isinstance(seg, list) and seg:
            if len(seg) > 1:
                self.counts["parts"] += 1
            out = [im.polygon(label, color, im.pixels_to_unit(
                self.polygon(p, f"{key}.segmentation[{j}]"), size)) for j, p in enumerate(seg)]
        else:
            bbox = ann.get("bbox")
            if not isinstance(bbox, list) or len(bbox) != 4 or not all(_finite(v) for v in bbox):
                raise self.error("expected bbox [x, y, width, height] in pixels (or a "
                                 "segmentation)", f"{key}.bbox")
            x, y, w, h = (float(v) for v in bbox)
            if w < 0 or h < 0:
                raise self.error(f"a bbox with negative width or height ({w:g} × {h:g} px); "
                                 "expected sizes of 0 or more", f"{key}.bbox")
            (nx, ny), (nw, nh) = im.pixels_to_unit([(x, y), (w, h)], size)
            out = [im.bbox(label, color, nx, ny, nw, nh)]
        self.used.update(s["type"] for s in out)
        return out

    def polygon(self, flat: Any, key: str) -> list[tuple[float, float]]:
        if not isinstance(flat, list) or len(flat) < 6 or len(flat) % 2 or \
                not all(_finite(v) for v in flat):
            raise self.error("expected a polygon [x1, y1, x2, y2, ...] of at least 3 points in "
                             "pixels", key)
        return [(float(flat[k]), float(flat[k + 1])) for k in range(0, len(flat), 2)]

    def rle(self, seg: dict[str, Any], size: tuple[int, int], key: str) -> np.ndarray:
        width, height = size
        counts, rle_size = seg.get("counts"), seg.get("size")
        if rle_size != [height, width]:
            raise self.error(f"the RLE size is {rle_size!r}; expected [height, width] of its "
                             f"image, [{height}, {width}]", f"{key}.size")
        if isinstance(counts, list):
            if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0
                       for c in counts) or sum(counts) != width * height:
                raise self.error(f"the uncompressed RLE runs must be non-negative and sum to "
                                 f"height·width = {height * width}", f"{key}.counts")
            encoded = {"counts": counts, "size": rle_size}
        elif isinstance(counts, str):
            encoded = {"counts": counts.encode("ascii", "replace"), "size": rle_size}
        else:
            raise self.error("expected RLE counts: a list of runs or COCO's compressed "
                             "string", f"{key}.counts")
        try:
            with warnings.catch_warnings():
                # pycocotools 2.0 calls numpy's __array__ without copy=: a
                # DeprecationWarning of numpy 2 that is not the user's concern
                warnings.simplefilter("ignore", DeprecationWarning)
                if isinstance(counts, list):
                    encoded = coco_mask.frPyObjects(encoded, height, width)
                pixels = coco_mask.decode(encoded)
        except Exception as exc:  # pycocotools raises bare errors on a damaged string
            raise self.error(f"the compressed RLE cannot be decoded ({exc})",
                             f"{key}.counts") from None
        if pixels.shape != (height, width):
            raise self.error("the compressed RLE does not cover its image", f"{key}.counts")
        result: np.ndarray = pixels.astype(bool)
        return result


def _is_id(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and \
        math.isfinite(value)


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    """The study in COCO files ``sources``, one per annotator (see the module)."""
    names = annotator_names(sources, annotators)
    images = im.ImageStudy("coco")
    counts: Counter[str] = Counter()
    used: set[str] = set()
    labels: dict[str, None] = {}
    for source, name in zip(sources, names, strict=True):
        path = im.export_file(source, (".json",), "a COCO JSON file")
        _File(path, name, images, counts, used, labels).read()
    images.study.schemes.append(images.scheme(SCHEME, list(labels), used))
    notes = images.study.notes
    if counts["parts"]:
        notes.append(f"{counts['parts']} objects were outlined in several polygons; each "
                     "polygon is a Potato polygon of its own.")
    if counts["empty masks"]:
        notes.append(f"{counts['empty masks']} RLE masks cover no pixel and were left out.")
    if counts["keypoints"]:
        notes.append(f"{counts['keypoints']} annotations had keypoints, which were not "
                     "imported (their box or outline was).")
    if counts["score"]:
        notes.append(f"{counts['score']} annotations carry a detector's score; they are "
                     "kept as their file's annotator's, without the score.")
    return images.finish("by file_name beside the JSON file and in its images/, media/ "
                         "and data/")
