"""Where the tiers view puts every bar, link and IoU tag: pure numpy, tested without Qt.

The core's :class:`~app.core.agreement.drawing.Timeline` gives one unit-high row per
(tier, annotator) and a link between the centres of each matched pair. Drawn as is, two
things go wrong (issue 15): overlapping segments of one row sit on top of each other,
and the IoU of a pair whose rows are not neighbours (ines and wei, with jonas between)
lands on the third annotator's row. This module re-lays the rows out:

- **sub-rows**: the segments of one row are coloured as an interval graph
  (:func:`assign_lanes`: by start, each takes the lowest lane free at its start; greedy
  colouring is optimal for intervals, so a row has as many lanes as its deepest
  overlap); a row is as many units high as it has lanes;
- **neighbouring pairs** (rows next to each other in one tier) keep their link line and
  get their tag where the line crosses the border between the two rows, so it sits
  between the two matched bars and inside the pair's own rows;
- **other pairs** get a *pair lane* after their tier's rows (one per annotator pair
  that has such a match, labelled with both names): no line through the rows between
  them, but a thin strip over the stretch where the two segments overlap, with the tag
  on it; overlapping strips take sub-lanes of the pair lane, as bars do.

Segments touching at one instant (``a.end == b.start``) do not overlap; an instant
(zero length) overlaps what strictly contains it and any identical instant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core.agreement.drawing import Timeline

BAR_MARGIN = 0.1
"""The gap above and below a bar inside its lane, in lane units (the core's margin)."""
PAIR_LANE = 0.8
"""A pair lane's height in lane units."""
STRIP = 0.16
"""The overlap strip's half-height in a pair lane, in lane units."""


def assign_lanes(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The lowest free lane per interval, so that overlapping intervals never share one.

    Two intervals overlap when ``a.start < b.end and b.start < a.end``, or when both are
    the same instant; touching ends share a lane.
    """
    starts = np.asarray(starts, dtype=np.float64)
    ends = np.asarray(ends, dtype=np.float64)
    lanes = np.zeros(len(starts), dtype=np.int64)
    lane_end: list[float] = []
    lane_instant: list[float | None] = []
    for k in np.lexsort((ends, starts)).tolist():
        s, e = float(starts[k]), float(ends[k])
        lane = next(
            (
                n
                for n, (free_at, instant) in enumerate(zip(lane_end, lane_instant, strict=True))
                if free_at <= s and not (s == e and instant == s)
            ),
            len(lane_end),
        )
        if lane == len(lane_end):
            lane_end.append(-np.inf)
            lane_instant.append(None)
        lanes[k] = lane
        lane_end[lane] = max(lane_end[lane], e)
        lane_instant[lane] = s if s == e else None
    return lanes


def link_pairs(data: Timeline) -> np.ndarray:
    """(m, 2) bar indices per link, recovered from the link ends (the rectangle centres
    the core computed, so they compare exactly). Two identical bars of one row are
    interchangeable; each link end takes the first of them not yet used by another link
    of the same partner row."""
    centres = np.column_stack(
        [(data.rects[:, 0] + data.rects[:, 2]) / 2, (data.rects[:, 1] + data.rects[:, 3]) / 2]
    )
    by_centre: dict[tuple[float, float], list[int]] = {}
    for k, (x, y) in enumerate(centres.tolist()):
        by_centre.setdefault((x, y), []).append(k)
    used: set[tuple[int, int]] = set()
    out = np.zeros((len(data.links), 2), dtype=np.int64)
    for m, ends in enumerate(data.links.tolist()):
        for side, (x, y) in enumerate(ends):
            other_row = int(np.floor(ends[1 - side][1]))
            candidates = by_centre[(x, y)]
            pick = next((k for k in candidates if (k, other_row) not in used), candidates[0])
            used.add((pick, other_row))
            out[m, side] = pick
    return out


@dataclass(frozen=True, slots=True)
class DisplayRow:
    """One horizontal band: an annotator row of the core, or a pair lane."""

    y0: float
    y1: float
    tier: int
    """The tier's position (for the alternating bands)."""
    source: int
    """The core's row for an annotator row; -1 for a pair lane."""
    pair: tuple[int, int] = (-1, -1)
    """The two core rows a pair lane compares."""

    @property
    def is_pair(self) -> bool:
        return self.source < 0


@dataclass(frozen=True, slots=True)
class TierLayout:
    rows: tuple[DisplayRow, ...]
    rects: np.ndarray
    """(n, 4) start, top, end, bottom per bar, in display units."""
    lanes: np.ndarray
    """(n,) the bar's lane inside its row."""
    pairs: np.ndarray
    """(m, 2) bar indices per matched pair, in the core's link order."""
    neighbours: np.ndarray
    """(m,) the pair's rows are next to each other (a line and a tag between them)."""
    lines: np.ndarray
    """(k, 2, 2) the link lines of neighbouring pairs, bar centre to bar centre."""
    strips: np.ndarray
    """(m - k, 4) the overlap strips of the other pairs, in their pair lanes."""
    tags: np.ndarray
    """(m, 2) the IoU tag's centre per pair."""
    tag_rows: np.ndarray
    """(m, 2) the display rows a tag may touch (twice the lane's for a pair lane)."""

    @property
    def height(self) -> float:
        return self.rows[-1].y1 if self.rows else 1.0

    def row_of_bar(self, k: int) -> int:
        """The display row of bar ``k``."""
        y = float(self.rects[k, 1])
        return next(r for r, row in enumerate(self.rows) if row.y0 <= y < row.y1)


def lay_out(data: Timeline) -> TierLayout:
    """Sub-rows, pair lanes, lines, strips and tags for ``data`` (see the module doc)."""
    n_rows = len(data.rows)
    owner = np.asarray(data.owner_row, dtype=np.int64)
    lanes = np.zeros(len(owner), dtype=np.int64)
    depth = np.ones(n_rows, dtype=np.int64)
    for r in range(n_rows):
        mine = np.flatnonzero(owner == r)
        if len(mine):
            lanes[mine] = assign_lanes(data.rects[mine, 0], data.rects[mine, 2])
            depth[r] = int(lanes[mine].max()) + 1
    pairs = link_pairs(data)
    rows_of = np.sort(owner[pairs], axis=1) if len(pairs) else np.zeros((0, 2), np.int64)
    tiers = list(dict.fromkeys(t for t, _ in data.rows))
    tier_of = [tiers.index(t) for t, _ in data.rows]
    neighbours = np.array(
        [b == a + 1 and tier_of[a] == tier_of[b] for a, b in rows_of.tolist()], dtype=bool
    )
    lane_pairs = sorted(
        {
            (a, b)
            for (a, b), near in zip(rows_of.tolist(), neighbours.tolist(), strict=True)
            if not near
        }
    )
    spans = _overlaps(data.rects, pairs)
    strip_lane = np.zeros(len(pairs), dtype=np.int64)
    lane_depth: dict[tuple[int, int], int] = {}
    for a, b in lane_pairs:
        mine = np.flatnonzero((rows_of[:, 0] == a) & (rows_of[:, 1] == b) & ~neighbours)
        strip_lane[mine] = assign_lanes(spans[mine, 0], spans[mine, 1])
        lane_depth[(a, b)] = int(strip_lane[mine].max()) + 1
    rows: list[DisplayRow] = []
    top = np.zeros(n_rows)
    y = 0.0
    for t in range(len(tiers)):
        for r in (r for r in range(n_rows) if tier_of[r] == t):
            top[r] = y
            rows.append(DisplayRow(y, y + float(depth[r]), t, r))
            y += float(depth[r])
        for a, b in (p for p in lane_pairs if tier_of[p[0]] == t):
            height = PAIR_LANE * lane_depth[(a, b)]
            rows.append(DisplayRow(y, y + height, t, -1, (a, b)))
            y += height
    bar_top = top[owner] + lanes + BAR_MARGIN if len(owner) else np.zeros(0)
    rects = np.column_stack(
        [data.rects[:, 0], bar_top, data.rects[:, 2], bar_top + 1 - 2 * BAR_MARGIN]
    ).reshape(len(owner), 4)
    return _with_pairs(rows, rects, lanes, pairs, rows_of, neighbours, spans, strip_lane)


def _overlaps(rects: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(m, 2) the time the two segments of each pair share (for a pair matched without
    overlapping, under a loose threshold, the gap between them)."""
    if not len(pairs):
        return np.zeros((0, 2))
    i, j = pairs[:, 0], pairs[:, 1]
    lo = np.maximum(rects[i, 0], rects[j, 0])
    hi = np.minimum(rects[i, 2], rects[j, 2])
    return np.column_stack([np.minimum(lo, hi), np.maximum(lo, hi)])


def _with_pairs(
    rows: list[DisplayRow],
    rects: np.ndarray,
    lanes: np.ndarray,
    pairs: np.ndarray,
    rows_of: np.ndarray,
    neighbours: np.ndarray,
    spans: np.ndarray,
    strip_lane: np.ndarray,
) -> TierLayout:
    """Lines and tags for neighbouring pairs, strips and tags for the others."""
    display = {row.source: k for k, row in enumerate(rows) if not row.is_pair}
    lane_of = {row.pair: k for k, row in enumerate(rows) if row.is_pair}
    centres = np.column_stack([(rects[:, 0] + rects[:, 2]) / 2, (rects[:, 1] + rects[:, 3]) / 2])
    lines: list[np.ndarray] = []
    strips: list[list[float]] = []
    tags = np.zeros((len(pairs), 2))
    tag_rows = np.zeros((len(pairs), 2), dtype=np.int64)
    for m, ((i, j), (a, b), near) in enumerate(
        zip(pairs.tolist(), rows_of.tolist(), neighbours.tolist(), strict=True)
    ):
        if near:
            (xi, yi), (xj, yj) = centres[i], centres[j]
            border = rows[display[b]].y0
            t = (border - yi) / (yj - yi) if yj != yi else 0.5
            tags[m] = (xi + t * (xj - xi), border)
            tag_rows[m] = (display[a], display[b])
            lines.append(np.array([centres[i], centres[j]]))
            continue
        mid = rows[lane_of[(a, b)]].y0 + (float(strip_lane[m]) + 0.5) * PAIR_LANE
        lo, hi = spans[m].tolist()
        strips.append([lo, mid - STRIP, hi, mid + STRIP])
        tags[m] = ((lo + hi) / 2, mid)
        tag_rows[m] = (lane_of[(a, b)], lane_of[(a, b)])
    return TierLayout(
        rows=tuple(rows),
        rects=rects,
        lanes=lanes,
        pairs=pairs,
        neighbours=neighbours,
        lines=np.array(lines).reshape(len(lines), 2, 2),
        strips=np.array(strips, dtype=np.float64).reshape(len(strips), 4),
        tags=tags,
        tag_rows=tag_rows,
    )


@dataclass(frozen=True, slots=True)
class TimeAxis:
    """Where the time axis ends and why (issue 35: it runs from 0 to the item's length)."""

    end: float
    source: str
    """"data" (the item's ``duration``), "audio" (the file's length) or "segments"."""
    length: float
    """The item's length from that source (``end`` unless a segment runs past it)."""


def item_duration(record: Mapping[str, Any]) -> float | None:
    """The data row's ``duration`` in seconds when it is a positive finite number (or a
    string of one), else ``None``: a row without it falls back to the audio's length."""
    value = record.get("duration")
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if np.isfinite(seconds) and seconds > 0 else None


def time_axis(data_duration: float | None, audio_duration: float | None,
              segment_ends: np.ndarray) -> TimeAxis:
    """0 to the item's length: the data's ``duration``, else the audio's length, else
    the last segment's end; never shorter than the last segment's end, so no segment is
    cut off (the header then says a segment runs past the item's length)."""
    last = float(np.max(segment_ends)) if len(segment_ends) else 0.0
    if data_duration is not None:
        length, source = data_duration, "data"
    elif audio_duration is not None and audio_duration > 0:
        length, source = float(audio_duration), "audio"
    else:
        length, source = (last if last > 0 else 1.0), "segments"
    return TimeAxis(end=max(length, last), source=source, length=length)


def differing_labels(labels: tuple[str, ...] | list[str], pairs: np.ndarray) -> np.ndarray:
    """(m,) the two segments of each matched pair carry different labels."""
    return np.array([labels[i] != labels[j] for i, j in pairs.tolist()], dtype=bool)
