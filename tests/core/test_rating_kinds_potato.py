"""The rating kinds (numbers, likert extras, rankings, matrices, packed sets) against
Potato 2.12.1 itself: its ``/admin/iaa`` JSON saved by the server that wrote the projects
(``tests/data/potato_server/ratings/``), and its own ``iaa/`` functions run on seeded
random answers, to 1e-9. Independent oracles are in ``test_rating_kinds_oracles.py``."""

from __future__ import annotations

import math
import random
import warnings

import pytest

from app.core.agreement.continuous.metrics import icc_2_k, mae, pearson_r, rmse
from app.core.agreement.continuous.ordinal import (
    spearman_rho,
    weighted_kappa_linear,
    weighted_kappa_quadratic,
)
from app.core.agreement.continuous.reading import read_number
from app.core.agreement.ranking.metrics import kendall_tau, spearman_footrule
from tests.core import rating_support as rs

NUMBER_TYPES = {"slider", "number", "vas", "confidence", "pairwise"}


def test_the_numbers_project_holds_every_type_in_the_shapes_its_widgets_send() -> None:
    types = {s["annotation_type"] for s in rs.config("numbers")["annotation_schemes"]}
    assert types == {"slider", "number", "vas", "confidence", "pairwise", "likert", "ranking",
                     "multirate", "constant_sum", "soft_label", "semantic_differential",
                     "range_slider", "hierarchical_multiselect", "card_sort"}
    alice = rs.entries("numbers")
    assert alice["relevance"]["alice"]["n00"] == [("slider", "0")]  # a stored 0
    assert alice["sure"]["bob"]["n01"][0][0] == "confidence_level"
    assert alice["prefer"]["bob"]["n01"][0][0] == "scale_value"
    assert alice["priorities"]["carol"]["n02"][0][0] == "rank_order"
    assert alice["taxon"]["alice"]["n04"][0][0] == "selected_labels"
    name, value = alice["features"]["alice"]["n00"][0]
    assert name == "features" and value.startswith('{"Keep":')  # JSON.stringify
    assert {n for n, _ in alice["tone"]["alice"]["n00"]} == {"Formal__Informal", "Warm__Cold"}
    assert {n for n, _ in alice["age"]["alice"]["n00"]} == {"range_low", "range_high"}
    # the rotating panel: every vas item answered by two of the three
    assert all(len({u for u in alice["pain"] if item in alice["pain"][u]}) == 2
               for item in alice["relevance"]["alice"])
    assert rs.scheme("bws", "funniest")["annotation_type"] == "bws"


@pytest.mark.parametrize("project", ["numbers", "bws", "machines"])
def test_every_scheme_equals_potatos_admin_iaa(project: str) -> None:
    """Headline (people only where machines are declared), every metric and count."""
    report = rs.expected(project)["schemas"]
    people = None if project != "machines" else {
        u for u in rs.states(project) if u not in rs.machines(project)}
    by_scheme = rs.entries(project, people)
    compared = 0
    for config in rs.config(project)["annotation_schemes"]:
        mine = rs.score(config, by_scheme[config["name"]])
        worst, problems = rs.differences(mine, report[config["name"]]["metrics"],
                                         config["name"])
        assert not problems, problems
        assert worst <= 1e-9
        compared += 1
    assert compared == len(report)


@pytest.mark.parametrize("partition", ["human_human", "machine_machine", "pooled"])
def test_machine_partitions_equal_potatos(partition: str) -> None:
    machines = rs.machines("machines")
    assert machines == {"llm_judge", "rule_bot"}  # Potato stamped their origin
    everyone = set(rs.states("machines"))
    users = {"human_human": everyone - machines, "machine_machine": machines,
             "pooled": everyone}[partition]
    report = rs.expected("machines")["partitions"][partition]["schemas"]
    by_scheme = rs.entries("machines", users)
    for config in rs.config("machines")["annotation_schemes"]:
        mine = rs.score(config, by_scheme[config["name"]])
        _, problems = rs.differences(mine, report[config["name"]]["metrics"], config["name"])
        assert not problems, problems


