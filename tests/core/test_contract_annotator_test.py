"""The alternative annotator test (Calderon, Reichart and Dror 2025).

Oracles: ``scipy.stats.ttest_1samp`` and ``ttest_rel`` (the one-sided margin t-test),
``statsmodels``' ``multipletests(method="fdr_by")`` (Benjamini–Yekutieli), a small
example worked by hand, and a loop written here from the paper's procedure (person by
person, like the authors' ``alt_test``) on seeded random data.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import t as student_t
from scipy.stats import ttest_1samp, ttest_rel
from statsmodels.stats.multitest import multipletests

from app.core.contracts.statistics.annotator_test import (
    alternative_annotator_test,
    benjamini_yekutieli,
    exact_match,
    margin_t_test,
)

ORACLE = 1e-12


# The margin t-test ---------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(10))
def test_margin_t_test_matches_scipy_one_sample_and_paired(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 120))
    human = (rng.random(n) < 0.7).astype(float)
    machine = (rng.random(n) < 0.6).astype(float)
    epsilon = float(rng.choice([0.0, 0.1, 0.15, 0.2]))
    p = margin_t_test(human - machine, epsilon)
    one_sample = ttest_1samp(human - machine, epsilon, alternative="less").pvalue
    paired = ttest_rel(human - epsilon, machine, alternative="less").pvalue
    assert p == pytest.approx(float(one_sample), abs=ORACLE)
    assert p == pytest.approx(float(paired), abs=1e-10)


def test_margin_t_test_with_constant_differences_takes_the_limit() -> None:
    below = np.zeros(30)
    assert margin_t_test(below, 0.1) == 0.0
    assert float(ttest_1samp(below, 0.1, alternative="less").pvalue) == 0.0  # scipy agrees
    assert margin_t_test(np.ones(30), 0.1) == 1.0
    assert margin_t_test(np.full(30, 0.1), 0.1) == 1.0
    with pytest.raises(ValueError, match="at least two"):
        margin_t_test([0.0], 0.1)


# Benjamini–Yekutieli -------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(20))
def test_benjamini_yekutieli_matches_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 25))
    p = np.concatenate([rng.uniform(0, 0.01, m // 2), rng.uniform(0, 1, m - m // 2)])
    rng.shuffle(p)
    level = float(rng.choice([0.05, 0.1, 0.2]))
    expected, *_ = multipletests(p, alpha=level, method="fdr_by")
    assert benjamini_yekutieli(list(p), level) == [bool(r) for r in expected]


def test_benjamini_yekutieli_handles_ties_and_no_tests() -> None:
    p = [0.001, 0.001, 0.5, 0.001]
    expected, *_ = multipletests(p, alpha=0.05, method="fdr_by")
    assert benjamini_yekutieli(p, 0.05) == [bool(r) for r in expected]
    assert benjamini_yekutieli([], 0.1) == []
    with pytest.raises(ValueError):
        benjamini_yekutieli([0.2, 1.5], 0.1)


# A worked example ----------------------------------------------------------------------

HAND = {
    "i1": {"A": "x", "B": "x", "C": "x"},
    "i2": {"A": "x", "B": "y", "C": "y"},
    "i3": {"A": "y", "B": "x", "C": "x"},
    "i4": {"A": "x", "B": "x", "C": "y"},
}
HAND_MACHINE = {"i1": "y", "i2": "y", "i3": "x", "i4": "x"}


def test_worked_example_by_hand() -> None:
    """Three people, four items, ε = 0.1, exact match.

    Leaving A out (others B, C): the machine misses i1 (S_f 0, S_h 1), wins i2 and i3
    (1 vs 0), and ties i4 (0.5 vs 0.5): W_h − W_f = [1, −1, −1, 0], ρ_f = 3/4,
    ρ_h = 2/4. Leaving B out: [1, 0, 0, 0], ρ_f = 3/4, ρ_h = 1. Leaving C out:
    [1, 0, 0, −1], ρ_f = ρ_h = 3/4. Alignments: A 0.625 vs 0.375, B 0.375 vs 0.625,
    C 0.5 vs 0.5; over all twelve comparisons 0.5 and 0.5.
    """
    result = alternative_annotator_test(HAND, HAND_MACHINE, epsilon=0.1, confidence=0.9,
                                        min_items_per_person=3)
    differences = {"A": [1, -1, -1, 0], "B": [1, 0, 0, 0], "C": [1, 0, 0, -1]}
    win_rates = {"A": (0.75, 0.5), "B": (0.75, 1.0), "C": (0.75, 0.75)}
    alignments = {"A": (0.625, 0.375), "B": (0.375, 0.625), "C": (0.5, 0.5)}
    for person, d in differences.items():
        row = result.per_annotator[person]
        assert row.n_items == 4
        assert row.p == pytest.approx(
            float(ttest_1samp(d, 0.1, alternative="less").pvalue), abs=ORACLE)
        assert (row.machine_win_rate, row.human_win_rate) == win_rates[person]
        assert row.advantage == pytest.approx(win_rates[person][0] - win_rates[person][1])
        assert (row.machine_alignment, row.human_alignment) == alignments[person]
        assert row.beaten is False
    assert result.winning_rate == 0.0
    assert result.advantage_probability == 0.75
    assert (result.machine_alignment, result.human_alignment) == (0.5, 0.5)
    assert result.level == pytest.approx(0.1)
    assert result.skipped == {}


def test_hand_p_value_of_person_a() -> None:
    """d = [1, −1, −1, 0]: mean −0.25, sd √(2.75/3), t = −0.35 / (sd/2), 3 df."""
    t = -0.35 / (np.sqrt(2.75 / 3) / 2)
    result = alternative_annotator_test(HAND, HAND_MACHINE, epsilon=0.1, confidence=0.9,
                                        min_items_per_person=3)
    assert result.per_annotator["A"].p == pytest.approx(float(student_t.cdf(t, 3)),
                                                        abs=ORACLE)


# Against the paper's procedure, written out --------------------------------------------

def paper_alt_test(human_labels: Mapping[str, Mapping[str, object]],
                   machine: Mapping[str, object], epsilon: float, q: float,
                   score: Callable[[object, object], float | Fraction],
                   min_items: int) -> dict[str, object]:
    """Person-major, as in the authors' ``alt_test``; scipy and statsmodels do the stats."""
    by_person: dict[str, dict[str, object]] = {}
    for item, labels in human_labels.items():
        for person, label in labels.items():
            by_person.setdefault(person, {})[item] = label
    people, p_values, rho_f, adv = [], [], [], []
    for person, own in by_person.items():
        items = [i for i in own if i in machine and len(human_labels[i]) >= 2]
        if len(items) < min_items:
            continue
        wf, wh = [], []
        for i in items:
            rest = [lab for who, lab in human_labels[i].items() if who != person]
            # Exact sums, so equal alignments tie whatever the order of addition.
            s_f = sum(Fraction(score(machine[i], r)) for r in rest) / len(rest)
            s_h = sum(Fraction(score(own[i], r)) for r in rest) / len(rest)
            wf.append(1.0 if s_f >= s_h else 0.0)
            wh.append(1.0 if s_h >= s_f else 0.0)
        d = np.subtract(wh, wf)
        p_values.append(float(ttest_1samp(d, epsilon, alternative="less").pvalue))
        rho_f.append(float(np.mean(wf)))
        adv.append(float(np.mean(wf) - np.mean(wh)))
        people.append(person)
    rejected, *_ = multipletests(p_values, alpha=q, method="fdr_by")
    return {"people": people, "p": p_values, "rho_f": rho_f, "advantage": adv,
            "beaten": [bool(r) for r in rejected],
            "winning_rate": float(np.mean(rejected))}


