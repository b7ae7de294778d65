"""``evaluate_selective_risk`` against Potato 2.12.1's own ``SelectiveRisk`` (the oracle).

Every study is seeded; Accord's result and Potato's are compared with
:func:`tests.core.potato_method_oracle.differences` (status, acceptance, metrics,
projection, look, alpha, ran; numbers to 1e-9). The studies vary the corpus size
(30–600 items), 1–3 tiers, per_class, the error target (0.02–0.2), the confidence
(0.8–0.95), the look (1–4), abstentions, missing answers, unequal inclusion
probabilities (so some cells are skipped), confidences with 7 decimals (the grid's
6-place rounding and its thinning to 200) and too few labels, and a test counts the
outcomes so that met, insufficient and infeasible all really occur.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import pytest

from app.core.contracts.potato_method.selective_risk import evaluate_selective_risk
from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodContract,
    MethodView,
    PopulationItem,
    TierAnswer,
)
from tests.core.potato_method_oracle import (
    contracts,
    differences,
    potato_contract,
    potato_result,
    simulated_study,
    to_potato,
)

N_STUDIES = 240


def separated_study(seed: int, *, n_items: int, labels: Sequence[str],
                    tier_accuracy: Sequence[float], calibration_share: float,
                    dev_fraction: float, unequal_pi: bool, abstain: float,
                    separation: float, digits: int, missing: float,
                    person_accuracy: float) -> MethodView:
    """``simulated_study`` extended: a tunable gap between the confidences of right and
    wrong answers (so some studies certify), confidences to ``digits`` places (7 makes
    the grid round and thin), tiers with no answer at all (``None``) or an ``error``
    status, a value outside the labels, and items with no recorded pi."""
    rng = random.Random(seed)
    tiers = tuple(f"tier{j}" for j in range(len(tier_accuracy)))
    population: list[PopulationItem] = []
    calibration: list[CalibrationItem] = []
    for i in range(n_items):
        item = f"i{i:04d}"
        truth = rng.choice(labels)
        answers: list[TierAnswer | None] = []
        for accuracy in tier_accuracy:
            roll = rng.random()
            if roll < missing:
                answers.append(None)
                continue
            if roll < missing + abstain:
                answers.append(TierAnswer(None, 0.0, rng.choice(["abstain", "error"])))
                continue
            right = rng.random() < accuracy
            value = truth if right else rng.choice(
                [*(x for x in labels if x != truth), "other"])
            centre = 0.6 + separation / 2 if right else 0.6 - separation / 2
            conf = round(min(1.0, max(0.0, rng.gauss(centre, 0.1))), digits)
            answers.append(TierAnswer(value, conf, "ok"))
        output = next((a for a in answers if a is not None and a.answered), None)
        pi = calibration_share * (0.5 if unequal_pi and i % 3 == 0 else 1.0)
        recorded_pi = None if rng.random() < missing / 2 else pi
        population.append(PopulationItem(item, tuple(answers), None, recorded_pi, output))
        if rng.random() < pi:
            split = "dev" if rng.random() < dev_fraction else "cert"
            human = truth if rng.random() < person_accuracy else rng.choice(labels)
            calibration.append(CalibrationItem(item, human, split, recorded_pi,
                                               tuple(answers), output, {"p0": human}))
    return MethodView(scheme="s", labels=tuple(labels), tiers=tiers,
                      calibration=tuple(calibration), population=tuple(population),
                      output_complete=True)


@dataclass(frozen=True)
class Case:
    contract: MethodContract
    view: MethodView
    look: int


def _contract(error: float, confidence: float, per_class: bool) -> MethodContract:
    return MethodContract(id="risk", kind="selective_risk", schema="s",
                          confidence=confidence,
                          params={"error": error, "per_class": per_class})


@cache
def study_case(seed: int) -> Case:
    """One seeded study, its contract and its look.

    Five shapes, so that every outcome occurs: too few labels; a poor cascade (mostly
    infeasible); a strong, well-separated one on many labels (mostly met); a middling
    one whose error sits between half the target and the target (the half-target
    note); and anything in between. Even seeds use the oracle's ``simulated_study``,
    odd ones :func:`separated_study`.
    """
    rng = random.Random(1000 + seed)
    labels = ("pos", "neg", "neu", "mix")[:rng.randint(2, 4)]
    n_tiers = rng.randint(1, 3)
    error = round(rng.uniform(0.02, 0.2), 3)
    shape = rng.choice(["few", "poor", "strong", "strong", "strong", "middling", "mixed",
                       "mixed"])
    n_items, share = rng.randint(30, 600), rng.uniform(0.2, 0.9)
    separation = rng.uniform(0.1, 0.6)
    accuracy = [rng.uniform(0.6, 0.99) for _ in range(n_tiers)]
    if shape == "few":
        n_items, share = rng.randint(30, 80), rng.uniform(0.05, 0.3)
    elif shape == "poor":
        accuracy = [rng.uniform(0.2, 0.6) for _ in range(n_tiers)]
    elif shape == "strong":
        error = round(rng.uniform(0.08, 0.2), 3)
        n_items, share = rng.randint(300, 600), rng.uniform(0.5, 0.9)
        accuracy = [rng.uniform(0.9, 0.99) for _ in range(n_tiers)]
        separation = rng.uniform(0.5, 0.8)
    elif shape == "middling":
        # Wrong answers a little *more* confident: no error-free run at the top of the
        # grid to choose, and the overall error between half the target and the target.
        n_items, share = rng.randint(200, 600), rng.uniform(0.3, 0.9)
        separation = -rng.uniform(0.1, 0.4)
        accuracy = [1 - error * rng.uniform(0.6, 0.9) for _ in range(n_tiers)]
    unequal = rng.random() < (0.1 if shape == "strong" else 0.3)
    abstain = rng.choice([0.0, 0.0, 0.1, 0.3])
    dev_fraction = rng.choice([0.3, 0.5, 0.7])
    if seed % 2 == 0 and shape != "middling":
        view = simulated_study(seed, n_items=n_items, labels=labels,
                               tier_accuracy=accuracy, calibration_share=share,
                               dev_fraction=dev_fraction, unequal_pi=unequal,
                               abstain=abstain, people=rng.choice([1, 3]),
                               person_accuracy=1.0 if shape == "strong" else 0.9)
    else:
        view = separated_study(seed, n_items=n_items, labels=labels, tier_accuracy=accuracy,
                               calibration_share=share, dev_fraction=dev_fraction,
                               unequal_pi=unequal, abstain=abstain, separation=separation,
                               digits=rng.choice([2, 4, 7]),
                               missing=rng.choice([0.0, 0.05]),
                               person_accuracy=1.0 if shape in ("middling", "strong")
                               else rng.uniform(0.85, 1.0))
    contract = _contract(error, rng.choice([0.8, 0.85, 0.9, 0.95]), rng.random() < 0.4)
    return Case(contract, view, rng.randint(1, 4))


def _compare(case: Case) -> tuple[list[str], dict[str, Any]]:
    accord = evaluate_selective_risk(case.contract, case.view, case.look)
    potato = potato_result(case.contract, case.view, case.look)
    return differences(accord, potato), potato


@pytest.mark.parametrize("seed", range(N_STUDIES))
def test_simulated_study_equals_potato(seed: int) -> None:
    diffs, _ = _compare(study_case(seed))
    assert diffs == []


def test_the_studies_reach_every_outcome() -> None:
    """met, insufficient and infeasible each occur, and so do the paths between them:
    a failed test, a projection, a skipped cell, the half-target note, a thinned grid, a
    fixed sequence longer than the 40 tests stored, and a study that never ran a test.
    (The pooled re-projection and its "more labels will not help" note are rare in
    random studies; the hand-made cases below cover them.)"""
    seen: Counter[str] = Counter()
    for seed in range(N_STUDIES):
        case = study_case(seed)
        accord = evaluate_selective_risk(case.contract, case.view, case.look)
        seen[accord.state] += 1
        cells = accord.metrics.get("cells", {}).values()
        seen["ran" if accord.ran else "not run"] += 1
        seen["projection"] += bool(accord.projection)
        seen["skipped cell"] += any("skipped" in c for c in cells)
        seen["failed test"] += any(c.get("tests") and c["certified"] is None for c in cells)
        seen["half-target note"] += any("half" in note for note in accord.notes)
        seen["thinned grid"] += any(c["n_dev"] > 200 for c in cells)
        seen["long sequence"] += any(len(c.get("tests", ())) == 40 for c in cells)
        seen["three tiers"] += len(case.view.tiers) == 3
    for outcome in ("met", "insufficient", "infeasible", "ran", "not run", "projection",
                    "skipped cell", "failed test", "half-target note", "thinned grid",
                    "long sequence", "three tiers"):
        assert seen[outcome] >= 3, (outcome, seen)
    assert seen["met"] >= 20 and seen["insufficient"] >= 20 and seen["infeasible"] >= 10, seen


# --- hand-made edge cases --------------------------------------------------------------

def _base(seed: int = 5, **kwargs: Any) -> MethodView:
    options: dict[str, Any] = {"n_items": 400, "tier_accuracy": (0.85, 0.97),
                               "calibration_share": 0.6}
    options.update(kwargs)
    return simulated_study(seed, **options)


def _with_splits(view: MethodView, split: str) -> MethodView:
    return replace(view, calibration=tuple(replace(c, split=split) for c in view.calibration))


@pytest.mark.parametrize("per_class", [False, True])
def test_no_dev_labels(per_class: bool) -> None:
    case = Case(_contract(0.1, 0.9, per_class), _with_splits(_base(), "cert"), 1)
    diffs, potato = _compare(case)
    assert diffs == []
    assert potato["status"] == "insufficient" and potato["ran"] is False


@pytest.mark.parametrize("per_class", [False, True])
def test_no_cert_labels(per_class: bool) -> None:
    case = Case(_contract(0.1, 0.9, per_class), _with_splits(_base(), "dev"), 2)
    diffs, potato = _compare(case)
    assert diffs == []
    assert potato["status"] != "met" and potato["ran"] is False


@pytest.mark.parametrize("position", [0, 1])
def test_one_tier_all_abstaining(position: int) -> None:
    silent = TierAnswer(None, 0.0, "abstain")

    def mute(tiers: tuple[TierAnswer | None, ...]) -> tuple[TierAnswer | None, ...]:
        return tuple(silent if j == position else a for j, a in enumerate(tiers))

    view = _base(seed=11)
    view = replace(view,
                   calibration=tuple(replace(c, tiers=mute(c.tiers)) for c in view.calibration),
                   population=tuple(replace(p, tiers=mute(p.tiers)) for p in view.population))
    for contract in (_contract(0.1, 0.9, False), _contract(0.05, 0.8, True)):
        diffs, _ = _compare(Case(contract, view, 1))
        assert diffs == []


def test_every_tier_abstaining_is_insufficient_not_infeasible() -> None:
    view = _base(seed=12, abstain=1.0)
    diffs, potato = _compare(Case(_contract(0.1, 0.9, False), view, 1))
    assert diffs == [] and potato["status"] == "insufficient"


def test_no_tiers() -> None:
    view = replace(_base(), tiers=())
    diffs, potato = _compare(Case(_contract(0.1, 0.9, False), view, 3))
    assert diffs == [] and potato["ran"] is False and potato["alpha"] is None


def test_empty_population_and_calibration() -> None:
    view = replace(_base(), calibration=(), population=())
    diffs, _ = _compare(Case(_contract(0.1, 0.9, True), view, 1))
    assert diffs == []


def test_a_certifying_study_is_met_with_its_interval() -> None:
    view = separated_study(3, n_items=600, labels=("a", "b"), tier_accuracy=(0.95,),
                           calibration_share=0.8, dev_fraction=0.5, unequal_pi=False,
                           abstain=0.0, separation=0.6, digits=4, missing=0.0,
                           person_accuracy=1.0)
    diffs, potato = _compare(Case(_contract(0.1, 0.9, False), view, 1))
    assert diffs == [] and potato["status"] == "met"
    assert potato["metrics"]["cells"]["tier0:*"]["error_interval"]


def test_one_confidence_everywhere() -> None:
    view = _base(seed=7)

    def flat(tiers: tuple[TierAnswer | None, ...]) -> tuple[TierAnswer | None, ...]:
        return tuple(None if a is None else replace(a, confidence=1.0) for a in tiers)

    view = replace(view,
                   calibration=tuple(replace(c, tiers=flat(c.tiers)) for c in view.calibration),
                   population=tuple(replace(p, tiers=flat(p.tiers)) for p in view.population))
    for error in (0.02, 0.1, 0.3):
        diffs, _ = _compare(Case(_contract(error, 0.9, False), view, 1))
        assert diffs == []


@pytest.mark.parametrize("dev_fraction", [0.2, 0.5, 0.8])
def test_dev_fraction_scales_the_calibration_projection(dev_fraction: float) -> None:
    """Potato's engine sets ``dev_fraction`` on the contract object; the oracle bridge
    does not, so this test sets it on Potato's contract itself."""
    view = simulated_study(6, n_items=300, tier_accuracy=(0.95,), calibration_share=0.3,
                           person_accuracy=1.0)
    contract = _contract(0.1, 0.9, False)
    potato_cls = contracts.build_contract(potato_contract(contract, view.labels))
    potato_cls.dev_fraction = dev_fraction
    potato = potato_cls.evaluate(to_potato(view), look=1).to_dict()
    accord = evaluate_selective_risk(contract, view, 1, dev_fraction=dev_fraction)
    assert differences(accord, potato) == []
    assert potato["projection"], potato