def test_the_rotating_panel_has_no_icc_and_says_why() -> None:
    mine = rs.score(rs.scheme("numbers", "pain"), rs.entries("numbers")["pain"])
    assert rs.expected("numbers")["schemas"]["pain"]["metrics"]["icc_2_k"] is None
    assert mine["icc_2_k"] is None and mine["n_aligned_items"] == 0
    assert mine["undefined"]["icc_2_k"] == (
        "no item was rated by all 3 annotators; ICC(2,k) needs the complete items × raters "
        "table")
    assert mine["pearson_r"] is not None  # the pairs still compare


# ---------------------------------------------------------------- Potato's own functions


def _same(ours: float | None, theirs: float) -> None:
    if math.isnan(theirs):
        assert ours is None
    else:
        assert ours is not None and abs(ours - theirs) <= 1e-9


def test_pair_metrics_equal_potatos_functions_on_random_answers() -> None:
    from potato.server_utils.iaa import continuous, ordinal

    rng = random.Random(37)
    for _ in range(300):
        n = rng.randint(1, 12)
        lo, hi = rng.randint(-3, 2), rng.randint(3, 9)
        a = [float(rng.randint(lo, hi)) for _ in range(n)]
        b = [float(min(hi, max(lo, x + rng.choice([-2, -1, 0, 0, 1])))) for x in a]
        if rng.random() < 0.1:
            b = [b[0]] * n  # constant: r and ρ undefined
        with warnings.catch_warnings():  # scipy and sklearn warn on the 0/0 cases
            warnings.simplefilter("ignore")
            theirs = [continuous.pearson_r(a, b), continuous.mae(a, b), continuous.rmse(a, b),
                      ordinal.weighted_kappa(a, b, "linear"),
                      ordinal.weighted_kappa(a, b, "quadratic"), ordinal.spearman_rho(a, b)]
        ours = [pearson_r(a, b), mae(a, b), rmse(a, b), weighted_kappa_linear(a, b),
                weighted_kappa_quadratic(a, b), spearman_rho(a, b)]
        for mine, potato in zip(ours, theirs, strict=True):
            _same(mine.value, potato)
            if mine.value is None:
                assert mine.reason


def test_icc_equals_potatos_including_its_undefined_cases() -> None:
    import numpy as np
    from potato.server_utils.iaa import continuous

    rng = np.random.default_rng(37)
    for _ in range(200):
        n, k = int(rng.integers(1, 9)), int(rng.integers(2, 6))
        table = rng.integers(0, 5, size=(n, k)).astype(float)
        if rng.random() < 0.1:
            table[:] = 2.0  # no variance: 0/0
        _same(icc_2_k(table).value, continuous.icc_2_k(table.tolist()))


def test_rankings_equal_potatos_functions_and_one_shared_option_is_a_sentence() -> None:
    from potato.server_utils.iaa import ranking

    rng = random.Random(38)
    options = list("ABCDEFG")
    for _ in range(400):
        a = rng.sample(options, rng.randint(1, 7))
        b = rng.sample(options, rng.randint(1, 7))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tau = ranking.kendall_tau(a, b)
        _same(kendall_tau(a, b).value, tau)
        _same(spearman_footrule(a, b).value, ranking.spearman_footrule(a, b))
    one = kendall_tau(["A", "B"], ["C", "A"])
    assert math.isnan(ranking.kendall_tau(["A", "B"], ["C", "A"]))
    assert one.value is None
    assert one.reason == "the two rankings share only one option (A); an order needs two"
    assert spearman_footrule(["A"], ["B"]).reason == "the two rankings share no option"


class State:
    """The one method of Potato's user state its gatherers call."""

    def __init__(self, labels: dict[str, dict[str, object]]) -> None:
        self.labels = labels

    def get_label_annotations(self, iid: str) -> dict[str, object] | None:
        return self.labels.get(iid)