def simulated_study(seed: int, machine_accuracy: float,
                    n_items: int = 90) -> tuple[dict[str, dict[str, object]], dict[str, object]]:
    rng = np.random.default_rng(seed)
    people = [f"p{j}" for j in range(6)]
    reliability = rng.uniform(0.65, 0.9, len(people))
    human: dict[str, dict[str, object]] = {}
    machine: dict[str, object] = {}
    for i in range(n_items):
        truth = int(rng.integers(4))
        who = rng.choice(len(people), size=int(rng.integers(3, 6)), replace=False)
        human[f"i{i}"] = {
            people[j]: truth if rng.random() < reliability[j] else int(rng.integers(4))
            for j in who}
        if rng.random() < 0.95:
            machine[f"i{i}"] = truth if rng.random() < machine_accuracy else int(
                rng.integers(4))
    return human, machine


@pytest.mark.parametrize("seed, accuracy", [(1, 0.95), (2, 0.8), (3, 0.6), (4, 0.9),
                                            (5, 0.99)])
def test_matches_the_papers_procedure_on_simulated_studies(seed: int, accuracy: float) -> None:
    human, machine = simulated_study(seed, accuracy)
    expected = paper_alt_test(human, machine, 0.1, 0.1, exact_match, 30)
    result = alternative_annotator_test(human, machine, epsilon=0.1, confidence=0.9)
    assert [str(p) for p in result.per_annotator] == expected["people"]
    rows = list(result.per_annotator.values())
    assert [r.p for r in rows] == pytest.approx(expected["p"], abs=ORACLE)
    assert [r.advantage for r in rows] == pytest.approx(expected["advantage"], abs=ORACLE)
    assert [r.beaten for r in rows] == expected["beaten"]
    assert result.winning_rate == pytest.approx(expected["winning_rate"])
    rho_f = expected["rho_f"]
    assert isinstance(rho_f, list)
    assert result.advantage_probability == pytest.approx(float(np.mean(rho_f)))


