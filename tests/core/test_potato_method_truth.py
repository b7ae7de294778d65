"""``humans.truth`` against Potato 2.12.1's own inference (the oracle, run, never copied).

Seeded studies of 1-5 people per item with people of different care (a careless one
answers at random half of the time), 2-5 classes, numbers and strings as labels, some
structured answers: Accord's Dawid-Skene consensus and majority equal Potato's
``labeling_engine.inference.infer`` item for item, adjudications included.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.core.contracts.potato_method.truth import dawid_skene, infer_truth, majority

inference = pytest.importorskip("potato.labeling_engine.inference")
consensus = pytest.importorskip("potato.server_utils.consensus")

STUDIES = 200


def _study(seed: int) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    rng = random.Random(seed)
    k = rng.randint(2, 5)
    classes: list[Any] = ([f"c{j}" for j in range(k)] if rng.random() < 0.7
                          else list(range(1, k + 1)))
    care = {f"p{w}": rng.choice((0.95, 0.85, 0.7, 0.5)) for w in range(rng.randint(2, 6))}
    people_by_item: dict[str, dict[str, Any]] = {}
    for i in range(rng.randint(5, 60)):
        truth = rng.choice(classes)
        who = rng.sample(sorted(care), rng.randint(1, min(5, len(care))))
        answers: dict[str, Any] = {}
        for person in who:
            answers[person] = truth if rng.random() < care[person] else rng.choice(classes)
        if rng.random() < 0.05:  # a structured answer: no classes, the majority decides
            answers[who[0]] = [truth]
        people_by_item[f"item{i:03d}"] = answers
    adjudicated = {item: rng.choice(classes) for item in people_by_item if rng.random() < 0.05}
    return people_by_item, adjudicated


@pytest.mark.parametrize("method", ["majority", "dawid_skene"])
def test_equal_to_potato_s_inference(method: str) -> None:
    for seed in range(STUDIES):
        people, adjudicated = _study(seed)
        theirs = {item: label for item, (label, _) in
                  inference.infer(people, method, adjudicated).items()}
        assert infer_truth(people, method, adjudicated) == theirs, seed


def test_dawid_skene_equals_potato_s_consensus_on_flat_observations() -> None:
    for seed in range(STUDIES):
        rng = random.Random(1000 + seed)
        classes = [f"k{j}" for j in range(rng.randint(1, 4))]
        observations = [(f"w{rng.randint(0, 4)}", f"i{rng.randint(0, 30)}", rng.choice(classes))
                        for _ in range(rng.randint(1, 120))]
        assert dawid_skene(observations) == consensus.dawid_skene(observations).labels, seed


def test_a_careless_person_counts_for_less() -> None:
    # two careful people agree with each other everywhere; the careless one disagrees
    # with them on the first items, so on the last item, where one careful person and the
    # careless one say "b", the consensus trusts the careful ones' record
    people = {f"i{n}": {"ann": "a", "bob": "a", "cat": "b"} for n in range(8)}
    people.update({f"j{n}": {"ann": "b", "bob": "b", "cat": "b"} for n in range(4)})
    people["z"] = {"cat": "a", "ann": "b"}
    assert majority(people["z"]) == "a"  # a tie goes to the first person's label
    assert infer_truth(people, "dawid_skene")["z"] == "b"


def test_an_adjudication_wins_and_an_unknown_method_is_refused() -> None:
    people = {"x": {"ann": "a", "bob": "a"}}
    assert infer_truth(people, "majority", {"x": "b", "elsewhere": "c"}) == {"x": "b"}
    with pytest.raises(ValueError, match="unknown truth method"):
        infer_truth(people, "vote")
