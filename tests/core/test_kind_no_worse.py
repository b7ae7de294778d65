"""The ``no_worse_than_human`` contract kind.

Hand-worked cases (people who always agree; a machine always with them, or always
against them) and the tested ``alternative_annotator_test`` as the oracle on noisy data;
every state: pending, insufficient, met, unmet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np
import pytest

from app.core.contracts.config.contract_specs import ContractKind, ContractSpec
from app.core.contracts.kinds.base import HumanLabel, MachineLabel, SchemaData
from app.core.contracts.kinds.no_worse_than_human import evaluate_no_worse_than_human
from app.core.contracts.statistics.annotator_test import alternative_annotator_test
from app.core.model import Answer, Kind, Scheme

SCHEME = Scheme("verdict", "radio", Kind.NOMINAL, labels=("yes", "no"))
LIKERT = Scheme("grade", "likert", Kind.ORDINAL, scale=("1", "2", "3", "4", "5"))


def spec(epsilon: float = 0.1, confidence: float = 0.9) -> ContractSpec:
    return ContractSpec("nw", ContractKind.NO_WORSE_THAN_HUMAN, "verdict",
                        MappingProxyType({"epsilon": epsilon, "confidence": confidence}))


def schema_data(machine: Mapping[str, Answer], dev: Mapping[str, Sequence[tuple[str, Answer]]],
                scheme: Scheme = SCHEME) -> SchemaData:
    items = tuple(sorted(set(machine) | set(dev)))
    return SchemaData(scheme=scheme, tiers=("judge",), items=items,
                      predictions={"judge": {i: MachineLabel(v, 0.9) for i, v in machine.items()}},
                      dev={i: tuple(HumanLabel(w, label, 0.5) for w, label in people)
                           for i, people in dev.items()},
                      cert={}, dev_fraction=0.5)


def agreeing(n_items: int, people: Sequence[str] = ("a", "b", "c")
             ) -> dict[str, list[tuple[str, Answer]]]:
    return {f"i{k:02d}": [(p, "yes" if k % 3 else "no") for p in people]
            for k in range(n_items)}


def test_pending_without_dev_labels() -> None:
    out = evaluate_no_worse_than_human(spec(), schema_data({"a": "yes"}, {}))
    assert out.state == "pending" and out.result["winning_rate"] is None


def test_a_machine_that_always_agrees_beats_everyone() -> None:
    """S_f = S_h = 1 everywhere: ties, d ≡ 0 < ε, p = 0, every person beaten."""
    dev = agreeing(30)
    machine = {i: people[0][1] for i, people in dev.items()}
    out = evaluate_no_worse_than_human(spec(), schema_data(machine, dev))
    assert out.state == "met" and out.tested is False
    assert out.result["winning_rate"] == 1.0
    assert out.result["machine_alignment"] == 1.0 and out.result["human_alignment"] == 1.0
    assert out.result["per_annotator"] == {
        p: {"n_items": 30, "p": 0.0, "advantage": 0.0, "beaten": True} for p in "abc"}


def test_a_machine_that_always_disagrees_is_unmet() -> None:
    """S_f = 0, S_h = 1: d ≡ 1 ≥ ε, p = 1, nobody beaten, winning rate 0."""
    dev = agreeing(30)
    machine = {i: "no" if people[0][1] == "yes" else "yes" for i, people in dev.items()}
    out = evaluate_no_worse_than_human(spec(), schema_data(machine, dev))
    assert out.state == "unmet"
    assert out.result["winning_rate"] == 0.0
    assert out.result["machine_alignment"] == 0.0 and out.result["human_alignment"] == 1.0
    assert all(not row["beaten"] and row["advantage"] == -1.0
               for row in out.result["per_annotator"].values())


def test_too_few_items_or_people_is_insufficient_with_a_projection() -> None:
    dev = agreeing(20)
    machine = {i: people[0][1] for i, people in dev.items()}
    out = evaluate_no_worse_than_human(spec(), schema_data(machine, dev))
    assert out.state == "insufficient"
    assert out.result["projection"] == {"more_people": 3,
                                        "more_items": {"a": 10, "b": 10, "c": 10}}
    two = agreeing(40, people=("a", "b"))
    out = evaluate_no_worse_than_human(spec(), schema_data(machine | {
        i: "yes" for i in two}, two))
    assert out.state == "insufficient"
    assert out.result["projection"] == {"more_people": 1, "more_items": {}}
    assert len(out.result["per_annotator"]) == 2


def test_noisy_people_match_the_tested_primitive() -> None:
    rng = np.random.default_rng(17)
    dev: dict[str, list[tuple[str, Answer]]] = {}
    machine: dict[str, Answer] = {}
    for k in range(60):
        truth = "yes" if rng.random() < 0.5 else "no"
        flip = {"yes": "no", "no": "yes"}
        dev[f"i{k:02d}"] = [(p, truth if rng.random() < 0.8 else flip[truth])
                            for p in ("a", "b", "c", "d")]
        machine[f"i{k:02d}"] = truth if rng.random() < 0.85 else flip[truth]
    out = evaluate_no_worse_than_human(spec(epsilon=0.15), schema_data(machine, dev))
    humans = {i: dict(people) for i, people in dev.items()}
    expected = alternative_annotator_test(humans, machine, 0.15, 0.9)
    assert out.result["winning_rate"] == expected.winning_rate
    assert out.result["machine_alignment"] == pytest.approx(expected.machine_alignment)
    assert out.result["human_alignment"] == pytest.approx(expected.human_alignment)
    for person, row in expected.per_annotator.items():
        assert out.result["per_annotator"][person]["p"] == pytest.approx(row.p)
        assert out.result["per_annotator"][person]["beaten"] == row.beaten
    assert expected.winning_rate is not None
    assert out.state == ("met" if expected.winning_rate >= 0.5 else "unmet")


def test_graded_schemes_agree_by_one_minus_the_loss() -> None:
    """Likert 1..5: the machine one step off everyone scores 1 − 1/4 = 0.75."""
    dev = {f"i{k:02d}": [(p, "3") for p in "abc"] for k in range(30)}
    machine = dict.fromkeys(dev, "4")
    out = evaluate_no_worse_than_human(spec(), schema_data(machine, dev, LIKERT))
    assert out.result["machine_alignment"] == pytest.approx(0.75)
    assert out.result["human_alignment"] == 1.0
    assert out.state == "unmet"