def test_a_strong_machine_beats_most_people_and_a_weak_one_none() -> None:
    strong = alternative_annotator_test(*simulated_study(5, 0.99, n_items=150),
                                        epsilon=0.1, confidence=0.9)
    weak = alternative_annotator_test(*simulated_study(3, 0.4, n_items=150),
                                      epsilon=0.1, confidence=0.9)
    assert strong.winning_rate is not None and strong.winning_rate >= 0.5
    assert weak.winning_rate == 0.0
    assert strong.machine_alignment is not None and weak.machine_alignment is not None
    assert strong.machine_alignment > weak.machine_alignment


def test_a_graded_agreement_is_used_for_both_sides() -> None:
    """Closeness on a 4-point scale; the oracle scores in exact thirds.

    In floats 1 + (1 − 2/3) and 2 · (1 − 1/3) differ in the last bit although both are
    4/3: the test must treat them as the tie they are.
    """
    def closeness(a: object, b: object) -> float:
        assert isinstance(a, int) and isinstance(b, int)
        return 1.0 - abs(a - b) / 3.0

    def exact_closeness(a: object, b: object) -> Fraction:
        assert isinstance(a, int) and isinstance(b, int)
        return Fraction(3 - abs(a - b), 3)

    human, machine = simulated_study(8, 0.85)
    expected = paper_alt_test(human, machine, 0.15, 0.05, exact_closeness, 30)
    result = alternative_annotator_test(human, machine, epsilon=0.15, confidence=0.95,
                                        agreement=closeness)
    assert [r.p for r in result.per_annotator.values()] == pytest.approx(expected["p"],
                                                                        abs=ORACLE)
    assert result.winning_rate == pytest.approx(expected["winning_rate"])


# Who is tested -------------------------------------------------------------------------

def test_people_with_too_few_items_are_skipped_with_a_reason() -> None:
    human, machine = simulated_study(6, 0.9, n_items=60)
    for k, item in enumerate(list(human)[:5]):
        human[item] = {**human[item], "newcomer": k % 4}
    result = alternative_annotator_test(human, machine, epsilon=0.1, confidence=0.9)
    assert "newcomer" not in result.per_annotator
    assert "fewer than the 30" in result.skipped["newcomer"]


def test_items_without_a_machine_label_or_another_person_are_left_out() -> None:
    labels: dict[Hashable, dict[Hashable, object]] = {
        f"i{i}": {"A": i % 2, "B": i % 2, "C": (i // 2) % 2} for i in range(40)}
    labels["solo"] = {"A": 1}
    machine: dict[Hashable, object] = {f"i{i}": i % 2 for i in range(35)}
    machine["solo"] = 1
    result = alternative_annotator_test(labels, machine, epsilon=0.1, confidence=0.9)
    assert {row.n_items for row in result.per_annotator.values()} == {35}


def test_fewer_than_three_people_leave_the_winning_rate_undefined() -> None:
    rng = np.random.default_rng(7)
    two: dict[Hashable, dict[Hashable, object]] = {
        f"i{i}": {"A": int(rng.integers(2)), "B": int(rng.integers(2))} for i in range(40)}
    machine = {item: labels["A"] for item, labels in two.items()}
    result = alternative_annotator_test(two, machine, epsilon=0.1, confidence=0.9)
    assert result.winning_rate is None
    assert result.reason is not None and "at least 3" in result.reason
    assert set(result.per_annotator) == {"A", "B"}
    assert result.machine_alignment is not None
    nobody = alternative_annotator_test({"i": {"a": 1, "b": 1}}, {"i": 1}, 0.1, 0.9)
    assert nobody.winning_rate is None and nobody.per_annotator == {}
    assert nobody.reason is not None and nobody.machine_alignment is None


def test_bad_parameters_are_value_errors() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        alternative_annotator_test(HAND, HAND_MACHINE, epsilon=-0.1, confidence=0.9)
    with pytest.raises(ValueError, match="confidence"):
        alternative_annotator_test(HAND, HAND_MACHINE, epsilon=0.1, confidence=1.0)
    with pytest.raises(ValueError, match="someone must remain"):
        alternative_annotator_test(HAND, HAND_MACHINE, 0.1, 0.9, min_people_per_item=1)
