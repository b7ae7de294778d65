"""``accord import nifti``: label maps written by Potato 2.12.1's own NIfTI export code
(``volume_masks.labelmap`` + ``to_nifti_bytes``, in a non-RAS source orientation) from the
project its server wrote, read back through the importer: Potato's own decoder reads the
written masks as the arrays it exported, and the agreement equals the server project's.
Plain label maps (nibabel) without a label table; bad input refused with the file named."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import nibabel as nib
import numpy as np
import pytest

from tests.core.importers.support import (
    agreement,
    import_fails,
    import_into_occupied,
    run_import,
    stored,
)

SERVER = Path(__file__).resolve().parents[2] / "data" / "potato_server" / "volumes"
LABELS = ["Liver", "Lesion", "Cyst"]
# a source orientation that is not RAS+: array axis 0 runs to Posterior, axis 1 to Left,
# axis 2 to Superior (2 mm), so the canonical [i, j, k] is (axis 1, axis 0, axis 2) flipped
AFFINE = np.array([[0.0, -1.0, 0.0, 31.0], [-1.0, 0.0, 0.0, 23.0], [0.0, 0.0, 2.0, 0.0],
                   [0.0, 0.0, 0.0, 1.0]])


def _server_answers() -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for path in sorted(SERVER.glob("annotation_output/*/user_state.json")):
        state = json.loads(path.read_text())
        for item, entries in state["instance_id_to_label_to_value"].items():
            for key, value in entries:
                if key["schema"] == "organs":
                    out.setdefault(state["user_id"], {})[item] = json.loads(value)
    return out


def _potato_export(root: Path) -> Path:
    """What Potato's ``volume_nifti`` export writes for the server project, by Potato's
    own functions: ``labels__organs.json`` and ``<user>/<item>__organs.nii.gz``."""
    from potato.media.volume_masks import labelmap, to_nifti_bytes
    from potato.media.volumes import _canonical

    root.mkdir()
    (root / "labels__organs.json").write_text(json.dumps(
        {"0": "background", **{str(n): name for n, name in enumerate(LABELS, start=1)}}))
    for user, items in _server_answers().items():
        (root / user).mkdir()
        for item, answer in items.items():
            ni, nj, nk = answer["shape"]
            source = nib.Nifti1Image(np.zeros((nj, ni, nk), np.float32), AFFINE)
            volume = _canonical(source, "nifti")
            assert volume.shape == (ni, nj, nk)
            (root / user / f"{item}__organs.nii.gz").write_bytes(
                to_nifti_bytes(labelmap(answer, volume.shape, LABELS), volume))
    return root


def _flattened(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer as a label map can hold it (one label per voxel; where Potato's masks
    overlap, ``labelmap`` keeps the later label), encoded by Potato's ``rle_encode``."""
    from potato.media.volume_masks import labelmap, rle_encode

    labels = labelmap(answer, answer["shape"], LABELS)
    masks = {}
    for n, name in enumerate(LABELS, start=1):
        slices = {str(k): rle_encode((labels[:, :, k] == n).T)
                  for k in range(labels.shape[2]) if (labels[:, :, k] == n).any()}
        if slices:
            masks[name] = slices
    return {**answer, "masks": masks}


def test_potatos_export_round_trips(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                    ) -> None:
    import shutil

    from potato.media.volume_masks import label_volume

    export = _potato_export(tmp_path / "export")
    out = tmp_path / "project"
    code, printed, err = run_import(capsys, "nifti", str(export / "alice"),
                                    str(export / "bob"), str(export / "carol"), "-o", str(out))
    assert code == 0, err
    assert "reoriented to RAS+" in printed and "labels__organs.json" in printed
    assert "different shapes (v04)" in printed
    # the same study as a Potato project: the server's, each answer as a label map holds it
    same = tmp_path / "same"
    shutil.copytree(SERVER, same)
    overlapping = 0
    for user, items in _server_answers().items():
        path = same / "annotation_output" / user / "user_state.json"
        state = json.loads(path.read_text())
        for item, original in items.items():
            flat = _flattened(original)
            overlapping += flat["masks"] != original["masks"]
            written = stored(out, user, item, "organs")
            assert written["shape"] == original["shape"]
            assert written["masks"] == flat["masks"]
            for label in LABELS:  # Potato's decoder reads what Potato exported
                assert np.array_equal(label_volume(written, written["shape"], label),
                                      label_volume(flat, flat["shape"], label))
            for entry in state["instance_id_to_label_to_value"][item]:
                if entry[0]["schema"] == "organs":
                    entry[1] = json.dumps(flat)
        path.write_text(json.dumps(state))
    assert overlapping > 0  # Liver and Lesion overlap somewhere: the map keeps one
    mine = agreement(capsys, out)["schemes"]["organs"]
    theirs = agreement(capsys, same)["schemes"]["organs"]
    theirs["coverage"].pop("n_items_below_cap")  # the server's config names a cap
    for key in ("metrics", "pairs", "n_items", "n_pairs_by_label", "n_pairs_both_empty",
                "potato_iaa", "coverage"):
        assert mine[key] == theirs[key], key
    assert mine["kind"] == "volumes" and mine["n_items"] == 4


