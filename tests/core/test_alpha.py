"""Krippendorff's α: published values, edge cases, two independent oracles, properties.

Oracles:
- the ``krippendorff`` package (PyPI) for the nominal, ordinal, interval and ratio
  levels, always called with ``level_of_measurement`` given (its default is interval);
- a brute-force loop over pairable values, written here, for the MASI set metric.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.agreement.categorical.alpha import (
    alpha,
    alpha_from_reliability,
    counts_from_codes,
    jaccard,
    masi_distance,
    set_metric,
)
from app.core.agreement.coefficient import Coefficient
from tests.reference import reference_vectors

LEVELS = ("nominal", "ordinal", "interval", "ratio")
PUBLISHED = 1e-6  # published values carry six decimals
ORACLE = 1e-9


def as_reliability(rows: Sequence[Sequence[float | None]]) -> np.ndarray:
    """An ``(annotators, units)`` float array with ``NaN`` for JSON ``null``."""
    return np.array([[np.nan if v is None else float(v) for v in row] for row in rows])


def assert_undefined(result: Coefficient) -> None:
    """Undefined means ``None`` plus a reason sentence: never NaN, never 1.0."""
    assert result.value is None, f"expected undefined, got {result.value!r}"
    assert not result.defined
    assert isinstance(result.reason, str)
    assert len(result.reason.split()) >= 4, f"reason is not a sentence: {result.reason!r}"


def assert_same_coefficient(a: Coefficient, b: Coefficient, tol: float = 1e-12) -> None:
    if a.value is None:
        assert b.value is None, f"{a} versus {b}"
        return
    assert b.value is not None, f"{a} versus {b}"
    assert abs(a.value - b.value) <= tol, f"{a.value!r} versus {b.value!r}"


# ------------------------------------------------------------------- published values


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_2011_example(level: str) -> None:
    case = reference_vectors()["krippendorff_2011"]
    data = as_reliability(case["reliability_data_coders_by_units"])
    result = alpha_from_reliability(data, level)
    assert result.value == pytest.approx(case["alpha"][level], abs=PUBLISHED)
    assert result.reason is None


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_2011_example_with_none_for_missing(level: str) -> None:
    """The list-of-lists input with ``None`` gives the same value as the NaN array."""
    case = reference_vectors()["krippendorff_2011"]
    result = alpha_from_reliability(case["reliability_data_coders_by_units"], level)
    assert result.value == pytest.approx(case["alpha"][level], abs=PUBLISHED)


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_wikipedia_example(level: str) -> None:
    case = reference_vectors()["wikipedia_alpha"]
    data = as_reliability(case["reliability_data_coders_by_units"])
    result = alpha_from_reliability(data, level)
    assert result.value == pytest.approx(case["alpha"][level], abs=PUBLISHED)


# ------------------------------------------------------------------------ edge cases


@pytest.mark.parametrize("level", LEVELS)
def test_two_coders_four_units_swapped(level: str) -> None:
    expected = reference_vectors()["alpha_edge_cases"]["two_coders_four_units_swapped_0_1"]
    data = np.array([[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]])
    assert expected == -0.75
    result = alpha_from_reliability(data, level)
    assert result.value == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_all_values_identical_is_undefined(level: str) -> None:
    data = np.array([[3.0, 3.0, 3.0, np.nan], [3.0, 3.0, np.nan, 3.0], [3.0, np.nan, 3.0, 3.0]])
    assert_undefined(alpha_from_reliability(data, level))


@pytest.mark.parametrize("level", LEVELS)
def test_single_annotator_is_undefined(level: str) -> None:
    data = np.array([[1.0, 2.0, 3.0, 1.0, 2.0]])
    assert_undefined(alpha_from_reliability(data, level))


@pytest.mark.parametrize("level", LEVELS)
def test_no_unit_with_two_values_is_undefined(level: str) -> None:
    data = np.array([[1.0, np.nan, 3.0, np.nan], [np.nan, 2.0, np.nan, np.nan]])
    assert_undefined(alpha_from_reliability(data, level))


@pytest.mark.parametrize("level", LEVELS)
def test_no_variation_among_pairable_values_is_undefined(level: str) -> None:
    """The oracle gives NaN (0/0) here: a second value occurs only in a one-value unit."""
    data = np.array([[1.0, 1.0, 2.0], [1.0, 1.0, np.nan]])
    assert math.isnan(oracle_alpha_raw(data, level))
    assert_undefined(alpha_from_reliability(data, level))


def test_unknown_level_is_rejected() -> None:
    with pytest.raises(ValueError, match="level"):
        alpha_from_reliability(np.array([[1.0, 2.0], [1.0, 2.0]]), "cardinal")


# ------------------------------------------------------- oracle: krippendorff package


@dataclass(frozen=True)
class Scenario:
    seed: int
    n_units: int
    n_annotators: int
    n_categories: int
    missing: float

    def __str__(self) -> str:
        return (f"seed{self.seed}-u{self.n_units}-a{self.n_annotators}"
                f"-c{self.n_categories}-m{self.missing:.2f}")


def scenarios() -> list[Scenario]:
    """30 data sets: the corners of the ranges, then seeded draws inside them."""
    corners = [
        Scenario(1, 5, 2, 2, 0.0),
        Scenario(2, 5, 8, 7, 0.4),
        Scenario(3, 300, 2, 7, 0.4),
        Scenario(4, 300, 8, 2, 0.0),
        Scenario(5, 6, 3, 3, 0.25),
    ]
    rng = np.random.default_rng(20261130)
    drawn = [
        Scenario(
            seed=100 + i,
            n_units=int(rng.integers(5, 301)),
            n_annotators=int(rng.integers(2, 9)),
            n_categories=int(rng.integers(2, 8)),
            missing=float(rng.uniform(0.0, 0.4)),
        )
        for i in range(25)
    ]
    return corners + drawn


def reliability_data(s: Scenario) -> np.ndarray:
    """Annotators × units numeric data with agreement structure, gaps and one-value units.

    Values are half-integers from 0 to 7.5 (0 included sometimes, which the ratio metric
    treats specially), non-uniform category shares, annotators of varying care.
    """
    rng = np.random.default_rng(s.seed)
    values = np.sort(rng.choice(np.arange(16), size=s.n_categories, replace=False)) * 0.5
    shares = rng.dirichlet(np.ones(s.n_categories))
    truth = rng.choice(s.n_categories, size=s.n_units, p=shares)
    care = rng.uniform(0.2, 0.95, size=s.n_annotators)
    noise = rng.integers(0, s.n_categories, size=(s.n_annotators, s.n_units))
    copies = rng.random((s.n_annotators, s.n_units)) < care[:, None]
    codes = np.where(copies, truth[None, :], noise)
    data = values[codes]
    data[rng.random(data.shape) < s.missing] = np.nan
    # Some units hold exactly one value (not pairable: they must drop out).
    singles = rng.choice(s.n_units, size=max(1, s.n_units // 10), replace=False)
    keepers = rng.integers(0, s.n_annotators, size=singles.size)
    for unit, keeper in zip(singles, keepers, strict=True):
        data[:, unit] = np.nan
        data[keeper, unit] = values[codes[keeper, unit]]
    return data


def oracle_alpha_raw(data: np.ndarray, level: str) -> float:
    """``krippendorff.alpha`` as it comes, NaN included (its 0/0 cases)."""
    # The oracle divides 0 by 0 when pairable values do not vary and numpy warns about
    # it; we read the NaN instead, so only numpy's floating-point warnings are silenced.
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


SCENARIOS = scenarios()


def test_scenarios_cover_the_requested_ranges() -> None:
    units = [s.n_units for s in SCENARIOS]
    annotators = [s.n_annotators for s in SCENARIOS]
    categories = [s.n_categories for s in SCENARIOS]
    missing = [s.missing for s in SCENARIOS]
    assert len(SCENARIOS) == 30
    assert (min(units), max(units)) == (5, 300)
    assert (min(annotators), max(annotators)) == (2, 8)
    assert (min(categories), max(categories)) == (2, 7)
    assert min(missing) == 0.0
    assert max(missing) == 0.4
    for s in SCENARIOS:
        per_unit = (~np.isnan(reliability_data(s))).sum(axis=0)
        assert (per_unit == 1).any(), f"{s} has no one-value unit"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_matches_krippendorff_package(scenario: Scenario, level: str) -> None:
    data = reliability_data(scenario)
    expected = oracle_alpha_raw(data, level)
    result = alpha_from_reliability(data, level)
    if math.isnan(expected):
        assert_undefined(result)
        pytest.skip(f"{scenario}: the oracle is undefined (NaN); ours is None as required")
    assert result.value is not None, result.reason
    assert abs(result.value - expected) <= ORACLE, (result.value, expected)


# --------------------------------------------------------- oracle: brute force, MASI

LABELS = ("a", "b", "c", "d")


def masi_by_definition(a: frozenset[str], b: frozenset[str]) -> float:
    """Passonneau (2006): 1 − J·M with M = 1 (equal), 2/3 (subset), 1/3 (overlap), 0."""
    if a == b:
        return 0.0
    union = a | b
    inter = a & b
    if a < b or b < a:
        monotonicity = 2.0 / 3.0
    elif inter:
        monotonicity = 1.0 / 3.0
    else:
        monotonicity = 0.0
    return 1.0 - (len(inter) / len(union)) * monotonicity


def brute_force_alpha(units: Sequence[Sequence[frozenset[str]]],
                      distance: Callable[[frozenset[str], frozenset[str]], float]
                      ) -> float | None:
    """α = 1 − (n−1)·Σ_u (1/(m_u−1)) Σ_{i≠j∈u} δ / Σ_{i≠j, pooled pairable values} δ."""
    pairable_units = [list(values) for values in units if len(values) >= 2]
    pooled = [value for values in pairable_units for value in values]
    n = len(pooled)
    if n == 0:
        return None
    observed = 0.0
    for values in pairable_units:
        m = len(values)
        within = sum(distance(values[i], values[j])
                     for i in range(m) for j in range(m) if i != j)
        observed += within / (m - 1)
    expected = sum(distance(pooled[i], pooled[j])
                   for i in range(n) for j in range(n) if i != j)
    if expected == 0.0:
        return None
    return 1.0 - (n - 1) * observed / expected


def random_label_sets(seed: int) -> list[list[frozenset[str] | None]]:
    """Units × annotators label sets (``None`` = no answer; empty sets included)."""
    rng = np.random.default_rng(seed)
    n_units = int(rng.integers(3, 41))
    n_annotators = int(rng.integers(2, 6))
    missing = float(rng.uniform(0.0, 0.4))

    def draw_set() -> frozenset[str]:
        return frozenset(label for label in LABELS if rng.random() < 0.35)

    table: list[list[frozenset[str] | None]] = []
    for _ in range(n_units):
        truth = draw_set()
        row: list[frozenset[str] | None] = []
        for _ in range(n_annotators):
            if rng.random() < missing:
                row.append(None)
            elif rng.random() < 0.6:
                row.append(truth)
            else:
                row.append(draw_set())
        table.append(row)
    return table


@pytest.mark.parametrize("seed", range(12))
def test_masi_alpha_matches_brute_force(seed: int) -> None:
    answers = random_label_sets(seed)
    sets = sorted({s for row in answers for s in row if s is not None},
                  key=lambda s: tuple(sorted(s)))
    index = {s: k for k, s in enumerate(sets)}
    codes = np.array([[-1 if s is None else index[s] for s in row] for row in answers])
    result = alpha(counts_from_codes(codes, len(sets)), set_metric(sets))

    units = [[s for s in row if s is not None] for row in answers]
    expected = brute_force_alpha(units, masi_by_definition)
    if expected is None:
        assert_undefined(result)
    else:
        assert result.value is not None, result.reason
        assert abs(result.value - expected) <= ORACLE, (result.value, expected)


def test_masi_brute_force_oracle_reproduces_nominal_published_value() -> None:
    """The brute-force form itself, with the 0/1 distance, gives Krippendorff's 0.743421."""
    case = reference_vectors()["krippendorff_2011"]
    rows = case["reliability_data_coders_by_units"]
    units = [[frozenset({str(row[u])}) for row in rows if row[u] is not None]
             for u in range(len(rows[0]))]
    value = brute_force_alpha(units, lambda a, b: float(a != b))
    assert value == pytest.approx(case["alpha"]["nominal"], abs=PUBLISHED)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ({"a", "b"}, {"a", "b"}, 0.0),
        ({"a"}, {"a", "b"}, 1.0 - (1.0 / 2.0) * (2.0 / 3.0)),
        ({"a", "b"}, {"b", "c"}, 1.0 - (1.0 / 3.0) * (1.0 / 3.0)),
        ({"a"}, {"b"}, 1.0),
        ({"a", "b"}, {"c", "d"}, 1.0),
        (set(), set(), 0.0),
        (set(), {"a"}, 1.0),
    ],
)
def test_masi_distance_hand_values(a: set[str], b: set[str], expected: float) -> None:
    assert masi_distance(frozenset(a), frozenset(b)) == pytest.approx(expected, abs=1e-12)
    assert masi_distance(frozenset(b), frozenset(a)) == pytest.approx(expected, abs=1e-12)


