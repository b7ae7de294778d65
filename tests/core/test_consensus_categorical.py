"""Consensus of categorical answers: hand-computed majorities and ties, per-label
multilabel majority, trace steps, and Dawid–Skene against Potato 2.12.1's own inference."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.core.agreement.consensus.categorical import ONE_ANNOTATOR, TIE, categorical_rows_of
from app.core.model import Answer, Kind, TraceJudgement


def _rows(
    kind: Kind, answers: dict[str, dict[str, Answer]], method: str = "majority"
) -> dict[str, dict[str, Any]]:
    return {row["item"]: row for row in categorical_rows_of("s", kind, answers, method)}


def test_three_annotators_three_labels_is_a_named_tie() -> None:
    row = _rows(Kind.NOMINAL, {"i": {"a": "pos", "b": "neg", "c": "neu"}})["i"]
    assert row["consensus"] is None
    assert row["tie"] == ["neg", "neu", "pos"]
    assert row["reason"] == TIE
    assert row["agreed_by"] == []
    assert row["n_annotators"] == 3
    assert row["votes"] == {"neg": ["b"], "neu": ["c"], "pos": ["a"]}


def test_two_of_three_is_the_majority_with_who_agreed() -> None:
    row = _rows(Kind.NOMINAL, {"i": {"c": "neg", "a": "pos", "b": "pos"}})["i"]
    assert row["consensus"] == "pos"
    assert row["agreed_by"] == ["a", "b"]
    assert "tie" not in row and "reason" not in row
    assert row["answers"] == {"a": "pos", "b": "pos", "c": "neg"}
    assert row["method"] == "majority" and row["kind"] == "nominal"


def test_plurality_and_a_two_two_tie_among_four() -> None:
    rows = _rows(
        Kind.ORDINAL,
        {
            "p": {"a": "3", "b": "3", "c": "4", "d": "5"},
            "t": {"a": "1", "b": "1", "c": "2", "d": "2"},
        },
    )
    assert rows["p"]["consensus"] == "3" and rows["p"]["agreed_by"] == ["a", "b"]
    assert rows["t"]["consensus"] is None and rows["t"]["tie"] == ["1", "2"]


def test_one_annotator_has_no_consensus() -> None:
    row = _rows(Kind.NOMINAL, {"i": {"a": "pos"}})["i"]
    assert row["consensus"] is None and row["reason"] == ONE_ANNOTATOR
    assert row["answers"] == {"a": "pos"}


def test_multilabel_per_label_strict_majority() -> None:
    rows = _rows(
        Kind.MULTILABEL,
        {
            # x: 2 of 3, y: 2 of 3, z: 1 of 3 -> {x, y}; only a answered exactly {x, y}
            "three": {
                "a": frozenset({"x", "y"}),
                "b": frozenset({"x"}),
                "c": frozenset({"y", "z"}),
            },
            # x: 4 of 4, y: 2 of 4 (a tie, left out), z: 1 of 4 -> {x}; d answered {x}
            "four": {
                "a": frozenset({"x", "y"}),
                "b": frozenset({"x", "y", "z"}),
                "c": frozenset({"x"}),
                "d": frozenset({"x"}),
            },
            "empty": {"a": frozenset(), "b": frozenset()},
        },
    )
    assert rows["three"]["consensus"] == ["x", "y"]
    assert rows["three"]["agreed_by"] == ["a"]
    assert "tie" not in rows["three"]
    assert rows["three"]["votes"] == {"x": ["a", "b"], "y": ["a", "c"], "z": ["c"]}
    assert rows["four"]["consensus"] == ["x"]
    assert rows["four"]["tie"] == ["y"]
    assert rows["four"]["agreed_by"] == ["c", "d"]
    assert rows["empty"]["consensus"] == [] and rows["empty"]["agreed_by"] == ["a", "b"]


def test_trace_steps_are_units() -> None:
    answers: dict[str, dict[str, Answer]] = {
        "t": {
            "a": TraceJudgement({"0": "good", "1": "bad", "2": None}),
            "b": TraceJudgement({"0": "good", "1": "good", "2": "bad"}),
            "c": TraceJudgement({"0": "bad", "1": "bad"}),
        }
    }
    rows = categorical_rows_of("s", Kind.TRACE, answers)
    assert [r["step"] for r in rows] == ["0", "1", "2"]
    assert rows[0]["consensus"] == "good" and rows[0]["agreed_by"] == ["a", "b"]
    assert rows[1]["consensus"] == "bad" and rows[1]["agreed_by"] == ["a", "c"]
    assert rows[2]["consensus"] is None and rows[2]["n_annotators"] == 1


def test_dawid_skene_trusts_the_careful_over_a_spammer() -> None:
    """Two careful people agree on 20 items; a spammer says 'pos' always. On the item
    only one careful person and the spammer saw, majority is a 1-1 tie, while
    Dawid-Skene reads the spammer's 'pos' as no evidence and follows the careful one."""
    answers: dict[str, dict[str, Answer]] = {}
    for k in range(20):
        truth = "pos" if k % 2 else "neg"
        answers[f"i{k:02d}"] = {"good1": truth, "good2": truth, "spam": "pos"}
    answers["x"] = {"good1": "neg", "spam": "pos"}
    assert _rows(Kind.NOMINAL, answers)["x"]["consensus"] is None
    row = _rows(Kind.NOMINAL, answers, "dawid_skene")["x"]
    assert row["consensus"] == "neg" and row["agreed_by"] == ["good1"]
    assert row["method"] == "dawid_skene"


def test_dawid_skene_equals_potato_s_inference_item_for_item() -> None:
    inference = pytest.importorskip("potato.labeling_engine.inference")
    for seed in range(40):
        rng = random.Random(seed)
        classes = [f"c{j}" for j in range(rng.randint(2, 4))]
        care = {f"p{w}": rng.choice((0.95, 0.8, 0.5)) for w in range(rng.randint(2, 5))}
        people: dict[str, dict[str, Any]] = {}
        for i in range(rng.randint(5, 40)):
            truth = rng.choice(classes)
            who = rng.sample(sorted(care), rng.randint(1, len(care)))
            people[f"item{i:03d}"] = {
                w: truth if rng.random() < care[w] else rng.choice(classes) for w in who
            }
        theirs = {
            item: label for item, (label, _) in inference.infer(people, "dawid_skene", {}).items()
        }
        ours = _rows(Kind.NOMINAL, people, "dawid_skene")
        for item, by in people.items():
            expected = theirs[item] if len(by) >= 2 else None
            assert ours[item]["consensus"] == expected, (seed, item)
