"""Per annotator pair numbers of the continuous and ranking kinds (the report's ``pairs``,
the overview's pair matrix) against Potato 2.12.1's own code, pair by pair.

The oracle: Potato's dispatcher gathers the pair's answers (``_gather_labels`` on the two
annotators' stored states) and aggregates them (``_aggregate_continuous``,
``_aggregate_ranking``); over one pair its mean over pairs is that pair's number, and NaN
where Potato skips or cannot score the pair (Accord: ``null`` with a sentence).
"""

from __future__ import annotations

import math
import random
import warnings
from itertools import combinations
from typing import Any

import pytest

from app.core.agreement.continuous.metrics import mae, pearson_r, rmse
from app.core.agreement.continuous.pairs import pair_entries
from app.core.agreement.ranking.metrics import kendall_tau, spearman_footrule
from app.core.agreement.report import agreement_report
from app.core.formats.potato.project import load_study
from app.core.progress import run
from tests.core import rating_support as rs

CONTINUOUS = {"pearson_r": pearson_r, "mae": mae, "rmse": rmse}
RANKING = {"kendall_tau": kendall_tau, "spearman_footrule": spearman_footrule}


class State:
    """The one method of Potato's user state its gatherers call."""

    def __init__(self, labels: dict[str, dict[str, object]]) -> None:
        self.labels = labels

    def get_label_annotations(self, iid: str) -> dict[str, object] | None:
        return self.labels.get(iid)


def _potato_pair(config: dict[str, Any], by_user: dict[str, dict[str, Any]], a: str, b: str
                 ) -> dict[str, Any]:
    """Potato's block for the two annotators ``a`` and ``b`` alone."""
    from potato.server_utils.iaa.dispatcher import (
        _aggregate_continuous,
        _aggregate_ranking,
        _gather_labels,
    )

    name = config["name"]
    states = {u: State({i: {name: dict(e)} for i, e in by_user[u].items()}) for u in (a, b)}
    items = sorted(set(by_user[a]) | set(by_user[b]))
    ranking = config["annotation_type"] == "ranking"
    rows = _gather_labels(items, states, name, numeric=not ranking, scheme=config)
    with warnings.catch_warnings():  # scipy warns on the 0/0 cases
        warnings.simplefilter("ignore")
        out: dict[str, Any] = (_aggregate_ranking if ranking else _aggregate_continuous)(rows)
    return out


def _same(ours: float | None, theirs: float, where: str) -> None:
    if math.isnan(theirs):
        assert ours is None, where
    else:
        assert ours is not None and abs(ours - theirs) <= 1e-9, (where, ours, theirs)


@pytest.fixture(scope="module")
def numbers_report() -> Any:
    return run(agreement_report(load_study(rs.ROOT / "numbers"), project="numbers"))


@pytest.mark.parametrize("scheme", ["count", "pain", "sure", "prefer", "priorities"])
def test_pairs_equal_potatos_on_the_project_its_server_wrote(numbers_report: Any,
                                                            scheme: str) -> None:
    config = rs.scheme("numbers", scheme)
    by_user = rs.entries("numbers")[scheme]
    result = numbers_report.schemes[scheme]
    metrics = RANKING if config["annotation_type"] == "ranking" else CONTINUOUS
    assert len(result.pairs) == 3  # alice, bob, carol: every pair shares items
    for a, b in combinations(sorted(by_user), 2):
        theirs = _potato_pair(config, by_user, a, b)
        entry = result.pairs[f"{a}|{b}"]
        assert entry["n_items"] == theirs["n_items"] >= 2
        for metric in metrics:
            _same(entry[metric], theirs[metric], f"{scheme} {a}|{b} {metric}")
            assert entry[metric] is not None
    # the mean over pairs of each pair's number is Potato's scheme number (continuous)
    if metrics is CONTINUOUS:
        for metric in metrics:
            values = [float(p[metric]) for p in result.pairs.values()]
            assert abs(sum(values) / len(values) - result.metrics[metric]) <= 1e-9
    json = numbers_report.to_json()["schemes"][scheme]
    assert json["pairs"] == result.pairs and "pair_undefined" not in json


def _random_rows(rng: random.Random, ranking: bool) -> dict[str, dict[str, Any]]:
    """item → annotator → answer, with sparse coverage (pairs sharing 0, 1 or more
    items) and, sometimes, an annotator who gives one number throughout."""
    users = [f"u{k}" for k in range(rng.randint(2, 5))]
    constant = {u: float(rng.randint(0, 3)) for u in users if rng.random() < 0.2}
    rows: dict[str, dict[str, Any]] = {}
    for i in range(rng.randint(1, 9)):
        by: dict[str, Any] = {}
        for u in users:
            if rng.random() < 0.55:
                if ranking:
                    by[u] = tuple(rng.sample("ABCDE", rng.randint(1, 5)))
                else:
                    by[u] = constant.get(u, float(rng.randint(0, 6)))
        if len(by) >= 2:
            rows[f"i{i}"] = by
    return rows


@pytest.mark.parametrize("ranking", [False, True])
def test_pairs_equal_potatos_on_random_answers(ranking: bool) -> None:
    rng = random.Random(4242 + ranking)
    metrics = RANKING if ranking else CONTINUOUS
    config = ({"name": "s", "annotation_type": "ranking"} if ranking
              else {"name": "s", "annotation_type": "number"})
    seen = {"defined": 0, "undefined": 0, "absent": 0}
    for _ in range(300):
        rows = _random_rows(rng, ranking)
        entries, reasons = pair_entries(rows, metrics, per_item=ranking)
        by_user: dict[str, dict[str, Any]] = {}
        for item, by in rows.items():
            for u, v in by.items():
                stored = [("rank_order", ",".join(v))] if ranking else [("number", str(v))]
                by_user.setdefault(u, {})[item] = stored
        for a, b in combinations(sorted(by_user), 2):
            theirs = _potato_pair(config, by_user, a, b)
            key = f"{a}|{b}"
            if key not in entries:
                assert theirs["n_items"] == 0
                seen["absent"] += 1
                continue
            assert entries[key]["n_items"] == theirs["n_items"]
            for metric in metrics:
                _same(entries[key][metric], theirs[metric], f"{key} {metric}")
                if entries[key][metric] is None:
                    assert reasons[key][metric]  # a sentence, never a blank
                    seen["undefined"] += 1
                else:
                    assert metric not in reasons.get(key, {})
                    seen["defined"] += 1
    assert min(seen.values()) > 20  # every case was met


def test_an_undefined_pair_is_null_with_its_sentence() -> None:
    rows = {"i0": {"a": 1.0, "b": 2.0, "c": 5.0}, "i1": {"a": 3.0, "b": 2.0},
            "i2": {"a": 4.0, "b": 2.0}}
    entries, reasons = pair_entries(rows, CONTINUOUS, per_item=False)
    assert entries["a|c"] == {"pearson_r": None, "mae": None, "rmse": None, "n_items": 1}
    assert "shares one item" in reasons["a|c"]["pearson_r"]
    assert entries["a|b"]["pearson_r"] is None  # b gave 2 throughout
    assert entries["a|b"]["mae"] == pytest.approx((1 + 1 + 2) / 3, abs=1e-12)
    assert reasons["a|b"] == {"pearson_r": "one of the two gave the same number on every "
                                           "shared item, so r is 0/0"}
    ranks = {"i0": {"a": ("A", "B"), "b": ("C", "A")}}
    entries, reasons = pair_entries(ranks, RANKING, per_item=True)
    assert entries["a|b"]["kendall_tau"] is None
    assert "share only one option (A)" in reasons["a|b"]["kendall_tau"]
