"""CVAT for images 1.1 XML (``accord import cvat``), read with lxml's iterparse.

**Format.** ``<annotations><version>1.1</version><meta>…<labels>…</labels>…</meta>`` then
one ``<image id name width height>`` per frame holding its shapes: ``<box label xtl ytl
xbr ybr rotation? occluded z_order>``, ``<polygon label points="x,y;x,y;…">``,
``<polyline>``, ``<points>``, ``<ellipse label cx cy rx ry rotation?>`` and
``<mask label rle left top width height>``. Every coordinate is in **pixels** of the
image (origin top-left), divided by the image's width and height in :func:`_unit` and
nowhere else. The labels are those of ``<meta><task><labels>`` (or ``<job>``, or
``<project>``); a shape with another label is an error. A file holding ``<track>`` is
"CVAT for video" and is refused.

**Who is who.** One file (a job's export, or a folder holding one ``.xml``, as CVAT's
zip unpacks) per annotator, named by ``--annotator`` or the file's stem (the folder's
name).

**Items.** Matched across files by the image ``name`` (image ids differ between jobs and
tasks); the item id is that name. An image element with no shape is an empty answer;
an image a file does not list is no answer.

**Schemes.** One ``image_annotation`` scheme, ``objects``, with the labels of every file
(in order of first use) and CVAT's label colours.

**Shapes.** A box → ``bbox``; a box with a ``rotation`` (degrees clockwise about its
centre) → the polygon of its four corners, since Potato's boxes are not rotated
(counted); polygon → ``polygon``; polyline → ``polyline``; each point of ``<points>`` →
one ``landmark``; ellipse → ``ellipse`` (``rotation`` is its angle); mask → Potato's mask
over the whole image: CVAT's own RLE runs over the mask's ``width``×``height`` box,
row-major, starting with background, placed at ``left, top`` (a box reaching outside
the image is cut at its edge, an empty mask left out; both counted). Cuboids, skeletons
and tags are skipped and counted. Attributes, ``occluded`` and ``z_order`` are not
carried by Potato shapes (counted); ``source="auto"`` shapes (CVAT's automatic
annotation, accepted into the job) are kept as the annotator's and counted.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from lxml import etree

from app.core.errors import InputError
from app.core.formats.importers import image_media as im
from app.core.formats.importers.model import ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.reading.boundary import ANYWHERE, open_checked

SCHEME = "objects"
SHAPE_TAGS = frozenset({"box", "polygon", "polyline", "points", "ellipse", "mask"})
SKIPPED_TAGS = frozenset({"cuboid", "skeleton", "tag"})
LABEL_PARENTS = frozenset({"task", "job", "project"})


def walk_xml(path: Path, walk: Callable[[Any], None], expected: str) -> None:
    """Open ``path`` through the reader boundary and hand it to ``walk`` (an lxml
    iterparse loop); broken XML or a failed read is one error naming the file (and the
    line), with the ``expected`` format. Shared by the CVAT image and video importers."""
    try:
        with open_checked(path, root=ANYWHERE) as handle:
            walk(handle)
    except etree.XMLSyntaxError as exc:
        raise InputError(f"malformed or truncated XML ({exc.msg}); expected {expected}",
                         file=path, line=exc.lineno) from None
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc})", file=path) from None


class _File:
    """One annotator's CVAT file, read element by element."""

    def __init__(self, path: Path, annotator: str, images: im.ImageStudy,
                 counts: Counter[str], used: set[str]) -> None:
        self.path, self.annotator, self.images = path, annotator, images
        self.counts, self.used = counts, used
        self.labels: dict[str, str | None] = {}
        self.seen: set[str] = set()

    def error(self, message: str, elem: Any) -> InputError:
        return InputError(message, file=self.path, line=elem.sourceline)

    def read(self) -> None:
        walk_xml(self.path, self.walk, "CVAT for images 1.1")

    def walk(self, handle: Any) -> None:
        events = etree.iterparse(handle, events=("start", "end"), resolve_entities=False,
                                 no_network=True)
        first = True
        for event, elem in events:
            if first:
                first = False
                if elem.tag != "annotations":
                    raise self.error(f"the root element is <{elem.tag}>; expected CVAT "
                                     "for images 1.1 XML (<annotations>)", elem)
            if event != "end":
                continue
            if elem.tag == "labels" and elem.getparent() is not None and \
                    elem.getparent().tag in LABEL_PARENTS:
                self.meta_labels(elem)
            elif elem.tag == "track":
                raise self.error("this is CVAT for video (it holds <track>); import it "
                                 "with `accord import cvat-video`", elem)
            elif elem.tag == "image":
                self.image(elem)
                elem.clear()
                while elem.getprevious() is not None:
                    del elem.getparent()[0]

    def meta_labels(self, elem: Any) -> None:
        for label in elem.iterchildren("label"):
            name = label.findtext("name")
            if name and not label.findtext("parent"):  # a skeleton's points have a parent
                self.labels.setdefault(name, (label.findtext("color") or "").strip() or None)

    def image(self, elem: Any) -> None:
        name = elem.get("name")
        if not name:
            raise self.error("an <image> has no name; expected the image's file name", elem)
        if name in self.seen:
            raise self.error(f"image '{name}' appears twice; expected one <image> per file "
                             "name", elem)
        self.seen.add(name)
        size = im.check_size(elem.get("width"), elem.get("height"), file=self.path,
                             line=elem.sourceline, key=f"image '{name}' width/height")
        self.images.add_item(name, name, self.path.parent, size, text=name)
        shapes: list[dict[str, Any]] = []
        for child in elem.iterchildren():
            if not isinstance(child.tag, str):
                continue  # a comment
            if child.tag in SKIPPED_TAGS:
                self.counts[child.tag] += 1
            elif child.tag in SHAPE_TAGS:
                shapes.extend(self.shape(child, size))
        self.images.answer(self.annotator, name, SCHEME, shapes)

    def label(self, elem: Any) -> tuple[str, str]:
        label = elem.get("label")
        if label is None:
            raise self.error(f"a <{elem.tag}> has no label", elem)
        if self.labels and label not in self.labels:
            raise self.error(f"unknown label '{label}' on a <{elem.tag}>; expected one of the "
                             f"labels in <meta>: {', '.join(self.labels)}", elem)
        return label, self.images.color(label, self.labels.get(label))

    def shape(self, elem: Any, size: tuple[int, int]) -> list[dict[str, Any]]:
        label, color = self.label(elem)
        tag = elem.tag
        if elem.get("occluded") == "1" or len(elem.findall("attribute")):
            self.counts["attributes"] += 1
        if elem.get("source") == "auto":
            self.counts["auto"] += 1
        out: list[dict[str, Any]]
        if tag == "box":
            xtl, ytl, xbr, ybr = (self.number(elem, k) for k in ("xtl", "ytl", "xbr", "ybr"))
            if xbr < xtl or ybr < ytl:
                raise self.error(f"a <box> with negative width or height ({xbr - xtl:g} × "
                                 f"{ybr - ytl:g} px); expected xtl <= xbr and ytl <= ybr",
                                 elem)
            angle = (self.number(elem, "rotation") if elem.get("rotation") else 0.0) % 360.0
            if angle:
                self.counts["rotated"] += 1
                centre = ((xtl + xbr) / 2, (ytl + ybr) / 2)
                corners = im.rotated_corners(xtl, ytl, xbr - xtl, ybr - ytl, angle, centre)
                out = [im.polygon(label, color, im.pixels_to_unit(corners, size))]
            else:
                (x, y), (w, h) = im.pixels_to_unit([(xtl, ytl), (xbr - xtl, ybr - ytl)], size)
                out = [im.bbox(label, color, x, y, w, h)]
        elif tag in ("polygon", "polyline", "points"):
            points = im.pixels_to_unit(self.points(elem), size)
            least = {"polygon": 3, "polyline": 2, "points": 1}[tag]
            if len(points) < least:
                raise self.error(f"a <{tag}> with {len(points)} points; expected at least "
                                 f"{least}", elem)
            if tag == "points":
                out = [im.landmark(label, color, x, y) for x, y in points]
            else:
                out = [im.polygon(label, color, points, closed=tag == "polygon")]
        elif tag == "ellipse":
            cx, cy, rx, ry = (self.number(elem, k) for k in ("cx", "cy", "rx", "ry"))
            if rx < 0 or ry < 0:
                raise self.error(f"an <ellipse> with negative radii ({rx:g}, {ry:g})", elem)
            angle = self.number(elem, "rotation") if elem.get("rotation") else 0.0
            (ncx, ncy), (nrx, nry) = im.pixels_to_unit([(cx, cy), (rx, ry)], size)
            out = [im.ellipse(label, color, ncx, ncy, nrx, nry, angle)]
        else:
            pixels = self.mask(elem, size)
            out = [im.mask(label, color, pixels)] if pixels.any() else []
            self.counts["empty masks"] += not out
        self.used.update(s["type"] for s in out)
        return out

    def number(self, elem: Any, key: str) -> float:
        text = elem.get(key)
        try:
            value = float(text)
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value):
            raise self.error(f"<{elem.tag}> {key}={text!r}; expected a number of pixels", elem)
        return value

    def points(self, elem: Any) -> list[tuple[float, float]]:
        text = elem.get("points") or ""
        out = []
        for pair in filter(None, (p.strip() for p in text.split(";"))):
            parts = pair.split(",")
            try:
                x, y = (float(v) for v in parts)
            except ValueError:
                raise self.error(f"<{elem.tag}> point '{pair}'; expected 'x,y' in pixels, "
                                 "pairs separated by ';'", elem) from None
            if not (math.isfinite(x) and math.isfinite(y)):
                raise self.error(f"<{elem.tag}> point '{pair}' is not finite", elem)
            out.append((x, y))
        return out

    def mask(self, elem: Any, size: tuple[int, int]) -> np.ndarray:
        W, H = size  # noqa: N806
        try:
            runs = [int(v) for v in (elem.get("rle") or "").split(",")]
            left, top, width, height = (int(elem.get(k)) for k in
                                        ("left", "top", "width", "height"))
        except (TypeError, ValueError):
            raise self.error("a <mask> needs rle (comma-separated run lengths) and whole-pixel "
                             "left, top, width and height", elem) from None
        if min(runs, default=-1) < 0 or width <= 0 or height <= 0 or \
                sum(runs) != width * height:
            raise self.error(f"the <mask> runs sum to {sum(runs)}; expected width·height = "
                             f"{width}·{height} non-negative runs", elem)
        values = np.zeros(len(runs), dtype=bool)
        values[1::2] = True
        box = np.repeat(values, runs).reshape(height, width)
        full = np.zeros((H, W), dtype=bool)
        x0, y0, x1, y1 = max(left, 0), max(top, 0), min(left + width, W), min(top + height, H)
        if (x0, y0, x1, y1) != (left, top, left + width, top + height):
            self.counts["cut masks"] += 1
        if x1 > x0 and y1 > y0:
            full[y0:y1, x0:x1] = box[y0 - top:y1 - top, x0 - left:x1 - left]
        return full


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    """The study in CVAT for images 1.1 files ``sources``, one per annotator."""
    names = annotator_names(sources, annotators)
    images = im.ImageStudy("cvat")
    counts: Counter[str] = Counter()
    used: set[str] = set()
    labels: dict[str, None] = {}
    for source, name in zip(sources, names, strict=True):
        path = im.export_file(source, (".xml",), "a CVAT for images 1.1 XML file")
        one = _File(path, name, images, counts, used)
        one.read()
        labels.update(dict.fromkeys(one.labels))
        for item in images.study.answers.get(name, {}).values():
            labels.update(dict.fromkeys(s["label"] for s in item.get(SCHEME, [])))
    images.study.schemes.append(images.scheme(SCHEME, list(labels), used))
    notes = images.study.notes
    if counts["rotated"]:
        notes.append(f"{counts['rotated']} rotated boxes became polygons of their corners "
                     "(Potato's boxes are not rotated).")
    for tag in sorted(SKIPPED_TAGS):
        if counts[tag]:
            notes.append(f"{counts[tag]} <{tag}> elements were skipped: Accord imports boxes, "
                         "polygons, polylines, points, ellipses and masks.")
    if counts["attributes"]:
        notes.append(f"{counts['attributes']} shapes had attributes or the occluded flag, "
                     "which Potato shapes do not carry (nor z_order).")
    if counts["auto"]:
        notes.append(f"{counts['auto']} shapes came from CVAT's automatic annotation "
                     "(source=auto) and are kept as their annotator's.")
    if counts["empty masks"]:
        notes.append(f"{counts['empty masks']} masks cover no pixel of their image and were "
                     "left out.")
    if counts["cut masks"]:
        notes.append(f"{counts['cut masks']} masks reached outside their image and were cut "
                     "at its edge.")
    return images.finish("by name beside the XML file and in its images/, media/ and data/")
