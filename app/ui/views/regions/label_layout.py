"""Placing the regions' labels on screen so that no two overlap: beside, stacked, short,
or dropped and counted.

Why: a label at each shape's corner lands on its neighbour's as soon as two objects
stand side by side (the street demo's pedestrians), and a picture of 320×240 px shown at
550 px has little room. The rule (a choice; the spec is silent), label by label in
priority order (:func:`place`):

1. places around the label's shapes' bounding box on screen (the *target*): above its
   top edge, then below its bottom edge (left-aligned, right-aligned, centred), right of
   it, left of it, all :data:`GAP` px away; then stacked further up, down, or down the
   sides, one label height per step; last inside the target's top-left corner. A place
   must lie inside the viewport and meet no placed label and no reserved rectangle;
2. among those, the one of least *cost*: its distance from the target (a leader's
   length) plus :data:`COVER_COST` per pixel of width it lies over any target (its own
   or another's). A label may thus cover a sliver of a neighbour rather than hang at
   the end of a long line across the picture, and never covers a shape when a free place
   is near;
3. the same for the label's short form (``car ×3``), used when it is the only one that
   fits or saves more than :data:`SHORT_COST`;
4. else the label is dropped and counted (the canvas writes the count in the
   bottom-left corner, a reserved rectangle, and lays out again).

A label not touching its target gets a leader line (:func:`leader_segment`), and a
place is refused whose card would lie across an earlier leader, or whose leader would
pass under an earlier card (it would read as that card's line). Pure geometry on floats
(the rectangles and segments of :mod:`app.ui.views.label_geometry`, shared with the 3D
view's point-anchored layout), no Qt: the canvas measures text and paints; tests check
that no two placed rectangles intersect.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from app.ui.views.label_geometry import Rect, Segment, crosses

GAP = 3.0
PAD = 2.0
"""Pixels kept between two labels."""
MAX_STACK = 40
COVER_COST = 1.5
"""Cost of covering shapes, per pixel of width a label lies over a target (its own or
another's) at full height; a place's cost is its distance from the target plus this."""
SHORT_COST = 60.0
"""The short form is used only when it saves more than this cost over the full one."""


@dataclass(frozen=True, slots=True)
class Request:
    target: Rect
    """The bounding box on screen of the shapes the label names."""
    full: tuple[float, float]
    short: tuple[float, float]


@dataclass(frozen=True, slots=True)
class Placed:
    index: int
    """Into the requests."""
    rect: Rect
    short: bool

    def leader(self, target: Rect) -> Segment | None:
        return leader_segment(self.rect, target)




def leader_segment(rect: Rect, target: Rect) -> Segment | None:
    """The line from a label to its target, or None when the label touches it: from the
    label's point nearest the target's centre to the target's point nearest that."""
    if rect.gap_to(target) <= GAP + 1.0:
        return None
    start = rect.nearest(target.x + target.w / 2, target.y + target.h / 2)
    return start, target.nearest(*start)


@dataclass(frozen=True, slots=True)
class Layout:
    placed: tuple[Placed, ...]
    dropped: tuple[int, ...]
    """Requests that found no room, in request order."""


def _candidates(t: Rect, w: float, h: float) -> Iterator[Rect]:
    above, below = t.y - GAP - h, t.bottom + GAP
    for y in (above, below):
        yield Rect(t.x, y, w, h)
        yield Rect(t.right - w, y, w, h)
        yield Rect(t.x + (t.w - w) / 2, y, w, h)
    yield Rect(t.right + GAP, t.y, w, h)
    yield Rect(t.x - GAP - w, t.y, w, h)
    for k in range(1, MAX_STACK + 1):
        step = k * (h + PAD)
        yield Rect(t.x, above - step, w, h)
        yield Rect(t.x, below + step, w, h)
        yield Rect(t.right + GAP, t.y + step, w, h)
        yield Rect(t.x - GAP - w, t.y + step, w, h)


@dataclass(slots=True)
class _Taken:
    """What later labels must keep clear of: placed cards and their leader lines."""

    rects: list[Rect]
    leaders: list[Segment]

    def free(self, rect: Rect, target: Rect, width: float, height: float) -> bool:
        """Inside the viewport, on no card, across no leader, and its own leader (if
        any) through no card: a line passing under a card reads as that card's."""
        if not rect.inside(width, height) or any(rect.intersects(o, PAD) for o in self.rects):
            return False
        if any(crosses(s, rect) for s in self.leaders):
            return False
        mine = leader_segment(rect, target)
        return mine is None or not any(crosses(mine, o) for o in self.rects)


def _overlap(a: Rect, b: Rect) -> float:
    w = min(a.right, b.right) - max(a.x, b.x)
    h = min(a.bottom, b.bottom) - max(a.y, b.y)
    return w * h if w > 0 and h > 0 else 0.0


def _find(
    target: Rect,
    size: tuple[float, float],
    taken: _Taken,
    targets: Sequence[Rect],
    width: float,
    height: float,
) -> tuple[Rect, float] | None:
    """The free place of least cost, and its cost (None when no place is free)."""
    w, h = size
    best: tuple[Rect, float] | None = None
    places = [*_candidates(target, w, h), Rect(target.x + GAP, target.y + GAP, w, h)]
    for rect in places:
        if not taken.free(rect, target, width, height):
            continue
        covered = sum(_overlap(rect, t) for t in targets) / h
        cost = rect.gap_to(target) + COVER_COST * covered
        if best is None or cost < best[1]:
            best = (rect, cost)
    return best


def place(
    requests: Sequence[Request], width: float, height: float, reserved: Sequence[Rect] = ()
) -> Layout:
    """Lay out ``requests`` in priority order (the caller sorts them) in a
    ``width × height`` viewport; ``reserved`` rectangles stay free."""
    taken = _Taken(list(reserved), [])
    targets = [r.target for r in requests]
    placed: list[Placed] = []
    dropped: list[int] = []
    for index, request in enumerate(requests):
        full = _find(request.target, request.full, taken, targets, width, height)
        short = _find(request.target, request.short, taken, targets, width, height)
        if full is None and short is None:
            dropped.append(index)
            continue
        use_short = full is None or (short is not None and short[1] + SHORT_COST < full[1])
        rect = short[0] if use_short and short is not None else full[0]  # type: ignore[index]
        placed.append(Placed(index, rect, use_short))
        taken.rects.append(rect)
        segment = leader_segment(rect, request.target)
        if segment is not None:
            taken.leaders.append(segment)
    return Layout(tuple(placed), tuple(dropped))


def hidden_note(n: int) -> str:
    """The corner note for ``n`` dropped labels ('' for none)."""
    if n == 0:
        return ""
    return f"{n} label{'s' if n != 1 else ''} hidden (no room): hover a shape, or hide an annotator"
