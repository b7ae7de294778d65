"""Placing labels on screen so that no two overlap: offset, shorten, or drop and count.

Why: labels anchored at projected 3D points land wherever the camera puts them; two
objects side by side (or one behind the other) put their labels on top of each other.

The rule (a choice; the spec is silent), label by label in priority order:

1. try the label's full form at candidate places around its anchor: right of it, left,
   above, below, the four diagonals, first close (:data:`GAP` px); then stacked in the
   columns right and left of the anchor, one label height further down or up per step
   (nearest first); then on rings farther out in the eight directions. The first that
   lies inside the viewport and meets no placed label, no reserved rectangle (the count
   note) and no obstacle (the outline on screen of any cluster's boxes: a label never
   hides boxes, its own or another's) is taken; only when none does, the first free one
   pushed inside the viewport by its edge;
2. if none fits, the same for the label's one-line short form;
3. if that fails too, the label is dropped and counted: the view writes
   ``N labels hidden: zoom in or use Top-down`` in the bottom-left corner (that corner
   is then reserved and the layout done again, so the note covers no label).

A label placed beyond its eight nearest places (stacked or on a ring), or pushed by the
viewport edge away from its anchor, gets a leader line from the anchor to the nearest
point of its rectangle, so it still reads as belonging to its boxes. Anchors behind the
camera or outside the view are not labelled (and not counted: they are not on screen).

Pure geometry on floats (the rectangles of :mod:`app.ui.views.label_geometry`, shared
with the regions view's box-anchored layout), no Qt: the canvases measure text and
paint; tests check that no two placed rectangles intersect.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from app.ui.views.label_geometry import Rect

GAP = 6.0
RINGS = (0.0, 24.0, 56.0, 96.0)
"""Extra distance (px) of each ring of candidates beyond :data:`GAP`."""
PAD = 2.0
"""Pixels kept between two labels."""

DIRECTIONS = ((1, 0), (-1, 0), (0, -1), (0, 1), (1, -1), (-1, -1), (1, 1), (-1, 1))
"""(dx, dy) in screen axes (y down): right, left, above, below, then the diagonals."""


@dataclass(frozen=True, slots=True)
class Request:
    anchor: tuple[float, float]
    """Screen pixels; NaN when the anchor is behind the camera."""
    full: tuple[float, float]
    """(width, height) of the full form."""
    short: tuple[float, float]
    """(width, height) of the one-line form."""


@dataclass(frozen=True, slots=True)
class Placed:
    index: int
    """Into the requests."""
    rect: Rect
    short: bool
    leader: bool


@dataclass(frozen=True, slots=True)
class Layout:
    placed: tuple[Placed, ...]
    dropped: int
    """Labels on screen that found no room."""


def _candidate(ax: float, ay: float, w: float, h: float, dx: int, dy: int, ring: float) -> Rect:
    gap = GAP + ring
    x = ax - w / 2 if dx == 0 else (ax + gap if dx > 0 else ax - gap - w)
    y = ay - h / 2 if dy == 0 else (ay + gap if dy > 0 else ay - gap - h)
    return Rect(x, y, w, h)


def _candidates(
    ax: float, ay: float, w: float, h: float, height: float
) -> Iterator[tuple[Rect, bool]]:
    """Places to try, nearest first, each with whether it needs a leader line."""
    for dx, dy in DIRECTIONS:
        yield _candidate(ax, ay, w, h, dx, dy, 0.0), False
    # Stacks: right and left of the anchor, one label height (and PAD) per step.
    for k in range(1, int(height // (h + PAD)) + 1):
        for sign in (1, -1):
            for dx in (1, -1):
                rect = _candidate(ax, ay, w, h, dx, 0, 0.0)
                yield Rect(rect.x, rect.y + sign * k * (h + PAD), w, h), True
    for ring in RINGS[1:]:
        for dx, dy in DIRECTIONS:
            yield _candidate(ax, ay, w, h, dx, dy, ring), True


def _place(
    ax: float,
    ay: float,
    size: tuple[float, float],
    taken: _Taken,
    width: float,
    height: float,
) -> tuple[Rect, bool] | None:
    """The first candidate that, pushed inside the viewport, meets nothing taken and
    moved at most half a pixel; else the first that meets nothing (with a leader).

    Every candidate (:func:`_candidate_arrays`) is tested against every taken rectangle
    at once in numpy (the same comparisons, in float64, as :meth:`Rect.intersects`):
    one at a time in Python, a 2,000-sweep lidar study's view spent 90 ms of the GUI
    thread on each of the two layouts of a paint.
    """
    w, h = size
    if w > width or h > height:
        return None
    x, y, leader = _candidate_arrays(ax, ay, w, h, height)
    px = np.minimum(np.maximum(x, 0.0), max(width - w, 0.0))  # Rect.pushed_inside
    py = np.minimum(np.maximum(y, 0.0), max(height - h, 0.0))
    free = ~taken.meets(px, py, w, h).any(axis=1)
    near = np.flatnonzero(free & (np.abs(px - x) + np.abs(py - y) <= 0.5))
    if near.size:
        k = int(near[0])
        return Rect(float(px[k]), float(py[k]), w, h), bool(leader[k])
    hits = np.flatnonzero(free)
    if not hits.size:
        return None
    k = int(hits[0])  # pushed by the edge: only if nothing else fits
    return Rect(float(px[k]), float(py[k]), w, h), True


def _candidate_arrays(ax: float, ay: float, w: float, h: float, height: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_candidates` as arrays (x, y, leader), in its order and with its float
    operations: the eight places close by, the stacks, the rings. The index arrays that
    do not depend on the anchor are made once (:func:`_stack_pattern`): built per label
    they were two thirds of a 40-label layout."""
    def along(a: float, size: float, d: np.ndarray, gap: np.ndarray) -> np.ndarray:
        return np.where(d == 0, a - size / 2, np.where(d > 0, a + gap, (a - gap) - size))

    ring_x = along(ax, w, _RING_DX, _RING_GAPS)
    ring_y = along(ay, h, _RING_DY, _RING_GAPS)
    signs, sides = _stack_pattern(int(height // (h + PAD)))
    stack_x = np.where(sides > 0, ax + GAP, (ax - GAP) - w)
    stack_y = (ay - h / 2) + signs * (h + PAD)
    close = len(DIRECTIONS)
    x = np.concatenate([ring_x[:close], stack_x, ring_x[close:]])
    y = np.concatenate([ring_y[:close], stack_y, ring_y[close:]])
    leader = np.ones(len(x), dtype=bool)
    leader[:close] = False
    return x, y, leader


_RING_GAPS = np.repeat(GAP + np.array(RINGS), len(DIRECTIONS))
"""Each candidate's gap, ring 0 first: the close places, then the rings."""
_RING_DX = np.tile(np.array([d[0] for d in DIRECTIONS]), len(RINGS))
_RING_DY = np.tile(np.array([d[1] for d in DIRECTIONS]), len(RINGS))


@functools.lru_cache(maxsize=64)
def _stack_pattern(n_steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The stacks' signed steps (as float64) and sides for ``n_steps`` steps each way."""
    steps = np.arange(1, n_steps + 1)
    signs = (np.repeat(np.tile([1, -1], len(steps)), 2) * np.repeat(steps, 4)
             ).astype(np.float64)
    sides = np.tile([1, -1], 2 * len(steps))
    for array in (signs, sides):  # shared by every call: never written
        array.setflags(write=False)
    return signs, sides


class _Taken:
    """The rectangles placed so far (and the reserved and obstacle ones) as columns."""

    def __init__(self, rects: Sequence[Rect]) -> None:
        self.x = np.array([r.x for r in rects], dtype=np.float64)
        self.y = np.array([r.y for r in rects], dtype=np.float64)
        self.right = np.array([r.right + PAD for r in rects], dtype=np.float64)
        self.bottom = np.array([r.bottom + PAD for r in rects], dtype=np.float64)

    def add(self, rect: Rect) -> None:
        self.x = np.append(self.x, rect.x)
        self.y = np.append(self.y, rect.y)
        self.right = np.append(self.right, rect.right + PAD)
        self.bottom = np.append(self.bottom, rect.bottom + PAD)

    def meets(self, x: np.ndarray, y: np.ndarray, w: float, h: float) -> np.ndarray:
        """candidates × taken: :meth:`Rect.intersects` with :data:`PAD`, each term as
        it computes it (``a.x < b.right + pad``, ``b.x < a.right + pad``, …)."""
        xc, yc = x[:, None], y[:, None]
        return ((xc < self.right[None, :]) & (self.x[None, :] < (xc + w) + PAD)
                & (yc < self.bottom[None, :]) & (self.y[None, :] < (yc + h) + PAD))


def on_screen(x: float, y: float, width: float, height: float) -> bool:
    return not (math.isnan(x) or math.isnan(y)) and 0 <= x <= width and 0 <= y <= height


def layout(
    requests: Sequence[Request],
    width: float,
    height: float,
    reserved: Sequence[Rect] = (),
    obstacles: Sequence[Rect] = (),
    earlier: Layout | None = None,
) -> Layout:
    """Place ``requests`` in order (the first has priority); see the module docstring.
    No label meets a ``reserved`` rectangle or an ``obstacle`` (the boxes' outlines).

    ``earlier``: the layout of the same requests, size and obstacles without
    ``reserved`` (the count note's corner is reserved after a first layout dropped
    labels). Its labels before the first whose rectangle meets a reserved one are kept
    as they are, and only the rest is placed again: more taken rectangles only take
    candidates away, so a label whose chosen place is still free chooses it again, and
    each later label then sees the same taken rectangles (the result is the same as a
    layout from scratch, ``tests/ui/test_cuboids_labels.py``; the lidar view's second
    layout cost as much as its first)."""
    taken = _Taken([*reserved, *obstacles])
    placed: list[Placed] = []
    dropped = 0
    start = 0
    if earlier is not None:
        start, placed, dropped = _kept_prefix(earlier, _Taken(reserved), requests, width,
                                               height)
        for kept in placed:
            taken.add(kept.rect)
    for k, request in enumerate(requests):
        if k < start:
            continue
        ax, ay = request.anchor
        if not on_screen(ax, ay, width, height):
            continue
        for short, size in ((False, request.full), (True, request.short)):
            spot = _place(ax, ay, size, taken, width, height)
            if spot is not None:
                rect, leader = spot
                taken.add(rect)
                placed.append(Placed(k, rect, short, leader))
                break
        else:
            dropped += 1
    return Layout(tuple(placed), dropped)


def _kept_prefix(earlier: Layout, reserved: _Taken, requests: Sequence[Request],
                 width: float, height: float) -> tuple[int, list[Placed], int]:
    """(index of the first request to place again, the placed labels before it, how
    many labels before it were dropped) of ``earlier`` once ``reserved`` is taken."""
    stop = len(requests)
    for placed in earlier.placed:
        r = placed.rect
        if reserved.meets(np.array([r.x]), np.array([r.y]), r.w, r.h).any():
            stop = placed.index
            break
    kept = [p for p in earlier.placed if p.index < stop]
    # The dropped ones before ``stop`` stay dropped (their candidates only lost places).
    shown = sum(on_screen(*r.anchor, width, height) for r in requests[:stop])
    return stop, kept, shown - len(kept)


def hidden_note(dropped: int) -> str:
    """The corner note for labels that found no room (empty when none)."""
    if dropped == 0:
        return ""
    return f"{dropped} label{'s' if dropped != 1 else ''} hidden: zoom in or use Top-down"
