"""Consensus masks: STAPLE's mask as COCO RLE, read back by pycocotools and checked
against a brute-force majority on an easy case, with hand-computed area, box and Dice."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from pycocotools import mask as coco_mask

from app.core.agreement.consensus.export import consensus_job
from app.core.agreement.consensus.masks import SIZE_MISMATCH
from app.core.agreement.masks.staple import staple
from app.core.model import Answer, Item, Kind, Scheme, Study
from app.core.objects import BoxRegion, Mask, ObjectSet

TRUTH = np.zeros((6, 8), dtype=bool)  # not square, so a transposed RLE cannot pass
TRUTH[1:4, 1:6] = True


def _without(row: int, col: int) -> np.ndarray:
    out = TRUTH.copy()
    out[row, col] = False
    return out


A, B, C = _without(1, 1), _without(2, 4), _without(3, 2)
CAR = np.zeros((6, 8), dtype=bool)
CAR[5, 7] = True


def _study(answers: dict[str, dict[str, tuple[Any, ...]]]) -> Study:
    wrapped: dict[str, dict[str, Answer]] = {
        item: {who: ObjectSet(objs) for who, objs in by.items()} for item, by in answers.items()
    }
    return Study(
        Path("/nowhere"),
        {i: Item(i, {}) for i in answers},
        {"seg": Scheme("seg", "image_annotation", Kind.REGIONS)},
        tuple(sorted({w for by in answers.values() for w in by})),
        {"seg": wrapped},
    )


def _rows(answers: dict[str, dict[str, tuple[Any, ...]]]) -> dict[tuple[str, str], dict[str, Any]]:
    rows = run_rows(_study(answers))
    return {(row["scheme"], row["item"]): row for row in rows}


def run_rows(study: Study) -> list[dict[str, Any]]:
    from app.core.progress import run

    rows = run(consensus_job(study)).rows
    json.dumps(rows, allow_nan=False)  # no NaN anywhere
    return rows


def _brute_majority(masks: list[np.ndarray]) -> np.ndarray:
    height, width = masks[0].shape
    out = np.zeros((height, width), dtype=bool)
    for r in range(height):
        for c in range(width):
            votes = sum(1 for m in masks if m[r, c])
            out[r, c] = 2 * votes > len(masks)
    return out


def _decode(rle: dict[str, Any]) -> np.ndarray:
    with warnings.catch_warnings():  # pycocotools 2.0 under numpy 2 (see the COCO importer)
        warnings.simplefilter("ignore", DeprecationWarning)
        decoded = coco_mask.decode({"size": rle["size"], "counts": rle["counts"]})
    return np.asarray(decoded, dtype=bool)


def test_easy_case_staple_equals_the_majority_and_reads_back_with_pycocotools() -> None:
    rows = _rows(
        {
            "easy": {
                "a": (Mask.from_array("road", A),),
                "b": (Mask.from_array("road", B),),
                "c": (Mask.from_array("road", C),),
            }
        }
    )
    row = rows[("seg", "easy")]
    assert row["kind"] == "masks" and row["method"] == "staple"
    (road,) = row["consensus"]
    decoded = _decode(road["rle"])
    assert (decoded == _brute_majority([A, B, C])).all()
    assert (decoded == TRUTH).all()  # every missing pixel still has 2 of 3 votes
    ours = staple(np.stack([A, B, C]).reshape(3, -1)).consensus().reshape(6, 8)
    assert (decoded == ours).all()
    # 3 rows x 5 columns from (row 1, column 1): COCO's bbox is [x, y, width, height]
    assert road["rle"]["area"] == 15 and road["rle"]["bbox"] == [1, 1, 5, 3]
    assert road["rle"]["size"] == [6, 8]
    # Dice of each rater with the consensus: 2·14 / (14 + 15)
    for name in ("a", "b", "c"):
        assert abs(road["raters"][name]["dice"] - 28 / 29) < 1e-12
    assert road["agreed_by"] == ["a", "b", "c"] and road["missed_by"] == []
    assert row["agreed_by"] == ["a", "b", "c"] and row["minority"] == []


def test_a_fourth_annotator_without_the_label_is_missed_and_a_lone_label_is_minority() -> None:
    rows = _rows(
        {
            "four": {
                "a": (Mask.from_array("road", A),),
                "b": (Mask.from_array("road", B),),
                "c": (Mask.from_array("road", C),),
                "d": (Mask.from_array("car", CAR),),
            }
        }
    )
    row = rows[("seg", "four")]
    (road,) = row["consensus"]
    assert road["missed_by"] == ["d"]
    assert road["raters"]["d"]["dice"] == 0.0
    # the majority of four leaves out the three pixels two raters missed; STAPLE, which
    # learns that d never marks road, keeps them: its consensus is the whole square
    assert (_decode(road["rle"]) == TRUTH).all()
    assert not (_brute_majority([A, B, C, np.zeros_like(A)]) == TRUTH).all()
    (car,) = row["minority"]
    assert car["label"] == "car" and car["found_by"] == ["d"]
    assert row["agreed_by"] == ["a", "b", "c"]


def test_one_annotator_and_masks_of_different_sizes_have_no_consensus() -> None:
    rows = _rows(
        {
            "alone": {"a": (Mask.from_array("road", A),)},
            "sizes": {
                "a": (Mask.from_array("road", A),),
                "b": (Mask.from_array("road", np.ones((4, 4), dtype=bool)),),
            },
        }
    )
    assert rows[("seg", "alone")]["consensus"] is None
    assert rows[("seg", "sizes")]["consensus"] is None
    assert rows[("seg", "sizes")]["reason"] == SIZE_MISMATCH


def test_masks_beside_regions_are_named_like_the_report() -> None:
    rows = _rows(
        {
            "i": {
                "a": (Mask.from_array("road", A), BoxRegion("car", 0, 0, 0.5, 0.5)),
                "b": (Mask.from_array("road", B), BoxRegion("car", 0, 0, 0.5, 0.5)),
            },
            "boxes_only": {
                "a": (BoxRegion("car", 0, 0, 0.5, 0.5),),
                "b": (BoxRegion("car", 0, 0, 0.5, 0.5),),
            },
        }
    )
    assert rows[("seg#masks", "i")]["kind"] == "masks"
    assert rows[("seg", "i")]["kind"] == "regions"
    assert ("seg#masks", "boxes_only") not in rows  # no mask drawn there: no masks row
    assert rows[("seg", "boxes_only")]["consensus"][0]["agreed_by"] == ["a", "b"]
