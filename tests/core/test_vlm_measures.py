"""Grounding, caption, episode and rollout measures against Potato 2.12.1's own ``iaa``
functions (run as oracles, never copied) on random answers, and against the
independent oracles of kinds.md §3: ``krippendorff`` (level passed explicitly), nltk's
``AnnotationTask`` with the token distance, scipy's ``ks_2samp``."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from app.core.agreement.vlm.captions import caption_agreement, token_distance
from app.core.agreement.vlm.common import long_alpha
from app.core.agreement.vlm.episodes import episode_agreement
from app.core.agreement.vlm.grounding import grounding_agreement
from app.core.agreement.vlm.reading import PARSERS
from app.core.agreement.vlm.rollouts import (
    between_offsets,
    ks_statistic,
    rollout_agreement,
    within_offsets,
)
from app.core.errors import InputError
from app.core.formats.potato.place import Place
from app.core.model import Scheme
from tests.core.vlm_data import caption_rows, episode_blob, grounding_rows, rollout_rows

potato_iaa = pytest.importorskip("potato.server_utils.iaa.dispatcher")
TOL = 1e-9
pytestmark = pytest.mark.filterwarnings(
    "ignore:Starting with pandas version")  # Potato's simpledorff call under pandas 2.x


def parse(kind: str, blob: dict[str, Any]) -> Any:
    scheme = Scheme("s", kind, None)
    return PARSERS[kind](blob, scheme, Place(Path("u.json"), "i", "s", "a")).parsed


def close(ours: Any, theirs: Any) -> None:
    value = ours.value if hasattr(ours, "value") else ours
    if theirs is None or (isinstance(theirs, float) and math.isnan(theirs)):
        assert value is None, (value, theirs)
        assert getattr(ours, "reason", "x")
    else:
        assert value is not None and abs(value - theirs) <= TOL, (value, theirs)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("points", [False, True])
def test_grounding_equals_potato(seed: int, points: bool) -> None:
    from potato.server_utils.iaa.grounding import grounding_report

    rows = grounding_rows(seed, points)
    theirs = grounding_report(rows, {"region_type": "point" if points else "box"})
    ours = grounding_agreement({i: {a: parse("grounding_eval", v) for a, v in by.items()}
                                for i, by in rows.items()})
    m = ours.metrics
    close(m["detection.alpha"], theirs["detection"]["alpha"])
    close(m["detection.percent_agreement"], theirs["detection"]["percent_agreement"])
    close(m["localization.mean_iou"], theirs["localization"]["mean_iou"])
    close(m["localization.median_iou"], theirs["localization"]["median_iou"])
    close(m["coverage.answered_fraction"], theirs["coverage"]["answered_fraction"])
    if points:
        close(m["pointing.mean_pairwise_distance"],
              theirs["pointing"]["mean_pairwise_distance"])
    for mine, row in zip(ours.sweep, theirs["sweep"], strict=True):
        close(mine["agreement"], row["localization"]["agreement"])


@pytest.mark.parametrize("seed", range(10))
def test_captions_equal_potato_and_nltk(seed: int) -> None:
    from nltk.metrics.agreement import AnnotationTask
    from potato.server_utils.iaa.captions import region_caption_report, region_caption_rows

    rows = caption_rows(seed)
    theirs = region_caption_report(rows)
    ours = caption_agreement({i: {a: parse("region_caption", {"captions": v})
                                  for a, v in by.items()} for i, by in rows.items()})
    close(ours.metrics["alpha"], theirs.get("alpha"))
    close(ours.metrics["mean_pairwise_distance"], theirs.get("mean_pairwise_distance"))
    assert ours.metrics["matching.n_matched_regions"].value == \
        theirs["matching"]["n_matched_regions"]
    assert ours.metrics["matching.n_unmatched_regions"].value == \
        theirs["matching"]["n_unmatched_regions"]
    units, _ = region_caption_rows(rows)
    usable = [(a, u, c) for a, u, c in units if c.strip()]
    if len({a for a, _, _ in usable}) >= 2 and ours.metrics["alpha"].value is not None:
        task = AnnotationTask(data=usable, distance=token_distance)
        assert abs(task.alpha() - ours.metrics["alpha"].value) <= TOL


def test_caption_embedding_distance_refused() -> None:
    rows = caption_rows(1)
    ours = caption_agreement({i: {a: parse("region_caption", {"captions": v})
                                  for a, v in by.items()} for i, by in rows.items()},
                             "embedding")
    assert ours.metrics["alpha"].value is None
    assert "model download" in (ours.metrics["alpha"].reason or "")


@pytest.mark.parametrize("seed", range(10))
def test_episodes_equal_potato(seed: int) -> None:
    from potato.server_utils.iaa.episodes import episode_report

    rng = random.Random(seed)
    rows = {f"ep{i}": {a: json.dumps(episode_blob(rng))
                       for a in ("ann1", "ann2", "ann3")[: rng.choice((2, 3))]}
            for i in range(6)}
    scheme = {"name": "s", "annotation_type": "episode_annotation"}
    theirs = episode_report(rows, scheme)
    ours = episode_agreement({i: {a: parse("episode_annotation", json.loads(v))
                                  for a, v in by.items()} for i, by in rows.items()})
    m = ours.metrics
    for name in ("mean_agreement", "mean_matched_iou", "detection_f1"):
        close(m[f"phases.{name}"], theirs["phases"][name])
    close(m["outcome.outcome_alpha"], theirs["outcome"]["outcome_alpha"])
    for name in ("reward_icc", "reward_pearson_r", "reward_coverage"):
        close(m[f"reward.{name}"], theirs.get("reward", {}).get(name))


@pytest.mark.parametrize("seed,n_items", [(s, 5) for s in range(8)] + [(99, 40)])
def test_rollouts_equal_potato_and_scipy(seed: int, n_items: int) -> None:
    from potato.server_utils.iaa.rollouts import rollout_report
    from scipy.stats import ks_2samp

    rows = rollout_rows(seed, n_items)
    scheme = {"name": "s", "annotation_type": "rollout_evaluation"}
    theirs = rollout_report(rows, scheme)
    items = {i: {a: parse("rollout_evaluation", json.loads(v)) for a, v in by.items()}
             for i, by in rows.items()}
    ours = rollout_agreement(items)
    m = ours.metrics
    for group in ("detection", "category", "severity", "preference", "counterfactual"):
        close(m[f"{group}.alpha"], theirs[group]["alpha"])
    for name in ("mean_offset", "median_offset", "sigma", "ks"):
        close(m[f"localization.{name}"], theirs["localization"][name])
    close(m["coverage.answered_fraction"], theirs["coverage"]["answered_fraction"])
    for mine, row in zip(ours.sweep, theirs["sweep"], strict=True):
        close(mine["detection.alpha"], row["detection"]["alpha"])
        close(mine["localization.mean_offset"], row["localization"]["mean_offset"])
    within, between = within_offsets(items, 0.5), between_offsets(items)
    if within and between:
        assert abs(ks_statistic(within, between)
                   - ks_2samp(within, between).statistic) <= 1e-15


@pytest.mark.parametrize("seed", range(6))
def test_long_alpha_equals_krippendorff(seed: int) -> None:
    import krippendorff
    import numpy as np

    rng = random.Random(seed)
    rows = [(a, f"u{u}", rng.choice((1, 2, 3, 4))) for u in range(12)
            for a in ("x", "y", "z") if rng.random() < 0.8]
    table = np.full((3, 12), np.nan)
    for a, u, v in rows:
        table["xyz".index(a), int(u[1:])] = v
    for level in ("nominal", "ordinal"):
        want = krippendorff.alpha(reliability_data=table, level_of_measurement=level)
        assert abs(long_alpha(rows, level).value - want) <= TOL  # type: ignore[operator]


def test_bad_blobs_name_the_file() -> None:
    with pytest.raises(InputError, match=r"u\.json"):
        parse("rollout_evaluation", {"violations": [{"stream": "a", "t": "soon"}]})
    with pytest.raises(InputError, match="grounding"):
        parse("grounding_eval", {"nothing": 1, "else": 2})
    with pytest.raises(InputError, match="phase start"):
        parse("episode_annotation", {"phases": [{"end": 1}]})
