"""Confusion matrices against a brute-force count over the raw answers.

The oracle walks the answer dictionaries (item → annotator → value) with plain loops and
never sees the coded units; the hand case checks the two forms' definitions.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from app.core.agreement.categorical.confusion import annotator_pairs, confusion
from app.core.agreement.categorical.units import Row, code_rows
from app.core.agreement.report import coded_units
from app.core.progress import run
from app.core.project import open_project
from app.paths import demo_studies


def _rows(answers: dict[str, dict[str, str]]) -> list[Row]:
    return [(item, "", by) for item, by in sorted(answers.items())]


def test_a_hand_made_pair_and_the_pooled_matrix() -> None:
    answers = {"i1": {"ana": "pos", "bo": "pos", "cy": "neg"},
               "i2": {"ana": "neg", "bo": "pos"},
               "i3": {"ana": "neg", "cy": "neg"}}
    units = code_rows(_rows(answers))
    assert units.values == ("neg", "pos")
    ab = confusion(units, ("ana", "bo"))
    # rows ana, columns bo: i1 pos/pos, i2 neg/pos
    assert ab.counts.tolist() == [[0, 1], [0, 1]]
    assert ab.items_in(0, 1) == ("i2",) and ab.items_in(1, 1) == ("i1",)
    assert ab.n_pair_units == 2 and ab.n_disagreeing == 1
    pooled = confusion(units)
    # pair-units: i1 ana-bo pos/pos, ana-cy pos/neg, bo-cy pos/neg; i2 neg/pos; i3 neg/neg
    # Each counted in both orders, agreeing or not: pos/pos and neg/neg add 2 each to
    # their diagonal cell, as the three neg/pos pairs add 3 to each mirror cell.
    assert pooled.n_pair_units == 5
    assert pooled.counts.tolist() == [[2, 3], [3, 2]]
    assert int(pooled.counts.sum()) == 2 * pooled.n_pair_units
    assert pooled.n_disagreeing == 3
    assert [pooled.pairs_in(0, 0), pooled.pairs_in(0, 1), pooled.pairs_in(1, 1)] == [1, 3, 1]
    assert ab.pairs_in(1, 1) == 1
    assert pooled.items_in(0, 1) == ("i1", "i2") == pooled.items_in(1, 0)
    assert annotator_pairs(units) == [("ana", "bo"), ("ana", "cy"), ("bo", "cy")]


def _brute(answers: dict[str, dict[str, object]], values: tuple[object, ...],
           pair: tuple[str, str] | None) -> tuple[Counter[tuple[int, int]], dict]:
    index = {v: k for k, v in enumerate(values)}
    counts: Counter[tuple[int, int]] = Counter()
    items: dict[tuple[int, int], set[str]] = {}
    for item, by in answers.items():
        names = sorted(by)
        pairs = [pair] if pair else list(combinations(names, 2))
        for a, b in pairs:
            if a not in by or b not in by:
                continue
            cells = [(index[by[a]], index[by[b]])]
            if pair is None:  # both orders, whether the two agree or not
                cells.append((index[by[b]], index[by[a]]))
            for cell in cells:
                counts[cell] += 1
                items.setdefault(cell, set()).add(item)
    return counts, items


@pytest.mark.parametrize("seed", range(20))
def test_random_studies_equal_the_brute_force_count(seed: int) -> None:
    rng = random.Random(seed)
    names = [f"a{k}" for k in range(rng.randint(2, 5))]
    labels = ["x", "y", "z"][: rng.randint(2, 3)]
    answers: dict[str, dict[str, object]] = {}
    for i in range(rng.randint(1, 40)):
        by = {a: rng.choice(labels) for a in names if rng.random() < 0.7}
        if by:
            answers[f"item{i:02d}"] = by
    units = code_rows(_rows(answers))  # type: ignore[arg-type]
    for pair in [None, *annotator_pairs(units)]:
        got = confusion(units, pair)
        counts, items = _brute(answers, units.values, pair)
        expected = np.zeros_like(got.counts)
        for (r, c), k in counts.items():
            expected[r, c] = k
        assert got.counts.tolist() == expected.tolist()
        assert got.cell_items == {cell: tuple(sorted(s)) for cell, s in items.items()}


def test_the_support_triage_demo_equals_the_brute_force_count() -> None:
    project = run(open_project(demo_studies()["support_triage"]))
    scheme = project.study.schemes["resolution"]
    units = coded_units(project.study, scheme)
    answers = {item: {a: units.values[units.codes[k, j]]
                      for j, a in enumerate(units.annotators) if units.codes[k, j] >= 0}
               for k, item in enumerate(units.unit_items)}
    raw = project.study.answers_for("resolution")
    assert set(answers) <= set(raw)
    got = confusion(units)
    counts, _ = _brute(answers, units.values, None)
    assert int(got.counts.sum()) == sum(counts.values()) == 2 * got.n_pair_units
    assert got.n_pair_units == sum(len(by) * (len(by) - 1) // 2 for by in answers.values())


def test_an_unknown_annotator_is_named() -> None:
    units = code_rows(_rows({"i1": {"ana": "a", "bo": "b"}}))
    with pytest.raises(KeyError, match="zed"):
        confusion(units, ("ana", "zed"))
