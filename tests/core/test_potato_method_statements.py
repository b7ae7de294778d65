"""``cli_result``'s statements (issue 36) on Accord's results and on Potato's own records.

Oracles: Potato 2.12.1's own contract classes (:mod:`tests.core.potato_method_oracle`)
write the records a Potato project holds; the labels of each class are counted by brute
force over the view's calibration items; the level of a test is the series written out.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from app.core.contracts.potato_method.names import cli_result
from app.core.contracts.potato_method.ppi import evaluate_ppi
from app.core.contracts.potato_method.selective_risk import evaluate_selective_risk
from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodContract,
    MethodView,
    PopulationItem,
    TierAnswer,
)
from tests.core.potato_method_oracle import differences, potato_result, simulated_study

LABELS = ("a", "b", "c", "d", "e")
PPI = MethodContract("prevalence", "ppi", "s", 0.9, {"estimand": "prevalence", "by": "by"})


def _counts(view: MethodView) -> dict[str, Counter[str]]:
    """group (``all`` included) → class → labelled items with that truth."""
    out: dict[str, Counter[str]] = {"all": Counter()}
    for c in view.calibration:
        out["all"][str(c.truth)] += 1
        if c.group is not None:
            out.setdefault(c.group, Counter())[str(c.truth)] += 1
    return out


def _flagged(counts: dict[str, Counter[str]], estimated: set[str]) -> list[tuple[str, str, int]]:
    return sorted((g, label, counts[g][label]) for g in estimated for label in LABELS
                  if counts[g][label] < 3)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_class_labels_of_accord_and_of_potato_s_record(seed: int) -> None:
    view = simulated_study(seed, n_items=240, labels=LABELS, calibration_share=0.2,
                           groups=("g1", "g2"))
    counts = _counts(view)
    mine = cli_result("ppi", evaluate_ppi(PPI, view, 1).to_json())
    potato = cli_result("ppi", potato_result(PPI, view, 1))  # no "accord": read back
    estimated = {g for g, v in mine["estimates"].items() if v}
    assert estimated == {"all", "g1", "g2"}  # each group has its 10 labels
    for result in (mine, potato):
        for g in estimated:
            for label in LABELS:
                assert result["estimates"][g][label]["class_labels"] == counts[g][label]
        flagged = sorted(("all" if f["group"] is None else f["group"], f["label"],
                          f["class_labels"]) for f in result["coverage_not_assured"])
        assert flagged == _flagged(counts, estimated)
        assert bool(flagged) == ("coverage_not_assured_note" in result)
    assert mine["coverage_not_assured"], "the seeds should give a class under 3 labels"
    # Potato's interval is kept as computed
    for g in estimated:
        for label in LABELS:
            assert mine["estimates"][g][label]["interval"] == potato["estimates"][g][label][
                "interval"]


def test_unequal_probabilities_give_unknown_counts_in_potato_s_record() -> None:
    view = simulated_study(6, n_items=400, labels=("pos", "neg", "neu"),
                           calibration_share=0.3, unequal_pi=True)
    contract = MethodContract("p", "ppi", "s", 0.9, {"estimand": "prevalence"})
    potato = cli_result("ppi", potato_result(contract, view, 1))
    assert all(e["class_labels"] is None for e in potato["estimates"].values())
    assert potato["coverage_not_assured"] == []
    mine = cli_result("ppi", evaluate_ppi(contract, view, 1).to_json())
    counts = _counts(view)["all"]
    assert {k: e["class_labels"] for k, e in mine["estimates"].items()} == dict(counts)


def _clean_view(n: int = 600) -> MethodView:
    """One tier, every answer right, distinct confidences: a sequence far past 40."""
    population, calibration = [], []
    for i in range(n):
        answer = TierAnswer("pos" if i % 2 else "neg", round(0.5 + 0.5 * i / n, 6))
        population.append(PopulationItem(f"i{i}", (answer,), None, 1.0, answer))
        calibration.append(CalibrationItem(f"i{i}", answer.value, "dev" if i % 3 else "cert",
                                           1.0, (answer,), answer))
    return MethodView("s", ("pos", "neg"), ("t",), tuple(calibration), tuple(population),
                      output_complete=True)


@pytest.mark.parametrize("per_class", [False, True])
def test_potato_s_record_cut_at_forty_says_so_and_accord_keeps_every_test(
        per_class: bool) -> None:
    view = _clean_view()
    contract = MethodContract("acc", "selective_risk", "s", 0.9,
                              {"error": 0.1, "per_class": per_class})
    record = potato_result(contract, view, 1)
    cells = 2 if per_class else 1
    level = 0.1 * 6 / math.pi ** 2 / cells
    theirs = cli_result("selective_risk", record)
    assert len(theirs["tests"]) == 40 * cells
    assert all(t["level"] == pytest.approx(level, rel=1e-12) for t in theirs["tests"])
    assert all(t["passed"] for t in theirs["tests"])
    assert "its sequence went on" in theirs["tests_note"]
    evaluated = evaluate_selective_risk(contract, view, 1)
    assert differences(evaluated, record) == []  # Potato's 40 in metrics, as stored
    ours = cli_result("selective_risk", evaluated.to_json())
    assert "tests_note" not in ours and len(ours["tests"]) > 40 * cells
    assert ours["tests"][:40] == theirs["tests"][:40]
    rule = ours["rule"]["t"]
    for cls, threshold in rule.items():
        run = [t for t in ours["tests"] if t["class"] == cls]
        assert run[-1]["threshold"] == threshold and run[-1]["passed"]
