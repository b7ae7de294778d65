"""STAPLE, majority vote and Dice: the spec's reference case, hand values, and ITK itself.

Oracles:
- ``reference-vectors.json`` (``staple_two_careful_three_careless``), computed with
  independent code: Dice values, sensitivities and specificities to six decimals;
- hand-computed single iterations on four pixels;
- SimpleITK's ``STAPLEImageFilter`` (ITK's C++ implementation, foreground value 1) on
  seeded random multi-rater masks and on hypothesis-drawn small ones.
"""

from __future__ import annotations

from random import Random

import numpy as np
import pytest
import SimpleITK as sitk  # noqa: N813 - the package's own usual alias
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.agreement.masks.staple import (
    BOTH_EMPTY,
    EVERYTHING_MARKED,
    NOTHING_MARKED,
    StapleResult,
    dice,
    majority_vote,
    staple,
)
from tests.reference import reference_vectors

PUBLISHED = 1e-6  # the reference values carry six decimals
ITK = 1e-6  # the brief's agreement with SimpleITK

# --------------------------------------------------------------------------- helpers


def itk_staple(decisions: np.ndarray, max_iterations: int | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """SimpleITK's STAPLE on ``(raters, h, w)`` masks: probability, p, q, elapsed."""
    f = sitk.STAPLEImageFilter()
    f.SetForegroundValue(1.0)
    if max_iterations is not None:
        f.SetMaximumIterations(max_iterations)
    images = [sitk.GetImageFromArray(np.ascontiguousarray(m, dtype=np.uint8))
              for m in decisions]
    out = f.Execute(images)
    return (sitk.GetArrayFromImage(out), np.asarray(f.GetSensitivity()),
            np.asarray(f.GetSpecificity()), int(f.GetElapsedIterations()))


def reference_setup(specks: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """The reference case's raters and truth, built from its ``_setup`` sentence."""
    truth = np.zeros((12, 12), dtype=bool)
    truth[3:6, 3:8] = True
    missed = np.zeros_like(truth)
    missed[3:5, 6:8] = True
    raters = [truth.copy(), truth.copy()]
    for r, c in specks:
        careless = truth & ~missed
        careless[r, c:c + 3] = True
        raters.append(careless)
    return np.array(raters), truth


SPECKS = [(9, 1), (9, 6), (1, 9)]

# --------------------------------------------------------------------------- reference


def test_reference_case_matches_the_published_values() -> None:
    ref = reference_vectors()["staple_two_careful_three_careless"]
    decisions, truth = reference_setup(SPECKS)
    assert truth.sum() == 15  # the setup as the vector describes it

    majority = dice(majority_vote(decisions), truth)
    assert majority.value == pytest.approx(ref["majority_vote_dice"], abs=PUBLISHED)

    result = staple(decisions)
    consensus = result.consensus(ref["staple_threshold"])
    assert dice(consensus, truth).value == pytest.approx(ref["staple_dice"], abs=PUBLISHED)
    np.testing.assert_allclose(result.sensitivity, ref["sensitivity"], atol=PUBLISHED)
    np.testing.assert_allclose(result.specificity, ref["specificity"], atol=PUBLISHED)
    assert result.converged
    assert result.prior == pytest.approx(decisions.mean())


def test_counter_case_identical_errors_fool_staple_too() -> None:
    """Three careless raters with the *same* speck outvote the careful two everywhere."""
    ref = reference_vectors()["staple_two_careful_three_careless"]
    assert "0.758621" in ref["counter_case"]
    decisions, truth = reference_setup([(9, 1)] * 3)
    staple_dice = dice(staple(decisions).consensus(0.5), truth).value
    majority_dice = dice(majority_vote(decisions), truth).value
    assert staple_dice == pytest.approx(0.758621, abs=PUBLISHED)
    assert majority_dice == pytest.approx(0.758621, abs=PUBLISHED)


def test_reference_case_agrees_with_itk() -> None:
    decisions, _ = reference_setup(SPECKS)
    result = staple(decisions.reshape(5, -1))
    probability, p, q, elapsed = itk_staple(decisions)
    np.testing.assert_allclose(result.probability, probability.ravel(), atol=ITK)
    np.testing.assert_allclose(result.sensitivity, p, atol=ITK)
    np.testing.assert_allclose(result.specificity, q, atol=ITK)
    assert result.iterations == elapsed + 1


# --------------------------------------------------------------------------- hand values


def test_one_iteration_by_hand_starts_from_the_vote_fraction() -> None:
    """Raters [1,1,0,0] and [1,0,1,0]: W0 = [1, .5, .5, 0], prior .5 (mean vote).

    M-step: p = (1 + .5) / 2 = .75 and q = (.5 + 1) / 2 = .75 for both raters.
    E-step: both marked: .5·.75² / (.5·.75² + .5·.25²) = .9; one marked: .5; none: .1.
    """
    decisions = np.array([[1, 1, 0, 0], [1, 0, 1, 0]], dtype=bool)
    result = staple(decisions, max_iterations=1)
    assert result.prior == 0.5
    np.testing.assert_allclose(result.sensitivity, [0.75, 0.75], atol=1e-15)
    np.testing.assert_allclose(result.specificity, [0.75, 0.75], atol=1e-15)
    np.testing.assert_allclose(result.probability, [0.9, 0.5, 0.5, 0.1], atol=1e-15)
    assert result.iterations == 1
    assert not result.converged


def test_prior_stays_at_the_mean_vote_fraction() -> None:
    """Prior .25 from one of two raters marking half: fixed, whatever W becomes.

    Raters [1,1,0,0], [0,0,0,0]: W0 = [.5,.5,0,0], g = .25. M-step: p1 = 1, p2 = 0,
    q1 = 2/3... rater 1 leaves pixels 3,4 (weight 1 each) of Σ(1−W) = 3, so q1 = 2/3;
    rater 2 leaves everything, q2 = 1. E-step on pixel 1 (marked by rater 1 only):
    a = p1·(1 − p2) = 1, b = (1 − q1)·q2 = 1/3, W = .25 / (.25 + .75/3) = .5.
    A re-estimated prior would have moved; ITK's does not.
    """
    decisions = np.array([[1, 1, 0, 0], [0, 0, 0, 0]], dtype=bool)
    one = staple(decisions, max_iterations=1)
    assert one.prior == 0.25
    np.testing.assert_allclose(one.sensitivity, [1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(one.specificity, [2 / 3, 1.0], atol=1e-15)
    np.testing.assert_allclose(one.probability, [0.5, 0.5, 0.0, 0.0], atol=1e-15)
    done = staple(decisions)
    assert done.prior == 0.25
    probability, p, q, _ = itk_staple(decisions.reshape(2, 1, 4))
    np.testing.assert_allclose(done.probability, probability.ravel(), atol=ITK)
    np.testing.assert_allclose(done.sensitivity, p, atol=ITK)
    np.testing.assert_allclose(done.specificity, q, atol=ITK)


def test_iteration_cap_stops_early_and_says_so() -> None:
    rng = np.random.default_rng(7)
    decisions = rng.random((4, 200)) < 0.4
    capped = staple(decisions, max_iterations=3)
    assert capped.iterations == 3 and not capped.converged
    probability, p, q, elapsed = itk_staple(decisions.reshape(4, 10, 20), max_iterations=3)
    assert elapsed == 3
    np.testing.assert_allclose(capped.sensitivity, p, atol=ITK)
    np.testing.assert_allclose(capped.specificity, q, atol=ITK)
    np.testing.assert_allclose(capped.probability, probability.ravel(), atol=ITK)
    with pytest.raises(ValueError, match="max_iterations"):
        staple(decisions, max_iterations=0)


# --------------------------------------------------------------------------- ITK, seeded


def _random_case(seed: int) -> np.ndarray:
    """A blob truth and raters with their own flip rates and systematic erosion/dilation."""
    rng = np.random.default_rng(seed)
    h, w = rng.integers(16, 80, size=2)
    yy, xx = np.mgrid[:h, :w]
    cy, cx = rng.uniform(0.3, 0.7, 2) * (h, w)
    radius = rng.uniform(0.15, 0.35) * min(h, w)
    raters = int(rng.integers(2, 8))
    masks = []
    for _ in range(raters):
        r = radius * rng.uniform(0.8, 1.2)  # under- or over-segmenting rater
        mask = (yy - cy) ** 2 + (xx - cx) ** 2 < r**2
        mask ^= rng.random((h, w)) < rng.uniform(0.0, 0.15)
        masks.append(mask)
    return np.array(masks)


@pytest.mark.parametrize("seed", range(12))
def test_equals_simpleitk_on_random_masks(seed: int) -> None:
    decisions = _random_case(20261129 + seed)
    result = staple(decisions)
    probability, p, q, elapsed = itk_staple(decisions)
    assert result.probability.shape == decisions.shape[1:]
    np.testing.assert_allclose(result.probability, probability, atol=ITK, rtol=0)
    np.testing.assert_allclose(result.sensitivity, p, atol=ITK, rtol=0)
    np.testing.assert_allclose(result.specificity, q, atol=ITK, rtol=0)
    assert result.converged
    assert abs(result.iterations - (elapsed + 1)) <= 1  # the 1e-7 step may round apart


def test_many_raters_take_the_general_pattern_path_and_still_equal_itk() -> None:
    """24 raters: patterns are found with ``np.unique`` rather than 2^24 bins."""
    rng = np.random.default_rng(24)
    truth = np.zeros((20, 30), dtype=bool)
    truth[5:15, 8:25] = True
    decisions = np.array([truth ^ (rng.random(truth.shape) < e)
                          for e in rng.uniform(0.02, 0.3, 24)])
    result = staple(decisions)
    probability, p, q, _ = itk_staple(decisions)
    np.testing.assert_allclose(result.probability, probability, atol=ITK, rtol=0)
    np.testing.assert_allclose(result.sensitivity, p, atol=ITK, rtol=0)
    np.testing.assert_allclose(result.specificity, q, atol=ITK, rtol=0)


def _ties(values: list[tuple[float, ...]]) -> set[tuple[int, int]]:
    """Index pairs whose values are exactly equal."""
    return {(i, j) for i in range(len(values)) for j in range(i + 1, len(values))
            if values[i] == values[j]}


def _itk_broke_a_tie(result: StapleResult, probability: np.ndarray, p: np.ndarray,
                     q: np.ndarray) -> bool:
    """Whether ITK split raters (or pixels) that this module keeps exactly equal.

    That is the one documented way the two may differ: an unstable symmetric stationary
    point of EM, which rounding in ITK's scan-order sums may or may not leave.
    """
    raters = _ties(list(zip(result.sensitivity.tolist(), result.specificity.tolist(),
                            strict=True)))
    pixels = _ties([(v,) for v in result.probability.tolist()])
    return (any(max(abs(p[i] - p[j]), abs(q[i] - q[j])) > ITK for i, j in raters)
            or any(abs(probability[i] - probability[j]) > ITK for i, j in pixels))


small_decisions = st.integers(2, 6).flatmap(lambda raters: st.integers(1, 24).flatmap(
    lambda pixels: st.lists(st.lists(st.booleans(), min_size=pixels, max_size=pixels),
                            min_size=raters, max_size=raters)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_decisions)
def test_small_arbitrary_decisions_equal_itk_where_itk_is_defined(
        rows: list[list[bool]]) -> None:
    decisions = np.array(rows, dtype=bool)
    result = staple(decisions, max_iterations=5000)
    assert np.all((result.probability >= 0.0) & (result.probability <= 1.0))
    if result.undefined is not None:
        return  # nobody or everybody marked: ITK divides 0 by 0 here
    assert np.isfinite(result.sensitivity).all() and np.isfinite(result.specificity).all()
    probability, p, q, _ = itk_staple(decisions[:, None, :], max_iterations=5000)
    probability = probability.ravel()
    if not (np.isfinite(probability).all() and np.isfinite(p).all()
            and np.isfinite(q).all()):
        return  # ITK met 0/0 and carries NaN; the module docstring says what we do
    if _itk_broke_a_tie(result, probability, p, q):
        return  # documented: a symmetric stationary point ITK's rounding left
    np.testing.assert_allclose(result.probability, probability, atol=ITK, rtol=0)
    np.testing.assert_allclose(result.sensitivity, p, atol=ITK, rtol=0)
    np.testing.assert_allclose(result.specificity, q, atol=ITK, rtol=0)


@settings(max_examples=150, deadline=None)
@given(small_decisions, st.randoms(use_true_random=False))
def test_reordering_raters_or_pixels_changes_nothing_bit_for_bit(
        rows: list[list[bool]], random: Random) -> None:
    decisions = np.array(rows, dtype=bool)
    raters = list(range(decisions.shape[0]))
    pixels = list(range(decisions.shape[1]))
    random.shuffle(raters)
    random.shuffle(pixels)
    base = staple(decisions, max_iterations=5000)
    moved = staple(decisions[raters][:, pixels], max_iterations=5000)
    np.testing.assert_array_equal(moved.sensitivity, base.sensitivity[raters])
    np.testing.assert_array_equal(moved.specificity, base.specificity[raters])
    np.testing.assert_array_equal(moved.probability, base.probability[pixels])
    assert moved.iterations == base.iterations


def test_a_symmetric_stationary_point_keeps_alike_raters_alike() -> None:
    """Pixels 0 and 1 are mirror images (swap raters 0↔2 and 1↔4): EM started from the
    vote fraction keeps them equal in exact arithmetic. Rounding in scan-order sums can
    tip such a point over (SimpleITK 2.5 ends with rater sensitivities 1 vs 0.5 here);
    this module stays on it, so mirrored raters get the same estimates."""
    decisions = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1], [0, 1, 1],
                          [1, 1, 1]], dtype=bool)
    result = staple(decisions, max_iterations=100_000)
    assert result.probability[0] == result.probability[1]
    assert len(set(result.sensitivity[[0, 1, 2, 4]].tolist())) == 1
    assert len(set(result.specificity[[0, 1, 2, 4]].tolist())) == 1


# --------------------------------------------------------------------------- edges


def test_nobody_marked_anything_is_undefined_with_a_reason() -> None:
    result = staple(np.zeros((3, 10), dtype=bool))
    assert result.undefined == NOTHING_MARKED
    assert np.isnan(result.sensitivity).all()
    np.testing.assert_array_equal(result.specificity, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(result.probability, np.zeros(10))
    assert result.prior == 0.0


def test_everybody_marked_everything_is_undefined_with_a_reason() -> None:
    result = staple(np.ones((2, 3, 3), dtype=bool))
    assert result.undefined == EVERYTHING_MARKED
    assert np.isnan(result.specificity).all()
    np.testing.assert_array_equal(result.sensitivity, [1.0, 1.0])
    assert result.probability.shape == (3, 3)
    assert result.consensus().all()


def test_contradicting_perfect_raters_fall_back_to_the_vote_fraction() -> None:
    """Rater 1 marks {0, 1}, rater 2 marks {1}: after one step p1 = 1 and q2 = 1, so
    pixel 0 (rater 1 yes, rater 2 no) is impossible both ways (a = b = 0)."""
    decisions = np.array([[1, 1, 0, 0], [0, 1, 0, 0]], dtype=bool)
    result = staple(decisions)
    assert np.isfinite(result.probability).all()
    assert np.isfinite(result.sensitivity).all() and np.isfinite(result.specificity).all()
    assert np.all((result.probability >= 0) & (result.probability <= 1))


def test_three_dimensional_input_equals_flattened_input() -> None:
    decisions = _random_case(3)
    flat = staple(decisions.reshape(decisions.shape[0], -1))
    shaped = staple(decisions)
    np.testing.assert_array_equal(shaped.probability.ravel(), flat.probability)
    np.testing.assert_array_equal(shaped.sensitivity, flat.sensitivity)


def test_zero_one_integers_are_accepted_and_other_values_refused() -> None:
    ints = np.array([[1, 0, 1], [1, 1, 0]], dtype=np.int64)
    np.testing.assert_array_equal(staple(ints).probability,
                                  staple(ints.astype(bool)).probability)
    with pytest.raises(ValueError, match="boolean or 0/1"):
        staple(np.array([[2, 0], [1, 0]]))
    with pytest.raises(ValueError):
        staple(np.zeros(5, dtype=bool))
    with pytest.raises(ValueError):
        staple(np.zeros((0, 5), dtype=bool))


def test_result_cannot_be_changed() -> None:
    result = staple(reference_setup(SPECKS)[0])
    with pytest.raises(ValueError):
        result.probability[0] = 0.0
    with pytest.raises(ValueError):
        result.sensitivity[0] = 0.0


def test_consensus_threshold_is_strict() -> None:
    result = staple(np.array([[1, 1, 0, 0], [1, 0, 1, 0]], dtype=bool), max_iterations=1)
    np.testing.assert_array_equal(result.consensus(0.5), [True, False, False, False])
    np.testing.assert_array_equal(result.consensus(0.05), [True, True, True, True])


# --------------------------------------------------------------------------- majority, Dice


def test_majority_vote_needs_strictly_more_than_half() -> None:
    four = np.array([[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], dtype=bool)
    np.testing.assert_array_equal(majority_vote(four), [True, False, False, False])
    three = four[:3]
    np.testing.assert_array_equal(majority_vote(three), [True, True, False, False])
    with pytest.raises(ValueError):
        majority_vote(np.zeros(4, dtype=bool))


def test_dice_by_hand_and_its_undefined_case() -> None:
    a = np.array([1, 1, 1, 0, 0], dtype=bool)
    b = np.array([0, 1, 1, 1, 0], dtype=bool)
    assert dice(a, b).value == pytest.approx(2 * 2 / 6)
    assert dice(a, np.zeros(5, dtype=bool)).value == 0.0
    empty = dice(np.zeros((2, 2), dtype=bool), np.zeros((2, 2), dtype=bool))
    assert empty.value is None and empty.reason == BOTH_EMPTY
    with pytest.raises(ValueError, match="shape"):
        dice(a, a[:4])
