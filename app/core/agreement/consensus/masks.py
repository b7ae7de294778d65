"""Consensus of masks: STAPLE's consensus mask per item and label, as COCO RLE.

STAPLE runs exactly as in the agreement report (:func:`app.core.agreement.masks.report.
mask_agreement`: per item and label over every annotator who answered, an annotator's
masks of one label OR-ed, an answer without that label an empty mask); the consensus is
the pixels whose STAPLE probability exceeds 0.5 (``StapleResult.consensus``).

**Encoding: COCO RLE in the row** (a choice). The mask goes into the JSON line itself as
``{"size": [height, width], "counts": "<COCO compressed RLE>"}``, the encoding COCO's
annotations use, written by ``pycocotools.mask.encode`` (already a dependency, for the
COCO importer). Any expert reads it back with one call,
``pycocotools.mask.decode({"size": [h, w], "counts": counts})`` (an ``h × w`` uint8
array), or by the COCO API, Detectron2, mmdetection or FiftyOne. A PNG or ``.npz`` beside
the JSONL would split one export into many files, which can be separated or half
copied; the line would then point at something that may be gone. ``area`` (pixels) and
``bbox`` (``[x, y, width, height]`` in pixels, COCO's) come along so a reader can check
the decoding.

**Who agreed.** Per label: ``agreed_by`` drew that label on the item, ``missed_by``
answered without drawing it; ``raters`` gives each annotator's STAPLE sensitivity and
specificity and the Dice of their mask with the consensus (``null`` with a reason where
there is nothing to measure). A label whose STAPLE consensus holds no pixel is listed
under ``minority`` (``found_by``: who drew it). The row's ``agreed_by``: annotators who
drew every consensus label and none of the minority ones.

Items with one annotator, and items whose masks differ in size (STAPLE compares pixel
by pixel), have ``"consensus": null`` and the reason.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from pycocotools import mask as coco_mask

from app.core.agreement.consensus.categorical import ONE_ANNOTATOR
from app.core.agreement.masks.report import MaskRun, mask_agreement
from app.core.agreement.masks.staple import dice
from app.core.model import Answer
from app.core.objects import Mask, ObjectSet
from app.core.progress import Job

METHOD = "staple"
SIZE_MISMATCH = "the masks on this item differ in size: STAPLE compares pixel by pixel"
NO_ESTIMATE = "STAPLE has nothing to measure this on (no foreground or no background)"


def coco_rle(mask: np.ndarray) -> dict[str, Any]:
    """A boolean ``(h, w)`` mask as COCO compressed RLE, with its area and bbox."""
    with warnings.catch_warnings():
        # pycocotools 2.0 calls numpy's __array__ without copy=: a DeprecationWarning of
        # numpy 2 that is not the user's concern (as in the COCO importer)
        warnings.simplefilter("ignore", DeprecationWarning)
        encoded = coco_mask.encode(np.asfortranarray(mask.astype(np.uint8)))
        area = int(coco_mask.area(encoded))
        bbox = [round(v) for v in coco_mask.toBbox(encoded).tolist()] if area else None
    return {
        "size": [int(mask.shape[0]), int(mask.shape[1])],
        "counts": encoded["counts"].decode("ascii"),
        "area": area,
        "bbox": bbox,
    }


def mask_rows(
    scheme: str, answers: Mapping[str, Mapping[str, Answer]], every_item: bool
) -> Job[list[dict[str, Any]]]:
    """One row per item; ``every_item`` also lists items nobody drew a mask on (a
    masks-only scheme), else only those with a mask (a regions scheme's ``#masks``)."""
    agreement = yield from mask_agreement(answers)
    runs: dict[str, list[MaskRun]] = {}
    for run in agreement.runs:
        runs.setdefault(run.item, []).append(run)
    mismatched = set(agreement.items_size_mismatch)
    rows: list[dict[str, Any]] = []
    for item in sorted(answers):
        masks = {
            name: [m for m in a.of_type(Mask) if isinstance(m, Mask)]
            for name, a in sorted(answers[item].items())
            if isinstance(a, ObjectSet)
        }
        if not every_item and not any(masks.values()):
            continue
        row: dict[str, Any] = {
            "item": item,
            "scheme": scheme,
            "kind": "masks",
            "method": METHOD,
            "n_annotators": len(masks),
        }
        if len(masks) < 2:
            row.update(consensus=None, agreed_by=[], reason=ONE_ANNOTATOR)
        elif item in mismatched:
            row.update(consensus=None, agreed_by=[], reason=SIZE_MISMATCH)
        else:
            row.update(_item_rows(masks, runs.get(item, [])))
        rows.append(row)
    return rows


def _item_rows(masks: dict[str, list[Mask]], runs: list[MaskRun]) -> dict[str, Any]:
    names = sorted(masks)
    consensus: list[dict[str, Any]] = []
    minority: list[dict[str, Any]] = []
    agreed = set(names)
    outside: set[str] = set()
    for run in runs:
        drew = [x for x in names if any(m.label == run.label for m in masks[x])]
        missed = [x for x in names if x not in drew]
        if not run.consensus.any():
            minority.append(
                {
                    "label": run.label,
                    "found_by": drew,
                    "missed_by": missed,
                    "reason": "STAPLE's consensus for this label holds no pixel",
                }
            )
            outside.update(drew)
            continue
        agreed &= set(drew)
        consensus.append(
            {
                "label": run.label,
                "rle": coco_rle(run.consensus),
                "agreed_by": drew,
                "missed_by": missed,
                "raters": _raters(run, masks),
            }
        )
    return {"consensus": consensus, "agreed_by": sorted(agreed - outside), "minority": minority}


def _raters(run: MaskRun, masks: dict[str, list[Mask]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    truth = run.consensus.ravel()
    for r, name in enumerate(run.annotators):
        own = np.zeros(truth.size, dtype=bool)
        for m in masks.get(name, []):
            if m.label == run.label:
                own |= m.to_array().ravel()
        score = dice(own, truth)
        entry: dict[str, Any] = {}
        for key, values in (("sensitivity", run.sensitivity), ("specificity", run.specificity)):
            value = float(values[r])
            entry[key] = value if np.isfinite(value) else None
            if not np.isfinite(value):
                entry[f"{key}_undefined"] = NO_ESTIMATE
        entry["dice"] = score.value
        if score.value is None:
            entry["dice_undefined"] = score.reason
        out[name] = entry
    return out
