"""Cohen's κ, Fleiss' κ and pooled pairwise similarity against published values and oracles.

Oracles: ``statsmodels.stats.inter_rater`` (Cohen's κ from the contingency table over the
full category range; Fleiss' κ with a constant number of raters) and brute-force loops
written here (Fleiss with a varying number of raters; pooled pairwise similarity).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np
import pytest
from statsmodels.stats import inter_rater

from app.core.agreement.categorical.alpha import jaccard
from app.core.agreement.categorical.kappa import cohen_kappa, fleiss_kappa, pooled_pair_similarity
from app.core.agreement.coefficient import Coefficient
from tests.reference import reference_vectors

WEIGHTS = (None, "linear", "quadratic")
PUBLISHED = 1e-6
ORACLE = 1e-9


def assert_undefined(result: Coefficient) -> None:
    """Undefined means ``None`` plus a reason sentence: never NaN, never 1.0."""
    assert result.value is None, f"expected undefined, got {result.value!r}"
    assert isinstance(result.reason, str)
    assert len(result.reason.split()) >= 4, f"reason is not a sentence: {result.reason!r}"


def counts_by_loop(codes: np.ndarray, n_values: int) -> np.ndarray:
    """Units × values count matrix from units × annotators codes (−1 missing), by loops."""
    counts = np.zeros((codes.shape[0], n_values), dtype=np.int64)
    for u, row in enumerate(codes):
        for code in row:
            if code >= 0:
                counts[u, code] += 1
    return counts


# ------------------------------------------------------------------------ Cohen's κ


def test_cohen_binary_reference() -> None:
    case = reference_vectors()["cohen_kappa"][0]
    result = cohen_kappa(np.array(case["a"]), np.array(case["b"]), 2)
    assert result.value == pytest.approx(case["kappa"], abs=PUBLISHED)
    assert result.reason is None


@pytest.mark.parametrize(("weights", "key"),
                         [(None, "kappa"), ("linear", "linear_weighted"),
                          ("quadratic", "quadratic_weighted")])
def test_cohen_three_category_reference(weights: str | None, key: str) -> None:
    case = reference_vectors()["cohen_kappa"][1]
    position = {label: k for k, label in enumerate(case["order"])}
    a = np.array([position[label] for label in case["a"]])
    b = np.array([position[label] for label in case["b"]])
    result = cohen_kappa(a, b, len(case["order"]), weights=weights)
    assert result.value == pytest.approx(case[key], abs=PUBLISHED)


def statsmodels_kappa(a: np.ndarray, b: np.ndarray, n_categories: int,
                      weights: str | None) -> float:
    """statsmodels' κ from the full ``n_categories`` square table of the shared units."""
    shared = (a >= 0) & (b >= 0)
    table = np.zeros((n_categories, n_categories))
    for x, y in zip(a[shared], b[shared], strict=True):
        table[x, y] += 1
    if weights is None:
        return float(inter_rater.cohens_kappa(table, return_results=False))
    return float(inter_rater.cohens_kappa(table, wt=weights, return_results=False))


