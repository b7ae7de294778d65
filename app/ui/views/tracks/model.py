"""What the tracks view draws, as plain data: one lane per track, its marks for a pair.

Pure Python on :class:`~app.core.agreement.identity.lanes.ItemLanes` (no Qt), so the
lanes, misses and switches the view shows are tested against the project's files and
motmetrics without a window.

For the chosen annotator pair (x, y) a lane of x is marked from x's side: the frames
where y has no object matched to it (a *miss* with x as the reference), the frames where
it took another partner than its last (an *ID switch*), and its partner on each run of
frames. The lanes of annotators outside the pair are drawn without marks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from app.core.agreement.identity.lanes import ItemLanes, split_unit

__all__ = ["Lane", "frame_objects", "lanes", "pair_counts", "runs", "split_unit"]

@dataclass(frozen=True, slots=True)
class Lane:
    row: int
    """The object row it is aligned in (0 first)."""
    annotator: str
    track: str
    shown: str
    label: str
    first: int
    last: int
    in_pair: bool
    misses: list[tuple[int, int]] = field(default_factory=list)
    """Runs of frames (first, last) where the pair's other annotator matched nothing."""
    switches: list[tuple[int, str, str]] = field(default_factory=list)
    """(frame, previous partner, new partner), partners as shown."""
    partners: list[tuple[int, int, str]] = field(default_factory=list)
    """Runs of frames (first, last) with one partner (as shown)."""


def runs(frames: Iterable[int]) -> list[tuple[int, int]]:
    """Consecutive frames as (first, last) runs, in order."""
    out: list[tuple[int, int]] = []
    for f in sorted(set(frames)):
        if out and f == out[-1][1] + 1:
            out[-1] = (out[-1][0], f)
        else:
            out.append((f, f))
    return out


def _partner_runs(by_frame: dict[int, str]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for f in sorted(by_frame):
        name = by_frame[f]
        if out and out[-1][2] == name and f == out[-1][1] + 1:
            out[-1] = (out[-1][0], f, name)
        else:
            out.append((f, f, name))
    return out


def lanes(data: ItemLanes, pair: tuple[str, str] | None) -> list[Lane]:
    """Every track's lane, row by row (annotators in order within a row)."""
    order = {name: k for k, name in enumerate(data.annotators)}
    out: list[Lane] = []
    for r, row in enumerate(data.rows):
        for annotator, track in sorted(row, key=lambda m: order[m[0]]):
            span = data.span(annotator, track)
            if span is None:
                continue
            other = (pair[1] if annotator == pair[0] else pair[0]
                     if annotator == pair[1] else None) if pair else None
            matching = data.matchings.get((annotator, other)) if other else None
            if matching is None:
                out.append(Lane(r, annotator, track, span.shown, span.label, span.first,
                                span.last, False))
                continue
            shown = {s.track: s.shown for s in data.tracks.get(matching.other, [])}
            misses = runs(f for f, t in matching.misses if t == track)
            switches = [(f, shown.get(p, p), shown.get(n, n))
                        for f, t, p, n in matching.switches if t == track]
            partner = {f: shown.get(m[track], m[track]) for f, m in matching.matches.items()
                       if track in m}
            out.append(Lane(r, annotator, track, span.shown, span.label, span.first,
                            span.last, True, misses, switches, _partner_runs(partner)))
    return out


@dataclass(frozen=True, slots=True)
class PairCount:
    """One direction's counts, for the pair's line under the lanes."""

    reference: str
    other: str
    object_frames: int
    misses: int
    switches: int


def pair_counts(data: ItemLanes, pair: tuple[str, str]) -> list[PairCount]:
    out = []
    for ref, other in (pair, pair[::-1]):
        matching = data.matchings.get((ref, other))
        if matching is None:
            continue
        n = sum(len(here.tracks) for here in data.frames.get(ref, {}).values())
        out.append(PairCount(ref, other, n, len(matching.misses), len(matching.switches)))
    return out


def frame_objects(data: ItemLanes, frame: int) -> list[tuple[str, str, str]]:
    """(annotator, track as shown, label) of every object on ``frame``, annotator by
    annotator in their objects' order (the 3D view's order of one frame unit's boxes)."""
    out: list[tuple[str, str, str]] = []
    for name in data.annotators:
        here = data.frames.get(name, {}).get(frame)
        if here is None:
            continue
        shown = {s.track: s.shown for s in data.tracks.get(name, [])}
        out.extend((name, shown.get(t, t), lab) for t, lab in zip(here.tracks, here.labels,
                                                                 strict=True))
    return out
