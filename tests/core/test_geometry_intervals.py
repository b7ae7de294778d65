"""Temporal IoU of time segments: hand-worked cases and a brute-force oracle.

The oracle is a plain loop over pairs in exact rational arithmetic
(:class:`fractions.Fraction`), written here from the definition in ``agreement.md``
(overlap length / union length; identical instants 1, other zero-length cases 0).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.geometry.intervals import interval_iou_matrix, segment_iou_matrix
from app.core.objects import Segment


def seg(start: float, end: float, tier: str | None = None) -> Segment:
    return Segment(start, end, "speech", tier)


def iou(a: Segment, b: Segment, *, within_tier: bool = False) -> float:
    return float(segment_iou_matrix([a], [b], within_tier=within_tier)[0, 0])


@pytest.mark.parametrize(("a", "b", "expected"), [
    ((0.0, 4.0), (2.0, 6.0), 2.0 / 6.0),      # overlap
    ((0.0, 10.0), (2.0, 4.0), 2.0 / 10.0),    # nested
    ((0.0, 1.0), (2.0, 3.0), 0.0),            # disjoint
    ((0.0, 1.0), (1.0, 2.0), 0.0),            # touching, end to start
    ((1.5, 2.5), (1.5, 2.5), 1.0),            # identical
    ((3.0, 3.0), (3.0, 3.0), 1.0),            # identical instants
    ((3.0, 3.0), (3.5, 3.5), 0.0),            # different instants
    ((3.0, 3.0), (2.0, 4.0), 0.0),            # an instant inside a segment
    ((2.0, 2.0), (2.0, 4.0), 0.0),            # an instant at a segment's start
])
def test_hand_cases(a: tuple[float, float], b: tuple[float, float], expected: float) -> None:
    assert iou(seg(*a), seg(*b)) == pytest.approx(expected, abs=1e-15)
    assert iou(seg(*b), seg(*a)) == pytest.approx(expected, abs=1e-15)


def test_tiers() -> None:
    a, b = seg(0.0, 4.0, "words"), seg(0.0, 4.0, "phones")
    assert iou(a, b, within_tier=True) == 0.0
    assert iou(a, b) == 1.0
    assert iou(a, seg(0.0, 2.0, "words"), within_tier=True) == 0.5
    assert iou(seg(0.0, 4.0), seg(0.0, 4.0), within_tier=True) == 1.0  # None is a tier
    assert iou(seg(0.0, 4.0), a, within_tier=True) == 0.0


def test_matrix_shapes() -> None:
    a = [seg(0, 1), seg(1, 3)]
    b = [seg(0, 2), seg(5, 6), seg(0.5, 1.5)]
    assert segment_iou_matrix(a, b).shape == (2, 3)
    assert segment_iou_matrix([], b).shape == (0, 3)
    assert segment_iou_matrix(a, [], within_tier=True).shape == (2, 0)
    np.testing.assert_allclose(segment_iou_matrix(a, b),
                               [[0.5, 0.0, 0.5 / 1.5], [1 / 3, 0.0, 0.5 / 2.5]])


def test_invalid_segments_raise() -> None:
    with pytest.raises(ValueError, match="before it starts"):
        interval_iou_matrix([2.0], [1.0], [0.0], [1.0])
    with pytest.raises(ValueError, match="finite"):
        interval_iou_matrix([0.0], [np.nan], [0.0], [1.0])
    with pytest.raises(ValueError):
        interval_iou_matrix([0.0, 1.0], [1.0], [0.0], [1.0])


def oracle(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]) -> Fraction:
    """The definition, by hand: exact lengths of the overlap and of the union."""
    (s1, e1), (s2, e2) = a, b
    if e1 == s1 or e2 == s2:  # an instant is involved
        return Fraction(int(e1 == s1 and e2 == s2 and s1 == s2))
    overlap = max(Fraction(0), min(e1, e2) - max(s1, s2))
    union = (e1 - s1) + (e2 - s2) - overlap
    return overlap / union


def random_bounds(rng: np.random.Generator, n: int) -> list[tuple[float, float]]:
    """Segments on a coarse grid, so identical ends, touching and instants all happen."""
    starts = rng.integers(0, 20, n) / 4.0
    lengths = rng.integers(0, 8, n) / 4.0 * (rng.random(n) < 0.85)
    return [(float(s), float(s + w)) for s, w in zip(starts, lengths, strict=True)]


def test_against_brute_force_oracle() -> None:
    rng = np.random.default_rng(20261130)
    a, b = random_bounds(rng, 150), random_bounds(rng, 170)
    tiers_a = rng.choice(["x", "y"], len(a))
    tiers_b = rng.choice(["x", "y"], len(b))
    got = segment_iou_matrix([seg(s, e, str(t)) for (s, e), t in zip(a, tiers_a, strict=True)],
                             [seg(s, e, str(t)) for (s, e), t in zip(b, tiers_b, strict=True)],
                             within_tier=True)
    plain = interval_iou_matrix(*zip(*a, strict=True), *zip(*b, strict=True))
    exact = np.array([[float(oracle((Fraction(s1), Fraction(e1)), (Fraction(s2), Fraction(e2))))
                       for (s2, e2) in b] for (s1, e1) in a])
    np.testing.assert_allclose(plain, exact, rtol=0, atol=1e-12)
    same_tier = tiers_a[:, None] == tiers_b[None, :]
    np.testing.assert_allclose(got, np.where(same_tier, exact, 0.0), rtol=0, atol=1e-12)
    assert (exact == 1).any() and ((exact > 0) & (exact < 1)).any()


_bound = st.floats(-1e4, 1e4, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(_bound, st.floats(0, 1e3), _bound, st.floats(0, 1e3))
def test_symmetric_and_bounded(s1: float, w1: float, s2: float, w2: float) -> None:
    forward = interval_iou_matrix([s1], [s1 + w1], [s2], [s2 + w2])[0, 0]
    backward = interval_iou_matrix([s2], [s2 + w2], [s1], [s1 + w1])[0, 0]
    assert 0.0 <= forward <= 1.0
    assert forward == backward
