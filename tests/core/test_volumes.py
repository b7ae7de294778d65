"""Volumes: the run-length intervals and Dice against brute force and Potato's own
decoder and ``volume_report`` on random masks; the reader's bad input; undefined values
with their sentences (kinds.md B §2.7, A.5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.agreement.volumes.dice import dice, intervals, overlap
from app.core.agreement.volumes.reading import parse_volume
from app.core.agreement.volumes.report import volume_agreement
from app.core.errors import InputError
from app.core.formats.potato.place import Place
from app.core.model import Kind, Scheme, VolumeMasks
from tests.core.volume_data import blobs, stored

SCHEME = Scheme("seg", "volume_annotation", Kind.VOLUMES, labels=("A", "B", "C"))
PLACE = Place(Path("annotation_output/ann/user_state.json"), "i1", "seg", "ann")


def _read(answer: dict[str, Any]) -> VolumeMasks:
    return parse_volume(json.loads(json.dumps(answer)), SCHEME, PLACE)


def _noise(rng: np.random.Generator, shape: tuple[int, int, int], p: float) -> np.ndarray:
    return rng.random(shape) < p


@pytest.mark.parametrize("seed", range(12))
def test_overlap_equals_brute_force_on_random_masks(seed: int) -> None:
    """Salt-and-pepper masks (runs of 1 voxel, runs crossing rows, full and empty
    slices, a slice ending in 1s next to one starting with 1s)."""
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 9)), int(rng.integers(1, 9)), int(rng.integers(1, 7)))
    a = _noise(rng, shape, float(rng.uniform(0, 1)))
    b = _noise(rng, shape, float(rng.uniform(0, 1)))
    a[:, :, 0] = True
    ra = _read(stored({"A": a}, shape, ["A"]))
    rb = _read(stored({"A": b}, shape, ["A"]))
    size = shape[0] * shape[1]
    ia, ib = intervals(ra.masks.get("A", {}), size), intervals(rb.masks.get("A", {}), size)
    assert ia.size == int(a.sum()) and ib.size == int(b.sum())
    assert overlap(ia, ib) == int((a & b).sum())
    expected = 2 * int((a & b).sum()) / (int(a.sum()) + int(b.sum()))
    assert dice(ia, ib) == expected


def test_both_empty_is_none_never_one() -> None:
    empty = intervals({}, 10)
    assert dice(empty, empty) is None
    assert dice(empty, intervals({0: np.array([2, 3])}, 10)) == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_volume_agreement_equals_potato_volume_report(seed: int) -> None:
    from potato.server_utils.iaa.volume_agreement import volume_report

    rng = np.random.default_rng(100 + seed)
    shape = (24, 18, 10)
    rows: dict[str, dict[str, Any]] = {}
    ours: dict[str, dict[str, VolumeMasks]] = {}
    for item in range(4):
        for user in ("u1", "u2", "u3"):
            vols = {"A": blobs(rng, shape, 2, 1.0)}
            if rng.random() < 0.5:
                vols["B"] = blobs(rng, shape, 1, 1.0)
            answer = stored(vols, shape, ["A", "B", "C"])
            rows.setdefault(f"i{item}", {})[user] = {"_data": json.dumps(answer)}
            ours.setdefault(f"i{item}", {})[user] = _read(answer)
    potato = volume_report(rows, {"labels": ["A", "B", "C"]})
    agreement = volume_agreement(ours, ["A", "B", "C"])
    assert agreement.n_items == potato["n_items"] == 4
    assert agreement.n_pairs_by_label == potato["n_pairs_by_label"]
    for label, value in potato["dice_by_label"].items():
        mine = agreement.dice_by_label[label]
        assert (mine is None) == (value is None)
        if value is not None:
            assert round(mine, 4) == value
    assert agreement.dice_by_label["C"] is None and agreement.n_pairs_both_empty["C"] == 12


@pytest.mark.parametrize(("answer", "expected"), [
    ({"shape": [2, 2, 1]}, "an object with 'masks'"),
    ({"shape": [2, 2, 1], "masks": {"A": {"0": [1, -1]}}}, "negative"),
    ({"shape": [2, 2, 1], "masks": {"A": {"0": [1, 4]}}}, "pass the end of the slice"),
    ({"shape": [2, 2, 1], "masks": {"A": {"3": [1, 1]}}}, "slices 0..0"),
    ({"shape": [2, 2, 1], "masks": {"A": {"0": [1, 1.5]}}}, "list of integers"),
    ({"shape": [2, 2, 1], "masks": {"A": {"top": [1, 1]}}}, "not a slice number"),
    ({"shape": [2, 2, 1], "masks": {"A": [1, 2]}}, "not {slice: counts}"),
])
def test_bad_answers_name_file_item_scheme(answer: dict[str, Any], expected: str) -> None:
    with pytest.raises(InputError) as caught:
        _read(answer)
    message = str(caught.value)
    assert expected in message
    assert "user_state.json" in message and "item 'i1'" in message and "'seg'" in message


def test_bad_answer_in_a_project_is_an_input_error(tmp_path: Path) -> None:
    import shutil

    from app.core.formats.potato.project import load_study

    root = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "volumes"
    shutil.copytree(root, tmp_path / "p")
    path = tmp_path / "p" / "annotation_output" / "bob" / "user_state.json"
    state = json.loads(path.read_text())
    entries = state["instance_id_to_label_to_value"]["v02"]
    broken = json.loads(entries[0][1])
    broken["masks"]["Liver"]["5"] = [0, 10**6]
    entries[0][1] = json.dumps(broken)
    path.write_text(json.dumps(state))
    with pytest.raises(InputError) as caught:
        load_study(tmp_path / "p")
    assert "bob" in str(caught.value) and "v02" in str(caught.value)
    assert "pass the end" in str(caught.value)


def test_missing_shape_skips_the_item_counted() -> None:
    good = _read(stored({"A": np.ones((2, 2, 1), bool)}, (2, 2, 1), ["A"]))
    no_shape = _read({"masks": {}})
    assert no_shape.shape is None
    agreement = volume_agreement({"i1": {"a": good, "b": no_shape}}, ["A"])
    assert agreement.n_items == 0 and agreement.items_skipped == {
        "i1": "answers on different volume shapes (or none)"}
    assert agreement.mean_dice is None


def test_undefined_numbers_say_why() -> None:
    from app.core.agreement.report import agreement_report
    from app.core.model import Study
    from app.core.progress import run

    shape = (4, 4, 2)
    a = _read(stored({"A": np.ones(shape, bool)}, shape, ["A", "B"]))
    b = _read(stored({"A": np.ones(shape, bool)}, shape, ["A", "B"]))
    scheme = Scheme("seg", "volume_annotation", Kind.VOLUMES, labels=("A", "B"))
    study = Study(root=Path(), items={"i1": None, "i2": None},  # type: ignore[dict-item]
                  schemes={"seg": scheme}, annotators=("a", "b"),
                  answers={"seg": {"i1": {"a": a, "b": b}, "i2": {"a": a}}})
    data = run(agreement_report(study, project="p")).to_json()["schemes"]["seg"]
    assert data["metrics"]["dice_by_label.A"] == 1.0
    assert data["metrics"]["dice_by_label.B"] is None  # both empty: not 1.0
    assert "no annotator pair painted this label" in data["undefined"]["dice_by_label.B"]
    assert data["metrics"]["mean_dice"] == 1.0  # the labels that have a value
    one = Study(root=Path(), items={"i1": None},  # type: ignore[dict-item]
                schemes={"seg": scheme}, annotators=("a", "b"),
                answers={"seg": {"i1": {"a": a}}})
    data = run(agreement_report(one, project="p")).to_json()["schemes"]["seg"]
    assert data["metrics"] == {"mean_dice": None}
    assert "one annotator" in data["undefined"]["mean_dice"] or \
        "two or more annotators" in data["undefined"]["mean_dice"]