def _split_view(dev_wrong: float, cert_wrong: float, n: int = 200, seed: int = 4) -> MethodView:
    """One tier; dev and cert answers wrong at the given rates, confidences unrelated to
    correctness (so cert's rate is what every cert test sees)."""
    rng = random.Random(seed)
    calibration: list[CalibrationItem] = []
    population: list[PopulationItem] = []
    for i in range(2 * n):
        split = "dev" if i < n else "cert"
        wrong = rng.random() < (dev_wrong if split == "dev" else cert_wrong)
        answer = TierAnswer("b" if wrong else "a", round(rng.uniform(0.5, 1.0), 4))
        calibration.append(CalibrationItem(f"i{i}", "a", split, 0.5, (answer,), answer))
        population.append(PopulationItem(f"i{i}", (answer,), None, 0.5, answer))
    return MethodView(scheme="s", labels=("a", "b"), tiers=("t",),
                      calibration=tuple(calibration), population=tuple(population))


def test_cert_far_worse_than_dev_says_more_labels_will_not_help() -> None:
    """Enough cert labels, a failed test, and dev and cert together at the target: the
    projection is withheld and the cell says why."""
    diffs, potato = _compare(Case(_contract(0.1, 0.9, False), _split_view(0.0, 0.3), 1))
    assert diffs == []
    cell = potato["metrics"]["cells"]["t:*"]
    assert potato["status"] == "insufficient" and "projection_note" in cell
    assert "more_cert_labels" not in cell and potato["projection"] == {}


def test_cert_somewhat_worse_than_dev_projects_from_both() -> None:
    """Enough cert labels and a failed test, but dev and cert together still under the
    target: the projection is redone from the pooled rate, beyond the labels there are."""
    diffs, potato = _compare(Case(_contract(0.1, 0.9, False), _split_view(0.0, 0.09), 1))
    assert diffs == []
    cell = potato["metrics"]["cells"]["t:*"]
    assert cell["tests"] and cell["certified"] is None and "projection_note" not in cell
    assert potato["projection"]["more_cert_labels"] >= 1


@pytest.mark.parametrize("look", [1, 2, 4])
def test_a_clean_cascade_certifies_and_its_sequence_runs_down_the_grid(look: int) -> None:
    diffs, potato = _compare(Case(_contract(0.1, 0.9, False), _split_view(0.0, 0.0), look))
    assert diffs == [] and potato["status"] == "met"
    assert len(potato["metrics"]["cells"]["t:*"]["tests"]) == 40  # Potato stores 40