def test_masi_hand_values_in_closed_form() -> None:
    assert masi_distance(frozenset("a"), frozenset("ab")) == pytest.approx(2.0 / 3.0, abs=1e-12)
    assert masi_distance(frozenset("ab"), frozenset("bc")) == pytest.approx(8.0 / 9.0, abs=1e-12)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ({"a", "b"}, {"a", "b"}, 1.0),
        ({"a"}, {"a", "b"}, 0.5),
        ({"a", "b"}, {"b", "c"}, 1.0 / 3.0),
        ({"a"}, {"b"}, 0.0),
        (set(), set(), 1.0),
        (set(), {"a"}, 0.0),
    ],
)
def test_jaccard_hand_values(a: set[str], b: set[str], expected: float) -> None:
    assert jaccard(frozenset(a), frozenset(b)) == pytest.approx(expected, abs=1e-12)
    assert jaccard(frozenset(b), frozenset(a)) == pytest.approx(expected, abs=1e-12)


# ---------------------------------------------------------------- property tests


@st.composite
def reliability_arrays(draw: st.DrawFn, max_value: int = 4) -> np.ndarray:
    """Annotators × units arrays of small integer values with ``NaN`` gaps."""
    n_annotators = draw(st.integers(min_value=2, max_value=6))
    n_units = draw(st.integers(min_value=1, max_value=20))
    cell = st.one_of(st.none(), st.integers(min_value=0, max_value=max_value))
    cells = draw(st.lists(cell, min_size=n_annotators * n_units,
                          max_size=n_annotators * n_units))
    return as_reliability([cells[r * n_units:(r + 1) * n_units] for r in range(n_annotators)])


