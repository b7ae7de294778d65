"""Volumes written by the real Potato 2.12.1 server (``tests/potato_real/volume_projects.py``):
Accord's report equals Potato's ``/admin/iaa`` (``expected/iaa.json``) and Potato's own
``iaa/volume_agreement.py`` on the stored values; per comparison, Dice equals Potato's
``volume_masks.dice`` on its own decoded volumes, ``1 − scipy.spatial.distance.dice`` and
SimpleITK's ``LabelOverlapMeasuresImageFilter`` (kinds.md B §2.7, §3; A.5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.agreement.report import agreement_report
from app.core.formats.potato.project import load_study
from app.core.model import VolumeMasks
from app.core.progress import run
from app.report.agreement_export import render_csv
from app.report.agreement_html import render_html
from app.report.agreement_text import render as render_text

ROOT = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "volumes"
EXPECTED = json.loads((ROOT / "expected" / "iaa.json").read_text())["schemas"]
LABELS = ("Liver", "Lesion", "Cyst")


@pytest.fixture(scope="module")
def report() -> Any:
    return run(agreement_report(load_study(ROOT), project="volumes"))


def _stored() -> dict[str, dict[str, Any]]:
    """``{item: {user: {"_data": …}}}`` straight from the user_state.json files, as
    Potato's ``_gather_raw`` hands them to ``volume_report``."""
    rows: dict[str, dict[str, Any]] = {}
    for path in sorted(ROOT.glob("annotation_output/*/user_state.json")):
        state = json.loads(path.read_text())
        for item, entries in state["instance_id_to_label_to_value"].items():
            for key, value in entries:
                if key["schema"] == "organs":
                    rows.setdefault(item, {}).setdefault(state["user_id"], {})[
                        key["name"]] = value
    return rows


def test_equal_to_potato_admin_iaa_and_its_own_function(report: Any) -> None:
    from potato.server_utils.iaa.volume_agreement import volume_report

    result = report.schemes["organs"]
    expected = EXPECTED["organs"]["metrics"]
    own = volume_report(_stored(), {"labels": list(LABELS)})
    assert own == expected
    assert result.kind == "volumes" and EXPECTED["organs"]["kind"] == "volume"
    potato = result.extra["potato_iaa"]
    assert potato["mean_dice"] == expected["mean_dice"]
    assert potato["dice_by_label"] == expected["dice_by_label"]
    assert potato["n_items"] == expected["n_items"] == result.n_items == 4
    assert result.extra["n_pairs_by_label"] == expected["n_pairs_by_label"]
    for label in LABELS:  # exact, and Potato's is the same number rounded
        exact = result.metrics[f"dice_by_label.{label}"]
        assert round(exact, 4) == expected["dice_by_label"][label]
        assert exact != expected["dice_by_label"][label]  # so the note is due
    assert round(result.metrics["mean_dice"], 4) == pytest.approx(expected["mean_dice"],
                                                                  abs=1e-4)
    assert any("rounds mean_dice" in n for n in result.notes)
    # v04: carol's answer is on another shape, the item is skipped and counted
    assert result.coverage["n_items_different_shapes"] == 1
    # Cyst unpainted on v00-v02 (3 pairs each) and Lesion by carol on v01: both-empty
    # pairs are left out and counted, never 1.0
    assert result.extra["n_pairs_both_empty"] == {"Liver": 0, "Lesion": 0, "Cyst": 9}
    assert result.extra["n_pairs_by_label"]["Lesion"] == 12  # carol's empty Lesion is 0


def test_every_comparison_equals_potato_scipy_and_simpleitk(report: Any) -> None:
    import SimpleITK as sitk  # noqa: N813 - the package's own usual alias
    from potato.media.volume_masks import dice, label_volume
    from scipy.spatial.distance import dice as scipy_dice

    agreement = report.schemes["organs"].details
    stored = _stored()
    seen = 0
    for c in agreement.comparisons:
        vols = {who: label_volume(json.loads(stored[c.item][who]["_data"]),
                                  json.loads(stored[c.item][who]["_data"])["shape"], c.label)
                for who in (c.a, c.b)}
        a, b = vols[c.a], vols[c.b]
        assert c.dice == dice(a, b)
        if c.dice is None:
            assert not a.any() and not b.any()
            continue
        assert c.dice == pytest.approx(1 - scipy_dice(a.ravel(), b.ravel()), abs=1e-15)
        overlap = sitk.LabelOverlapMeasuresImageFilter()
        overlap.Execute(sitk.GetImageFromArray(a.astype(np.uint8)),
                        sitk.GetImageFromArray(b.astype(np.uint8)))
        assert c.dice == pytest.approx(overlap.GetDiceCoefficient(1), abs=1e-15)
        seen += 1
    assert seen == 4 * 3 * 3 - 9


def test_answers_read_as_potato_stored_them(report: Any) -> None:
    from potato.media.volume_masks import label_volume

    study = load_study(ROOT)
    answer = study.answers_for("organs")["v03"]["bob"]
    assert isinstance(answer, VolumeMasks) and answer.shape == (32, 24, 12)
    raw = json.loads(_stored()["v03"]["bob"]["_data"])
    for label in LABELS:
        vol = label_volume(raw, raw["shape"], label)
        assert sorted(answer.masks.get(label, {})) == [k for k in range(12)
                                                         if vol[:, :, k].any()]


def test_the_reports_name_the_kind_and_its_pairs(report: Any) -> None:
    text = render_text(report)
    assert "organs  (volume_annotation → volumes)" in text
    assert "mean Dice (over labels)" in text and "mean Dice  0." in text
    assert "organs,volumes,scheme,,mean_dice," in render_csv(report)
    assert "Dice" in render_html(report)
    data = report.to_json()["schemes"]["organs"]
    assert set(data["pairs"]) == {"alice|bob", "alice|carol", "bob|carol"}
    assert all(p["n_items"] == 4 for p in data["pairs"].values())


@pytest.mark.parametrize("who", [None, "carol"])
def test_item_scores_are_each_items_pair_dice(report: Any, who: str | None) -> None:
    """The items view's score: per pair the mean Dice over the labels with a value
    (Potato's ``dice`` on its own decoded volumes), then the mean over the item's pairs
    (those with ``who`` when filtered)."""
    from itertools import combinations

    from potato.media.volume_masks import dice, label_volume

    from app.core.agreement.item_scores import item_scores

    scores = item_scores(report.schemes["organs"], who)
    assert scores is not None
    stored = _stored()
    expected: dict[str, float] = {}
    for item in sorted(stored):
        raw = {u: json.loads(v["_data"]) for u, v in stored[item].items()}
        if len({tuple(a["shape"]) for a in raw.values()}) != 1:
            continue  # v04: on two shapes, skipped
        pair_means = []
        for a, b in combinations(sorted(raw), 2):
            if who is not None and who not in (a, b):
                continue
            values = [d for label in LABELS if (d := dice(
                label_volume(raw[a], raw[a]["shape"], label),
                label_volume(raw[b], raw[b]["shape"], label))) is not None]
            if values:
                pair_means.append(sum(values) / len(values))
        expected[item] = sum(pair_means) / len(pair_means)
    assert list(scores.items) == sorted(expected)
    for item, score in zip(scores.items, scores.score, strict=True):
        assert score == pytest.approx(expected[item], abs=1e-12)
    assert all(n == (2 if who else 3) for n in scores.n_pairs)
