"""What Label Studio draws on an image → Potato's shapes: the percent coordinates of its
regions (:func:`region_shape`, with :func:`_unit` the one conversion of this format's
image units) and its brush RLE (:func:`decode_mask`).

Regions (``value`` of a result, ``labels`` → Potato shape):

- rectangle ``{x, y, width, height, rotation}``: ``x, y`` the top-left corner, percent of
  ``original_width``/``original_height``; a rotation turns it about that corner
  (degrees clockwise on screen) and makes it the polygon of its corners (counted as
  ``rotated``), computed in pixels;
- polygon ``{points: [[x, y], ...], closed}``: ``polygon`` (``closed: false``: ``polyline``);
- ellipse ``{x, y, radiusX, radiusY, rotation}``: the centre, ``radiusX`` a share of the
  width and ``radiusY`` of the height, as Potato's ``rx``/``ry``;
- keypoint ``{x, y, width}``: ``landmark`` (``width`` is only the dot's size).

Brush RLE:

A ``brushlabels`` result holds ``value.rle``: a list of bytes, the bit stream of
``@thi.ng/rle-pack`` over the **RGBA** pixels of the image (``original_width`` ×
``original_height`` × 4 values, row-major, channels interleaved). The stream starts with
a 32-bit count of values, a 5-bit word size minus one, and four 4-bit run-length field
sizes minus one; then blocks, each a 1-bit flag, a 2-bit index into those sizes and a
run length minus one of that many bits: flag 1 is one word repeated over the run, flag 0
that many literal words. Bits are read most significant first.

The mask is the **alpha** channel: a pixel is in it when its alpha is at least half of
the word's range (128 of 255), the same cut label-studio-converter makes when it turns a
grey image into a brush. The tests check this reader against label-studio-converter's
own encoder.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from app.core.errors import InputError
from app.core.formats.importers import image_media as im


class _Bits:
    def __init__(self, data: bytes, file: Path | str, key: str) -> None:
        self.data = data
        self.pos = 0
        self.total = len(data) * 8
        self.file = file
        self.key = key
        self._bits: np.ndarray | None = None

    def _check(self, n: int) -> None:
        if self.pos + n > self.total:
            raise InputError("the brush RLE ends in the middle of a run; expected Label "
                             "Studio's complete rle-pack stream", file=self.file, key=self.key)

    def read(self, n: int) -> int:
        if n == 0:
            return 0
        self._check(n)
        start, end = self.pos >> 3, (self.pos + n + 7) >> 3
        chunk = int.from_bytes(self.data[start:end], "big")
        shift = (end << 3) - (self.pos + n)
        self.pos += n
        return (chunk >> shift) & ((1 << n) - 1)

    def words(self, count: int, size: int) -> np.ndarray:
        """``count`` literal words of ``size`` bits, read at once."""
        self._check(count * size)
        if self._bits is None:
            self._bits = np.unpackbits(np.frombuffer(self.data, dtype=np.uint8))
        block = self._bits[self.pos:self.pos + count * size].reshape(count, size)
        self.pos += count * size
        weights = np.left_shift(np.uint64(1), np.arange(size - 1, -1, -1, dtype=np.uint64))
        values: np.ndarray = block.astype(np.uint64) @ weights
        return values


def decode_values(rle: Any, *, file: Path | str, key: str) -> tuple[np.ndarray, int]:
    """Every value of the stream and the word size in bits."""
    if not isinstance(rle, list) or not all(
            isinstance(b, int) and not isinstance(b, bool) and 0 <= b <= 255 for b in rle):
        raise InputError("the brush rle must be a list of bytes (integers 0-255)", file=file,
                         key=key)
    bits = _Bits(bytes(rle), file, key)
    num = bits.read(32)
    word = bits.read(5) + 1
    sizes = [bits.read(4) + 1 for _ in range(4)]
    out = np.zeros(num, dtype=np.uint8 if word <= 8 else np.uint32)
    i = 0
    while i < num:
        repeat = bits.read(1)
        j = i + 1 + bits.read(sizes[bits.read(2)])
        if j > num:
            raise InputError(f"a brush RLE run reaches value {j} of {num}; expected runs "
                             "inside the image", file=file, key=key)
        if repeat:
            out[i:j] = bits.read(word)
        else:
            out[i:j] = bits.words(j - i, word)
        i = j
    return out, word


def decode_mask(rle: Any, width: int, height: int, *, file: Path | str,
                key: str) -> np.ndarray:
    """The ``(height, width)`` boolean mask of a brush result (its alpha channel)."""
    values, word = decode_values(rle, file=file, key=key)
    if values.size != width * height * 4:
        raise InputError(f"the brush RLE holds {values.size} values; expected 4 per pixel of "
                         f"the {width}×{height} image ({width * height * 4})", file=file,
                         key=key)
    alpha = values.reshape(height, width, 4)[:, :, 3]
    result: np.ndarray = alpha >= (1 << (word - 1))
    return result


# ------------------------------------------------------------------------------ regions


def _unit(percent: float) -> float:
    """Label Studio's percent of the image size → Potato's [0, 1]: the one conversion."""
    return percent / 100.0


def number(value: Any, file: Path, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or \
            not math.isfinite(value):
        raise InputError(f"expected a number, found {value!r}", file=file, key=key)
    return float(value)


def region_shape(v: dict[str, Any], label: str, color: str, size: tuple[int, int] | None,
                 counts: Counter[str], file: Path, where: str) -> dict[str, Any] | None:
    """The Potato shape of one image result's ``value`` ``v`` (``None``: an empty brush)."""

    def num(k: str, default: float | None = None) -> float:
        got = v.get(k)
        return default if got is None and default is not None else \
            number(got, file, f"{where}.value.{k}")

    if "rle" in v or v.get("format") == "rle":
        if size is None:
            raise InputError("a brush result needs original_width and original_height",
                             file=file, key=where)
        pixels = decode_mask(v.get("rle"), size[0], size[1], file=file,
                             key=f"{where}.value.rle")
        if not pixels.any():
            counts["empty masks"] += 1
            return None
        return im.mask(label, color, pixels)
    if "points" in v:
        pts, closed = v["points"], v.get("closed", True) is not False
        if not isinstance(pts, list) or len(pts) < (3 if closed else 2) or not all(
                isinstance(p, list) and len(p) == 2 for p in pts):
            raise InputError(f"expected points: a list of at least {3 if closed else 2} "
                             "[x, y] pairs in percent", file=file, key=f"{where}.value.points")
        unit = [(_unit(number(x, file, where)), _unit(number(y, file, where)))
                for x, y in pts]
        return im.polygon(label, color, unit, closed=closed)
    if "radiusX" in v:
        rx, ry = num("radiusX"), num("radiusY")
        if rx < 0 or ry < 0:
            raise InputError(f"ellipse radii must not be negative ({rx:g}, {ry:g})", file=file,
                             key=f"{where}.value")
        return im.ellipse(label, color, _unit(num("x")), _unit(num("y")), _unit(rx),
                          _unit(ry), num("rotation", 0.0))
    if "width" in v and "height" in v:
        x, y, w, h = (_unit(num(k)) for k in ("x", "y", "width", "height"))
        if w < 0 or h < 0:
            raise InputError(f"a rectangle with negative width or height ({num('width'):g}, "
                             f"{num('height'):g} %); expected sizes of 0 or more", file=file,
                             key=f"{where}.value")
        angle = num("rotation", 0.0) % 360.0
        if angle == 0.0:
            return im.bbox(label, color, x, y, w, h)
        if size is None:
            raise InputError("a rotated rectangle needs original_width and original_height",
                             file=file, key=where)
        counts["rotated"] += 1
        W, H = size  # noqa: N806
        corners = im.rotated_corners(x * W, y * H, w * W, h * H, angle, (x * W, y * H))
        return im.polygon(label, color, [(cx / W, cy / H) for cx, cy in corners])
    return im.landmark(label, color, _unit(num("x")), _unit(num("y")))