PROPERTY_SETTINGS = settings(max_examples=150, deadline=None)


@PROPERTY_SETTINGS
@given(data=reliability_arrays(), order=st.randoms(use_true_random=False))
def test_nominal_invariant_to_annotator_order(data: np.ndarray, order: Random) -> None:
    rows = list(range(data.shape[0]))
    order.shuffle(rows)
    assert_same_coefficient(alpha_from_reliability(data, "nominal"),
                            alpha_from_reliability(data[rows], "nominal"))


@PROPERTY_SETTINGS
@given(data=reliability_arrays(), renaming=st.permutations(range(5)),
       scale=st.sampled_from([1.0, 7.0, -3.0]))
def test_nominal_invariant_to_renaming_values(data: np.ndarray, renaming: list[int],
                                              scale: float) -> None:
    names = np.array(renaming, dtype=np.float64) * scale + 1.0
    renamed = np.full_like(data, np.nan)
    present = ~np.isnan(data)
    renamed[present] = names[data[present].astype(np.int64)]
    assert_same_coefficient(alpha_from_reliability(data, "nominal"),
                            alpha_from_reliability(renamed, "nominal"))


@PROPERTY_SETTINGS
@given(data=reliability_arrays(), order=st.randoms(use_true_random=False))
def test_ordinal_invariant_to_annotator_order(data: np.ndarray, order: Random) -> None:
    rows = list(range(data.shape[0]))
    order.shuffle(rows)
    assert_same_coefficient(alpha_from_reliability(data, "ordinal"),
                            alpha_from_reliability(data[rows], "ordinal"))


@PROPERTY_SETTINGS
@given(data=reliability_arrays(max_value=3), level=st.sampled_from(LEVELS))
def test_never_nan(data: np.ndarray, level: str) -> None:
    result = alpha_from_reliability(data, level)
    if result.value is None:
        assert isinstance(result.reason, str)
        assert result.reason
    else:
        assert math.isfinite(result.value)
        assert result.reason is None
        # α ≤ 1 always; = 1 only with perfect agreement inside every pairable unit.
        assert result.value <= 1.0 + 1e-12


def test_every_annotator_order_of_the_2011_example() -> None:
    """Every annotator order of the 2011 example gives the published nominal value."""
    case = reference_vectors()["krippendorff_2011"]
    data = as_reliability(case["reliability_data_coders_by_units"])
    for rows in itertools.permutations(range(data.shape[0])):
        result = alpha_from_reliability(data[list(rows)], "nominal")
        assert result.value == pytest.approx(case["alpha"]["nominal"], abs=PUBLISHED)