def _save(path: Path, data: np.ndarray, affine: np.ndarray | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(data, np.eye(4) if affine is None else affine), str(path))
    return path


def test_plain_label_maps_name_their_values(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(7)
    maps = {who: (rng.integers(0, 4, (6, 5, 4)) * (rng.random((6, 5, 4)) < 0.5)).astype(
        np.int16) for who in ("ann", "ben")}
    maps["ben"][maps["ben"] == 2] = 0  # ben never used label 2
    _save(tmp_path / "ann" / "scan1.nii.gz", maps["ann"])
    _save(tmp_path / "ben" / "scan1.nii", maps["ben"])
    out = tmp_path / "project"
    code, _printed, err = run_import(capsys, "nifti", str(tmp_path / "ann"),
                                     str(tmp_path / "ben"), "-o", str(out))
    assert code == 0, err
    from potato.media.volume_masks import label_volume

    for who, data in maps.items():
        written = stored(out, who, "scan1", "volume")
        assert written["shape"] == [6, 5, 4]
        assert written["labels"] == ["label_1", "label_2", "label_3"]
        for value in (1, 2, 3):
            assert np.array_equal(label_volume(written, [6, 5, 4], f"label_{value}"),
                                  data == value), (who, value)
            assert (f"label_{value}" in written["masks"]) == bool((data == value).any())
    report = agreement(capsys, out)["schemes"]["volume"]
    a, b = maps["ann"], maps["ben"]
    for value in (1, 3):
        dice = 2 * ((a == value) & (b == value)).sum() / ((a == value).sum()
                                                          + (b == value).sum())
        assert report["metrics"][f"dice_by_label.label_{value}"] == pytest.approx(dice,
                                                                                  abs=1e-15)
    assert report["metrics"]["dice_by_label.label_2"] == 0.0  # ann painted it, ben did not


@pytest.mark.parametrize(("make", "needle"), [
    (lambda p: p.write_bytes(gzip.compress(b"not a nifti")), "unreadable"),
    (lambda p: _save(p, np.full((3, 3, 2), 0.5, np.float32)), "not a whole number"),
    (lambda p: _save(p, np.zeros((3, 3), np.int16)), "2-D image"),
    (lambda p: _save(p, np.full((3, 3, 2), -1, np.int16)), "negative"),
])
def test_bad_label_maps_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    make: Any, needle: str) -> None:
    path = tmp_path / "ann" / "scan.nii.gz"
    path.parent.mkdir()
    make(path)
    import_fails(capsys, "nifti", [str(tmp_path / "ann")], tmp_path / "out", path, needle)


def test_a_value_not_in_the_table_is_refused(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = _save(tmp_path / "ann" / "scan.nii.gz", np.full((3, 3, 2), 4, np.int16))
    (tmp_path / "labels.json").write_text(json.dumps({"0": "background", "1": "Liver"}))
    import_fails(capsys, "nifti", [str(tmp_path / "ann")], tmp_path / "out", path,
                 "label value 4 is not in the label table", "expected one of [1]")


def test_a_broken_table_and_an_empty_folder_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _save(tmp_path / "ann" / "scan.nii.gz", np.ones((3, 3, 2), np.int16))
    table = tmp_path / "ann" / "labels.json"
    table.write_text('{"one": "Liver"}')
    import_fails(capsys, "nifti", [str(tmp_path / "ann")], tmp_path / "out", table,
                 "expected a label value")
    (tmp_path / "empty").mkdir()
    import_fails(capsys, "nifti", [str(tmp_path / "empty")], tmp_path / "out2",
                 tmp_path / "empty", "no .nii or .nii.gz file here")


def test_an_occupied_output_is_refused(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    _save(tmp_path / "ann" / "scan.nii.gz", np.ones((3, 3, 2), np.int16))
    code, err = import_into_occupied(capsys, "nifti", tmp_path / "out", str(tmp_path / "ann"))
    assert code == 2 and "not empty" in err
