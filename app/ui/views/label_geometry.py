"""Screen rectangles and leader lines for the label layouts of the 3D and regions views.

The 3D view (:mod:`app.ui.views.cuboids.layout`) places each label near one projected
*point*, the regions view (:mod:`app.ui.views.regions.label_layout`) near a shape's
*bounding box* with a cost for covering shapes; those are two strategies for two kinds
of anchor, so each keeps its own module. What both need is here once: an axis-aligned
rectangle in screen pixels (y down) and the segment test for leader lines. Pure
geometry on floats, no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass

Segment = tuple[tuple[float, float], tuple[float, float]]
"""A leader line: from a point of the label to a point of what it names."""


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    def intersects(self, other: Rect, pad: float = 0.0) -> bool:
        """Whether the two overlap, or come closer than ``pad`` pixels."""
        return (
            self.x < other.right + pad
            and other.x < self.right + pad
            and self.y < other.bottom + pad
            and other.y < self.bottom + pad
        )

    def inside(self, width: float, height: float) -> bool:
        """Whether it lies wholly in a ``width × height`` viewport."""
        return self.x >= 0 and self.y >= 0 and self.right <= width and self.bottom <= height

    def pushed_inside(self, width: float, height: float) -> Rect:
        """The same size moved the least distance that brings it into the viewport (its
        top-left corner wins when it is larger than the viewport)."""
        x = min(max(self.x, 0.0), max(width - self.w, 0.0))
        y = min(max(self.y, 0.0), max(height - self.h, 0.0))
        return Rect(x, y, self.w, self.h)

    def gap_to(self, other: Rect) -> float:
        """The largest axis gap between the two rectangles (0 when they touch)."""
        dx = max(other.x - self.right, self.x - other.right, 0.0)
        dy = max(other.y - self.bottom, self.y - other.bottom, 0.0)
        return max(dx, dy)

    def nearest(self, px: float, py: float) -> tuple[float, float]:
        """The point of this rectangle closest to ``(px, py)``."""
        return (min(max(px, self.x), self.right), min(max(py, self.y), self.bottom))


def crosses(segment: Segment, rect: Rect) -> bool:
    """Whether ``segment`` passes through the inside of ``rect`` (Liang–Barsky clipping)."""
    (x0, y0), (x1, y1) = segment
    dx, dy = x1 - x0, y1 - y0
    lo, hi = 0.0, 1.0
    for p, q in (
        (-dx, x0 - rect.x),
        (dx, rect.right - x0),
        (-dy, y0 - rect.y),
        (dy, rect.bottom - y0),
    ):
        if p == 0:
            if q <= 0:
                return False
            continue
        t = q / p
        if p < 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
        if lo >= hi:
            return False
    return True