def random_pair(seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Two annotators' codes (−1 missing) on a scale of ``n_categories``.

    Every fourth data set leaves the top of the scale unused, so the weights must come
    from the full scale rather than from the values used.
    """
    rng = np.random.default_rng(seed)
    n_categories = int(rng.integers(2, 8))
    n_units = int(rng.integers(10, 250))
    used = n_categories - 1 if (seed % 4 == 0 and n_categories > 2) else n_categories
    truth = rng.integers(0, used, size=n_units)
    a = np.where(rng.random(n_units) < 0.7, truth, rng.integers(0, used, size=n_units))
    shift = rng.integers(-1, 2, size=n_units)
    b = np.where(rng.random(n_units) < 0.6, truth, np.clip(truth + shift, 0, used - 1))
    a[rng.random(n_units) < 0.15] = -1
    b[rng.random(n_units) < 0.15] = -1
    return a, b, n_categories


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("seed", range(20))
def test_cohen_matches_statsmodels(seed: int, weights: str | None) -> None:
    a, b, n_categories = random_pair(seed)
    expected = statsmodels_kappa(a, b, n_categories, weights)
    result = cohen_kappa(a, b, n_categories, weights=weights)
    assert result.value is not None, result.reason
    assert abs(result.value - expected) <= ORACLE, (result.value, expected)


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_cohen_weights_use_the_full_scale(weights: str) -> None:
    """Positions 0, 1 and 4 used on a 5-point scale are not the compacted 0, 1, 2."""
    a = np.array([0, 1, 4, 4, 1, 0, 4, 1])
    b = np.array([0, 4, 4, 1, 1, 0, 0, 1])
    full = cohen_kappa(a, b, 5, weights=weights)
    compact = {0: 0, 1: 1, 4: 2}
    used_only = cohen_kappa(np.array([compact[x] for x in a]),
                            np.array([compact[x] for x in b]), 3, weights=weights)
    assert full.value is not None
    assert used_only.value is not None
    assert abs(full.value - statsmodels_kappa(a, b, 5, weights)) <= ORACLE
    assert abs(full.value - used_only.value) > 1e-3


@pytest.mark.parametrize("weights", WEIGHTS)
def test_cohen_one_same_label_throughout_is_undefined(weights: str | None) -> None:
    a = np.array([2, 2, 2, -1, 2])
    b = np.array([2, 2, 2, 2, -1])
    assert_undefined(cohen_kappa(a, b, 4, weights=weights))


@pytest.mark.parametrize("weights", WEIGHTS)
def test_cohen_no_shared_units_is_undefined(weights: str | None) -> None:
    a = np.array([0, -1, 1, -1])
    b = np.array([-1, 2, -1, -1])
    assert_undefined(cohen_kappa(a, b, 3, weights=weights))


def test_cohen_unknown_weights_rejected() -> None:
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa(np.array([0, 1]), np.array([1, 0]), 2, weights="cubic")


# ------------------------------------------------------------------------ Fleiss' κ


def test_fleiss_1971_table() -> None:
    case = reference_vectors()["fleiss_1971"]
    table = np.array(case["table_subjects_by_categories"])
    assert (table.sum(axis=1) == case["raters_per_subject"]).all()
    result = fleiss_kappa(table)
    assert result.value == pytest.approx(case["kappa"], abs=PUBLISHED)


def random_constant_rater_table(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n_units = int(rng.integers(5, 200))
    n_categories = int(rng.integers(2, 8))
    n_raters = int(rng.integers(2, 15))
    shares = rng.dirichlet(np.full(n_categories, 0.7), size=n_units)
    return np.array([rng.multinomial(n_raters, p) for p in shares])


@pytest.mark.parametrize("seed", range(20))
def test_fleiss_matches_statsmodels_with_constant_raters(seed: int) -> None:
    table = random_constant_rater_table(seed)
    expected = float(inter_rater.fleiss_kappa(table, method="fleiss"))
    result = fleiss_kappa(table)
    assert result.value is not None, result.reason
    assert abs(result.value - expected) <= ORACLE, (result.value, expected)


def fleiss_by_loops(ratings: Sequence[Sequence[int]], n_categories: int) -> float | None:
    """Fleiss' κ with per-unit raters, from the ratings themselves.

    P_u is the share of agreeing ordered rater pairs within the unit; P̄ the mean over
    units with two or more ratings; category shares pooled over those units' ratings.
    """
    rated = [list(unit) for unit in ratings if len(unit) >= 2]
    if not rated:
        return None
    per_unit = []
    for unit in rated:
        m = len(unit)
        agreeing = sum(1 for i in range(m) for j in range(m) if i != j and unit[i] == unit[j])
        per_unit.append(agreeing / (m * (m - 1)))
    mean_agreement = sum(per_unit) / len(per_unit)
    pooled = [label for unit in rated for label in unit]
    chance = sum((pooled.count(c) / len(pooled)) ** 2 for c in range(n_categories))
    if chance == 1.0:
        return None
    return (mean_agreement - chance) / (1.0 - chance)


def random_varying_ratings(seed: int) -> tuple[list[list[int]], int]:
    """Per-unit rating lists of 0 to 9 ratings (0 and 1 included: they drop out)."""
    rng = np.random.default_rng(seed)
    n_units = int(rng.integers(5, 150))
    n_categories = int(rng.integers(2, 7))
    ratings: list[list[int]] = []
    for _ in range(n_units):
        m = int(rng.integers(0, 10))
        p = rng.dirichlet(np.full(n_categories, 0.6))
        ratings.append([int(x) for x in rng.choice(n_categories, size=m, p=p)])
    return ratings, n_categories


def ratings_to_counts(ratings: Sequence[Sequence[int]], n_categories: int) -> np.ndarray:
    counts = np.zeros((len(ratings), n_categories), dtype=np.int64)
    for u, unit in enumerate(ratings):
        for label in unit:
            counts[u, label] += 1
    return counts


@pytest.mark.parametrize("seed", range(20))
def test_fleiss_with_varying_raters_matches_brute_force(seed: int) -> None:
    ratings, n_categories = random_varying_ratings(seed)
    assert len({len(unit) for unit in ratings}) > 1
    expected = fleiss_by_loops(ratings, n_categories)
    result = fleiss_kappa(ratings_to_counts(ratings, n_categories))
    assert expected is not None
    assert result.value is not None, result.reason
    assert abs(result.value - expected) <= ORACLE, (result.value, expected)


def test_fleiss_unanimous_is_undefined() -> None:
    table = np.array([[0, 4, 0], [0, 3, 0], [0, 5, 0], [0, 1, 0]])
    assert_undefined(fleiss_kappa(table))


def test_fleiss_without_pairable_units_is_undefined() -> None:
    assert_undefined(fleiss_kappa(np.array([[1, 0], [0, 1], [0, 0]])))


# ------------------------------------------------------------ pooled pair similarity


def random_codes(seed: int, n_values: int) -> np.ndarray:
    """Units × annotators codes with −1 for missing answers."""
    rng = np.random.default_rng(seed)
    n_units = int(rng.integers(3, 80))
    n_annotators = int(rng.integers(2, 7))
    truth = rng.integers(0, n_values, size=n_units)
    codes = np.where(rng.random((n_units, n_annotators)) < 0.6, truth[:, None],
                     rng.integers(0, n_values, size=(n_units, n_annotators)))
    codes[rng.random(codes.shape) < 0.3] = -1
    return codes


def pooled_by_loops(codes: np.ndarray, similarity: Callable[[int, int], float]
                    ) -> tuple[float | None, int]:
    """Mean of ``similarity`` over every annotator pair of every unit, and the pair count."""
    total = 0.0
    pairs = 0
    for row in codes:
        for i, j in combinations(range(len(row)), 2):
            if row[i] >= 0 and row[j] >= 0:
                total += similarity(int(row[i]), int(row[j]))
                pairs += 1
    return (None, 0) if pairs == 0 else (total / pairs, pairs)


@pytest.mark.parametrize("seed", range(15))
def test_percent_agreement_matches_brute_force(seed: int) -> None:
    n_values = 2 + seed % 5
    codes = random_codes(seed, n_values)
    expected, expected_pairs = pooled_by_loops(codes, lambda x, y: float(x == y))
    value, pairs = pooled_pair_similarity(counts_by_loop(codes, n_values))
    assert pairs == expected_pairs
    assert expected is not None
    assert value is not None
    assert abs(value - expected) <= ORACLE, (value, expected)


LABEL_SETS: list[frozenset[str]] = [
    frozenset(), frozenset("a"), frozenset("b"), frozenset("ab"), frozenset("bc"),
    frozenset("abc"), frozenset("d"), frozenset("cd"),
]


def jaccard_by_definition(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return 1.0 if not union else len(a & b) / len(union)


@pytest.mark.parametrize("seed", range(15))
def test_jaccard_similarity_matrix_matches_brute_force(seed: int) -> None:
    codes = random_codes(1000 + seed, len(LABEL_SETS))
    matrix = np.array([[jaccard(a, b) for b in LABEL_SETS] for a in LABEL_SETS])
    expected, expected_pairs = pooled_by_loops(
        codes, lambda x, y: jaccard_by_definition(LABEL_SETS[x], LABEL_SETS[y]))
    value, pairs = pooled_pair_similarity(counts_by_loop(codes, len(LABEL_SETS)), matrix)
    assert pairs == expected_pairs
    assert expected is not None
    assert value is not None
    assert abs(value - expected) <= ORACLE, (value, expected)


def test_pooled_similarity_without_pairs() -> None:
    counts = np.array([[1, 0], [0, 0], [0, 1]])
    assert pooled_pair_similarity(counts) == (None, 0)
    assert pooled_pair_similarity(counts, np.eye(2)) == (None, 0)


def test_percent_agreement_hand_value() -> None:
    """Unit 1: a a b (1 of 3 pairs agree); unit 2: c c (1 of 1) → 2 of 4 pairs."""
    counts = np.array([[2, 1, 0], [0, 0, 2]])
    assert pooled_pair_similarity(counts) == (pytest.approx(0.5, abs=1e-12), 4)