def test_number_reader_equals_potatos_gathering() -> None:
    """First number per annotator, a stored 0 kept, pairwise scale packed."""
    from potato.server_utils.iaa.dispatcher import _gather_labels

    cases: list[tuple[dict[str, object], list[tuple[str, object]]]] = [
        ({"annotation_type": "slider", "name": "s"}, [("slider", "0")]),
        ({"annotation_type": "slider", "name": "s"}, [("slider", "73")]),
        ({"annotation_type": "slider", "name": "s"}, [("5", "5")]),
        ({"annotation_type": "number", "name": "s"}, [("number", "5"), ("number", "7")]),
        ({"annotation_type": "vas", "name": "s"}, [("s", 0)]),
        ({"annotation_type": "vas", "name": "s"}, [("s", "")]),
        ({"annotation_type": "vas", "name": "s"}, [("x", "abc")]),
        ({"annotation_type": "confidence", "scale_type": "slider", "name": "s"},
         [("confidence_level", "70")]),
        ({"annotation_type": "pairwise", "mode": "scale", "name": "s"}, [("scale_value", -2)]),
        ({"annotation_type": "pairwise", "mode": "scale", "name": "s"}, [("scale_value", "0")]),
        ({"annotation_type": "slider", "name": "s"}, [("a", "3"), ("4", "4")]),
    ]
    for config, stored in cases:
        state = State({"i": {"s": dict(stored)}})
        rows = _gather_labels(["i"], {"u": state, "v": state}, "s", numeric=True,
                              scheme=config)
        theirs = rows["i"]["u"][0] if rows else None
        assert read_number(config, stored) == theirs, (config, stored)


def test_packed_and_matrix_readers_equal_potatos_unpackers() -> None:
    """Rankings, taxonomies, card sorts and matrices read as Potato's dispatcher reads
    them, on the shapes its widgets store and on broken ones."""
    from potato.server_utils.iaa.dispatcher import packed_answer

    from app.core.agreement.matrix.block import read_matrix
    from app.core.agreement.multilabel.packed import read_packed_set
    from app.core.agreement.ranking.metrics import read_ranking

    rankings: list[list[tuple[str, object]]] = [
        [("rank_order", "A,B,C")], [("rank_order", " A , ,B")], [("rank_order", "")],
        [("rank_order", ["B", "A"])], [("other", "A,B")], [("rank_order", "A,A,B")]]
    for stored in rankings:
        theirs = packed_answer({"annotation_type": "ranking"}, dict(stored))
        assert read_ranking(stored) == (tuple(theirs) if theirs else None), stored
    taxonomies: list[list[tuple[str, object]]] = [
        [("selected_labels", "Dog,Cat")], [("selected_labels", "")],
        [("selected_labels", "Dog, Dog ,Owl")]]
    config = {"annotation_type": "hierarchical_multiselect", "name": "t"}
    for stored in taxonomies:
        theirs = packed_answer(config, dict(stored))
        assert read_packed_set(config, stored) == (frozenset(theirs) if theirs else None)
    sort = {"annotation_type": "card_sort", "name": "s"}
    for raw in ['{"Keep":["a","b"],"Drop":[]}', '{"Keep":"a"}', "not json", "[1, 2]",
                {"Keep": ["a"], "Later": ["b", "c"]}]:
        theirs = packed_answer(sort, {"s": raw})
        assert read_packed_set(sort, [("s", raw)]) == (frozenset(theirs) if theirs else None)
    from potato.server_utils.iaa.dispatcher import _gather_matrix

    for stored in ([("Urgency", "High"), ("Impact", "")], [("a", None), ("b", 0)],
                   [("range_low", "20"), ("range_high", "60")], [("x", "")]):
        state = State({"i": {"m": dict(stored)}})
        rows = _gather_matrix(["i"], {"u": state, "v": state}, "m")
        assert read_matrix(stored) == (rows["i"]["u"] if rows else None), stored
