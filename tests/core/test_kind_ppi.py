"""The ``ppi`` contract kind: reference vector, states, ``by``, Horvitz–Thompson routing.

Oracles: the ppi reference vector of ``reference-vectors.json`` (ppi-python 0.2.3) through
``evaluate_ppi``; the tested primitives of ``app.core.contracts.statistics.ppi`` on the same data
for groups and multilabel schemes; a hand computation of the Horvitz–Thompson example.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from app.core.contracts.config.contract_specs import ContractKind, ContractSpec
from app.core.contracts.kinds.base import HumanLabel, MachineLabel, SchemaData
from app.core.contracts.kinds.ppi import HORVITZ_THOMPSON, MIN_LABELS, PPI_PLUS_PLUS, evaluate_ppi
from app.core.contracts.labels.machine_labels import delivered_labels
from app.core.contracts.statistics.ppi import (
    horvitz_thompson_difference,
    power_tuned_lambda,
    ppi_mean,
    ppi_prevalence,
)
from app.core.model import Answer, Kind, Scheme
from tests.reference import reference_vectors

RADIO = Scheme("verdict", "radio", Kind.NOMINAL, labels=("0", "1"))
SLIDER = Scheme("score", "slider", Kind.ORDINAL, scale=("0", "1"))
TAGS = Scheme("tags", "multiselect", Kind.MULTILABEL, labels=("a", "b", "c"))


def spec(**params: Any) -> ContractSpec:
    base = {"estimand": "prevalence", "by": None, "confidence": 0.9, "max_width": None}
    base.update(params)
    return ContractSpec("prev", ContractKind.PPI, "verdict", MappingProxyType(base))


def schema_data(scheme: Scheme, machine: Mapping[str, Answer],
                dev: Mapping[str, Sequence[tuple[str, Answer, float]]],
                dev_fraction: float = 0.5, fields: Mapping[str, Mapping[str, Any]] | None = None,
                tiers: Mapping[str, Mapping[str, Answer]] | None = None) -> SchemaData:
    """One tier ``m`` predicting ``machine`` (or several ``tiers``); dev (who, label, pi)."""
    predictions = {name: {i: MachineLabel(label, 0.9) for i, label in preds.items()}
                   for name, preds in (tiers or {"m": machine}).items()}
    items = sorted(set().union(*[set(p) for p in predictions.values()], set(dev)))
    return SchemaData(
        scheme=scheme, tiers=tuple(predictions), items=tuple(items),
        predictions=predictions,
        dev={i: tuple(HumanLabel(who, label, pi) for who, label, pi in people)
             for i, people in dev.items()},
        cert={}, dev_fraction=dev_fraction, item_fields=fields or {})


def reference_data(scheme: Scheme = RADIO) -> SchemaData:
    ref = reference_vectors()["ppi_mean"]
    machine: dict[str, Answer] = {}
    dev: dict[str, list[tuple[str, Answer, float]]] = {}
    for k, (y, yhat) in enumerate(zip(ref["Y"], ref["Yhat"], strict=True)):
        machine[f"l{k:02d}"] = str(yhat)
        dev[f"l{k:02d}"] = [("ann", str(y), 0.3)]
    for k, yhat in enumerate(ref["Yhat_unlabeled"]):
        machine[f"u{k:02d}"] = str(yhat)
    return schema_data(scheme, machine, dev)


def test_the_reference_vector_through_evaluate_ppi() -> None:
    ref = reference_vectors()["ppi_mean"]["ppi_plus_plus"]
    out = evaluate_ppi(spec(), reference_data())
    assert out.state == "met" and out.tested is False and out.accepts is None
    one = out.result["estimates"]["1"]
    assert one["estimate"] == pytest.approx(ref["estimate"], abs=1e-6)
    assert one["interval"] == pytest.approx(ref["interval"], abs=1e-6)
    zero = out.result["estimates"]["0"]
    assert zero["estimate"] == pytest.approx(1 - ref["estimate"], abs=1e-9)
    details = out.result["details"]
    assert details["method"] == PPI_PLUS_PLUS
    assert details["lambda"] == pytest.approx(ref["lambda"], abs=1e-9)
    assert (details["n_labelled"], details["n_unlabelled"]) == (10, 20)


def test_the_reference_vector_as_a_mean() -> None:
    ref = reference_vectors()["ppi_mean"]["ppi_plus_plus"]
    out = evaluate_ppi(spec(estimand="mean"), reference_data(SLIDER))
    assert out.state == "met"
    assert set(out.result["estimates"]) == {"mean"}
    assert out.result["estimates"]["mean"]["estimate"] == pytest.approx(ref["estimate"])
    assert out.result["estimates"]["mean"]["interval"] == pytest.approx(ref["interval"])


def test_max_width_met_and_insufficient_with_a_projection() -> None:
    ref = reference_vectors()["ppi_mean"]["ppi_plus_plus"]
    width = ref["interval"][1] - ref["interval"][0]  # 0.429133
    assert evaluate_ppi(spec(max_width=0.5), reference_data()).state == "met"
    out = evaluate_ppi(spec(max_width=0.2), reference_data())
    assert out.state == "insufficient"
    needed = math.ceil(10 * (width / 0.2) ** 2)  # 47: width shrinks as 1/√n
    assert needed == 47
    assert out.result["projection"] == {"dev_labels_needed": 47, "more_dev_labels": 37,
                                        "requests_needed": 74}


def test_pending_without_dev_labels() -> None:
    data = schema_data(RADIO, {"a": "1", "b": "0"}, {})
    out = evaluate_ppi(spec(), data)
    assert out.state == "pending" and out.result["estimates"] == {}


def test_too_few_labels_is_insufficient_with_the_labels_still_needed() -> None:
    machine = {f"i{k}": "1" if k % 2 else "0" for k in range(30)}
    dev = {f"i{k}": [("ann", "1" if k % 3 else "0", 0.2)] for k in range(5)}
    out = evaluate_ppi(spec(), schema_data(RADIO, machine, dev))
    assert out.state == "insufficient"
    assert out.result["projection"] == {"dev_labels_needed": MIN_LABELS,
                                        "more_dev_labels": MIN_LABELS - 5,
                                        "requests_needed": 10}
    assert out.result["estimates"]["1"]["interval"] is not None  # shown, not a result yet


def test_unequal_inclusion_probabilities_route_to_horvitz_thompson_by_hand() -> None:
    """The hand example of the primitive's tests: π = 0.5, 0.25, 0.8 = pi · 0.8.

    Machine [1, 0, 1, 1, 0, 0]; people on items 0, 1, 4 say 1, 1, 1. For class 1,
    Σz = 3 + 0/0.5 + 1/0.25 + 1/0.8 = 8.25, estimate 1.375; N²·se² = 12.3125.
    """
    machine = dict(zip("abcdef", ["1", "0", "1", "1", "0", "0"], strict=True))
    dev = {"a": [("p", "1", 0.625)], "b": [("p", "1", 0.3125)], "e": [("p", "1", 1.0)]}
    out = evaluate_ppi(spec(), schema_data(RADIO, machine, dev, dev_fraction=0.8))
    assert out.result["details"]["method"] == HORVITZ_THOMPSON
    one = out.result["estimates"]["1"]
    se = math.sqrt(12.3125) / 6
    z90 = 1.6448536269514722
    assert one["estimate"] == pytest.approx(1.375, abs=1e-12)
    assert one["interval"] == pytest.approx([1.375 - z90 * se, 1.375 + z90 * se], abs=1e-9)
    assert out.result["estimates"]["0"]["estimate"] == pytest.approx(-0.375, abs=1e-12)
    assert out.state == "insufficient"  # 3 labels, fewer than MIN_LABELS


def test_horvitz_thompson_matches_the_primitive_on_a_larger_sample() -> None:
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 2, 200)
    guess = np.where(rng.random(200) < 0.8, truth, 1 - truth)
    pi = np.where(guess == 1, 0.6, 0.2)
    drawn = rng.random(200) < pi
    machine = {f"i{k:03d}": str(guess[k]) for k in range(200)}
    dev = {f"i{k:03d}": [("p", str(truth[k]), float(pi[k]))] for k in range(200) if drawn[k]}
    out = evaluate_ppi(spec(max_width=0.5), schema_data(RADIO, machine, dev, 1.0))
    assert out.result["details"]["method"] == HORVITZ_THOMPSON
    expected = horvitz_thompson_difference(guess.astype(float), truth[drawn].astype(float),
                                           guess[drawn].astype(float), pi[drawn], 0.9)
    assert out.result["estimates"]["1"]["estimate"] == pytest.approx(expected.estimate)
    assert out.result["estimates"]["1"]["interval"] == pytest.approx(expected.interval)
    assert out.state == "met"


def test_by_estimates_each_group_with_its_own_lambda() -> None:
    rng = np.random.default_rng(11)
    machine: dict[str, Answer] = {}
    dev: dict[str, list[tuple[str, Answer, float]]] = {}
    fields: dict[str, dict[str, Any]] = {}
    per_group: dict[str, tuple[list[str], list[str], list[str]]] = {
        "en": ([], [], []), "fr": ([], [], [])}
    for k in range(120):
        item = f"i{k:03d}"
        lang = "en" if k % 2 else "fr"
        truth = str(int(rng.random() < (0.7 if lang == "en" else 0.3)))
        accuracy = 0.9 if lang == "en" else 0.6
        guess = truth if rng.random() < accuracy else str(1 - int(truth))
        machine[item] = guess
        fields[item] = {"language": lang}
        ys, yh, yu = per_group[lang]
        if k < 60:
            dev[item] = [("p", truth, 0.5)]
            ys.append(truth)
            yh.append(guess)
        else:
            yu.append(guess)
    data = schema_data(RADIO, machine, dev, fields=fields)
    out = evaluate_ppi(spec(by="language"), data)
    assert out.state == "met"
    assert set(out.result["estimates"]) == {"en", "fr"}
    lams = []
    for lang, (ys, yh, yu) in per_group.items():
        expected = ppi_prevalence(ys, yh, yu, ["0", "1"], 0.9)
        got = out.result["estimates"][lang]
        for label in ("0", "1"):
            assert got[label]["estimate"] == pytest.approx(expected.by_class[label].estimate)
            assert got[label]["interval"] == pytest.approx(
                list(expected.by_class[label].interval or ()))
        assert out.result["details"][lang]["lambda"] == pytest.approx(expected.lam)
        lams.append(expected.lam)
    assert lams[0] != pytest.approx(lams[1])


def test_a_by_group_without_labels_keeps_the_contract_insufficient() -> None:
    base = reference_data()
    fields = {item: {"language": "en"} for item in base.items}
    machine = {item: base.predictions["m"][item].label for item in base.items}
    machine["z"] = "1"
    fields["z"] = {"language": "de"}
    fields["u00"] = {}  # no field: in no group
    dev = {i: [(h.annotator, h.label, h.pi) for h in hs] for i, hs in base.dev.items()}
    out = evaluate_ppi(spec(by="language"), schema_data(RADIO, machine, dev, fields=fields))
    assert out.state == "insufficient"
    assert out.result["estimates"]["de"] == {}
    assert out.result["projection"]["de"]["more_dev_labels"] == MIN_LABELS
    assert "en" not in out.result["projection"]
    assert any("no field 'language'" in note for note in out.notes)


def test_several_people_use_the_first_label_listed() -> None:
    base = reference_data()
    machine = {item: base.predictions["m"][item].label for item in base.items}
    dev = {i: [(h.annotator, h.label, h.pi), ("other", "0", h.pi)]
           for i, hs in base.dev.items() for h in hs[:1]}
    out = evaluate_ppi(spec(), schema_data(RADIO, machine, dev))
    ref = reference_vectors()["ppi_mean"]["ppi_plus_plus"]
    assert out.result["estimates"]["1"]["estimate"] == pytest.approx(ref["estimate"])


def test_the_first_tier_with_a_prediction_is_the_machine_label() -> None:
    tiers = {"cheap": {"a": "1"}, "big": {"a": "0", "b": "0"}}
    data = schema_data(RADIO, {}, {"a": [("p", "1", 0.5)]}, tiers=tiers)
    assert {i: (t, m.label) for i, (t, m) in delivered_labels(data).items()} == {
        "a": ("cheap", "1"), "b": ("big", "0")}


def test_multilabel_prevalences_share_one_lambda() -> None:
    rng = np.random.default_rng(3)
    labels = ("a", "b", "c")
    machine: dict[str, Answer] = {}
    dev: dict[str, list[tuple[str, Answer, float]]] = {}
    for k in range(80):
        truth = frozenset(x for x in labels if rng.random() < 0.4)
        guess = frozenset(x for x in labels if (x in truth) != (rng.random() < 0.2))
        machine[f"i{k:02d}"] = guess
        if k < 30:
            dev[f"i{k:02d}"] = [("p", truth, 0.5)]
    out = evaluate_ppi(spec(), schema_data(TAGS, machine, dev))
    items = sorted(machine)

    def rows(answers: list[Answer]) -> npt.NDArray[np.float64]:
        return np.asarray([[x in a for x in labels] for a in answers
                           if isinstance(a, frozenset)], dtype=np.float64)

    ym = rows([dev[i][0][1] for i in items if i in dev])
    yh = rows([machine[i] for i in items if i in dev])
    yu = rows([machine[i] for i in items if i not in dev])
    lam, _ = power_tuned_lambda(ym, yh, yu)
    assert out.result["details"]["lambda"] == pytest.approx(lam)
    for j, x in enumerate(labels):
        expected = ppi_mean(ym[:, j], yh[:, j], yu[:, j], 0.9, lam=lam)
        assert out.result["estimates"][x]["estimate"] == pytest.approx(expected.estimate)
        assert out.result["estimates"][x]["interval"] == pytest.approx(
            list(expected.interval or ()))


def test_an_undefined_interval_is_none_with_a_reason_never_nan() -> None:
    machine = {f"i{k:02d}": "1" for k in range(30)}
    dev = {f"i{k:02d}": [("p", "1", 0.5)] for k in range(12)}
    out = evaluate_ppi(spec(), schema_data(RADIO, machine, dev))
    assert out.result["estimates"]["1"]["interval"] is None
    assert out.state == "insufficient"
    assert "projection" not in out.result
    assert any("interval undefined" in note for note in out.notes)
