"""Chance-corrected agreement for 2D regions: detection, classification, localization.

Mean IoU measures how easy a task is, not how much people agree (``agreement.md``,
Chance-corrected agreement for regions). Three questions are answered separately:

- **Detection α**: objects of an item are clustered across annotators (annotators in
  sorted name order; the first one's objects each start a cluster; each next annotator's
  objects are matched, with the set matching, similarity and threshold, against the
  clusters' first members; unmatched objects start new clusters). Each annotator of the
  item is present or absent on each cluster; nominal Krippendorff α over clusters.
- **Classification α**: nominal α over the member labels of clusters with two or more
  members.
- **Which objects** (a choice: the spec defines these questions for regions and gives
  landmarks, keypoint sets and open paths Potato 2.12.1's similarity): detection and
  classification ask whether an object was found and what it was called, which is as
  meaningful for a landmark as for a box, so they cluster *every* object of the scheme
  with the set similarity, as Potato's ``/admin/iaa`` does. Localization needs an area
  for GIoU, so it uses the boxes, polygons and ellipses only
  (:attr:`SetAgreement.regions_only`).
- **Localization**: distance ``d = (1 − GIoU) / 2``. Within-item distances are those of
  every matched pair of every annotator pair; between-item (chance) distances are those
  of object pairs from *different* items of the pool (every object of every scored
  item): every such pair when there are at most 2,000, else 2,000 pairs drawn with
  replacement from ``numpy.random.default_rng(seed)`` (two objects drawn uniformly from
  the pool, redrawn while they share an item: uniform over between-item pairs).
  ``sigma = 1 − mean(within) / mean(between)``, never clipped; ``ks`` is
  ``scipy.stats.ks_2samp``'s two-sided statistic.

**When σ and KS disagree** (a choice: the spec asks for it without fixing the rule): σ
says placement is better than chance when it is positive; KS says the within and
between distributions differ when its two-sided p-value is below 0.05. When exactly one
of the two says so, the mean is being carried by a few items, and the report lists the
items holding the largest shares of the total within-item distance (at most five).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from app.core.agreement.categorical.alpha import alpha, counts_from_codes, nominal_metric
from app.core.agreement.coefficient import Coefficient
from app.core.agreement.result import SchemeResult
from app.core.agreement.sets.agreement import SetAgreement
from app.core.agreement.sets.matching import match
from app.core.geometry.regions import region_giou_pairs, region_iou_matrix
from app.core.objects import SceneObject

BASELINE_PAIRS = 2000
KS_SIGNIFICANCE = 0.05
LISTED_ITEMS = 5
EVERYONE_FOUND_ALL = (
    "every annotator found every object: detection α has no variation to correct against"
)
ONE_LABEL = (
    "every object found by two or more annotators got the same label from all of them: "
    "classification α has no variation to correct against"
)
NO_SHARED_OBJECTS = "no object was found by two or more annotators"

ClusterSimilarity = Callable[[Sequence[SceneObject], Sequence[SceneObject]], np.ndarray]
"""Similarity matrix of an annotator's objects against the clusters' first members."""


def _region_iou(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> np.ndarray:
    return region_iou_matrix(a, b)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Localization:
    within: np.ndarray
    within_items: list[str]
    between: np.ndarray
    all_between_pairs: bool


def _label(obj: SceneObject) -> str:
    return str(getattr(obj, "label", ""))


def detection_clusters(objects: dict[str, tuple[SceneObject, ...]], threshold: float,
                       similarity: ClusterSimilarity = _region_iou
                       ) -> list[dict[str, SceneObject]]:
    """Clusters of one item: annotator → the member object it contributed."""
    clusters: list[dict[str, SceneObject]] = []
    firsts: list[SceneObject] = []
    for name in sorted(objects):
        mine = objects[name]
        if firsts and mine:
            rows, cols = match(similarity(mine, firsts), threshold)
        else:
            rows = cols = np.zeros(0, dtype=np.int64)
        joined = dict(zip(rows.tolist(), cols.tolist(), strict=True))
        for k, obj in enumerate(mine):
            if k in joined:
                clusters[joined[k]][name] = obj
            else:
                clusters.append({name: obj})
                firsts.append(obj)
    return clusters


def nominal_alpha(rows: list[dict[str, str]]) -> Coefficient:
    """Nominal α over units given as annotator → value."""
    names = sorted({n for r in rows for n in r})
    values = sorted({v for r in rows for v in r.values()})
    column = {n: j for j, n in enumerate(names)}
    index = {v: k for k, v in enumerate(values)}
    codes = np.full((len(rows), len(names)), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        for n, v in r.items():
            codes[i, column[n]] = index[v]
    return alpha(counts_from_codes(codes, len(values)), nominal_metric)


Clustering = Callable[[dict[str, tuple[SceneObject, ...]], float],
                      list[dict[str, SceneObject]]]


def cluster_rows(agreement: SetAgreement, threshold: float,
                 similarity: ClusterSimilarity = _region_iou,
                 clustering: Clustering | None = None
                 ) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The units of detection α (per cluster, each annotator of the item present or
    absent) and of classification α (the member labels of clusters with two or more
    members); ``clustering`` replaces :func:`detection_clusters` when given."""
    presence: list[dict[str, str]] = []
    labels: list[dict[str, str]] = []
    for item in agreement.items_scored:
        objects = agreement.objects[item]
        clusters = (clustering(objects, threshold) if clustering is not None
                    else detection_clusters(objects, threshold, similarity))
        for cluster in clusters:
            presence.append({name: ("present" if name in cluster else "absent")
                             for name in objects})
            if len(cluster) >= 2:
                labels.append({name: _label(obj) for name, obj in cluster.items()})
    return presence, labels


def detection_and_classification(agreement: SetAgreement, threshold: float,
                                 similarity: ClusterSimilarity = _region_iou
                                 ) -> tuple[Coefficient, Coefficient, int]:
    """Detection and classification α, and the number of clusters."""
    presence, labels = cluster_rows(agreement, threshold, similarity)
    detection = nominal_alpha(presence) if presence else Coefficient.undefined(
        "no object was drawn on any scored item")
    if detection.value is None and presence and \
            all(v == "present" for r in presence for v in r.values()):
        detection = Coefficient.undefined(EVERYONE_FOUND_ALL)
    if not labels:
        classification = Coefficient.undefined(NO_SHARED_OBJECTS)
    else:
        classification = nominal_alpha(labels)
        if classification.value is None:
            classification = Coefficient.undefined(ONE_LABEL)
    return detection, classification, len(presence)


def localization(agreement: SetAgreement, seed: int) -> Localization:
    """Within-item distances of matched pairs and the seeded between-item baseline."""
    first: list[SceneObject] = []
    second: list[SceneObject] = []
    within_items: list[str] = []
    for o in agreement.outcomes:
        a = agreement.objects[o.item][o.a]
        b = agreement.objects[o.item][o.b]
        first.extend(a[r] for r in o.rows.tolist())
        second.extend(b[c] for c in o.cols.tolist())
        within_items.extend([o.item] * o.rows.size)
    pool: list[SceneObject] = []
    owner: list[int] = []
    for k, item in enumerate(agreement.items_scored):
        for objs in agreement.objects[item].values():
            pool.extend(objs)
            owner.extend([k] * len(objs))
    pairs, everything = between_pairs(np.asarray(owner, dtype=np.int64), seed)
    return Localization(_distances(first, second), within_items,
                        _distances([pool[i] for i, _ in pairs], [pool[j] for _, j in pairs]),
                        everything)


def _distances(a: list[SceneObject], b: list[SceneObject]) -> np.ndarray:
    """``(1 − GIoU) / 2`` of ``a[i]`` with ``b[i]``."""
    if not a:
        return np.zeros(0)
    giou = region_giou_pairs(a, b)  # type: ignore[arg-type]
    return (1.0 - np.asarray(giou, dtype=np.float64)) / 2.0


def between_pairs(owner: np.ndarray, seed: int, n_draws: int = BASELINE_PAIRS
                  ) -> tuple[list[tuple[int, int]], bool]:
    """Object index pairs from different items: all of them, or ``n_draws`` seeded draws."""
    n = owner.size
    _, per_item = np.unique(owner, return_counts=True)
    total = n * (n - 1) // 2 - int((per_item * (per_item - 1) // 2).sum())
    if total == 0:
        return [], True
    if total <= n_draws:
        return [(i, j) for i in range(n) for j in range(i + 1, n) if owner[i] != owner[j]], True
    rng = np.random.default_rng(seed)
    chosen: list[tuple[int, int]] = []
    while len(chosen) < n_draws:
        i = rng.integers(0, n, size=2 * n_draws)
        j = rng.integers(0, n, size=2 * n_draws)
        keep = owner[i] != owner[j]
        chosen.extend(zip(i[keep].tolist(), j[keep].tolist(), strict=True))
    return chosen[:n_draws], False


def fill_region_chance(result: SchemeResult, agreement: SetAgreement, threshold: float,
                       seed: int, similarity: ClusterSimilarity = _region_iou
                       ) -> Localization:
    """Detection and classification α over every object of ``agreement`` (clustered
    with ``similarity``); σ and KS over its regions (``regions_only`` when set)."""
    detection, classification, n_clusters = detection_and_classification(
        agreement, threshold, similarity)
    result.put("detection_alpha", detection)
    result.put("classification_alpha", classification)
    result.extra["n_clusters"] = n_clusters
    loc = localization(agreement.regions_only or agreement, seed)
    result.extra["chance_baseline"] = {"seed": seed, "n_pairs": int(loc.between.size),
                                       "all_between_item_pairs": loc.all_between_pairs}
    if loc.within.size == 0:
        reason = "no matched pair of objects, so there is no within-item distance"
        for name in ("sigma", "ks", "mean_within_distance"):
            result.put(name, Coefficient.undefined(reason))
    else:
        result.put("mean_within_distance", Coefficient.of(float(loc.within.mean())))
    if loc.between.size == 0:
        reason = "the scored items hold objects of one item only: no between-item pair"
        for name in ("sigma", "ks", "mean_between_distance"):
            result.put(name, Coefficient.undefined(reason))
        return loc
    mean_between = float(loc.between.mean())
    result.put("mean_between_distance", Coefficient.of(mean_between))
    if loc.within.size == 0:
        return loc
    if mean_between == 0.0:
        result.put("sigma", Coefficient.undefined(
            "every between-item pair coincides (distance 0): no chance baseline to compare"))
    else:
        result.put("sigma", Coefficient.of(1.0 - float(loc.within.mean()) / mean_between))
    # Imported here, not at the top: scipy.stats costs every report ~0.1 s of start-up,
    # and only regions need it.
    from scipy.stats import ks_2samp

    test = ks_2samp(loc.within, loc.between)
    result.put("ks", Coefficient.of(float(test.statistic)))
    result.extra["ks_pvalue"] = float(test.pvalue)
    sigma = result.metrics.get("sigma")
    if sigma is not None and (float(sigma) > 0) != (float(test.pvalue) < KS_SIGNIFICANCE):
        result.extra["disagreement_items"] = carriers(loc.within, loc.within_items)
        result.notes.append(
            "σ and KS disagree: a few items carry most of the within-item distance "
            "(listed in disagreement_items).")
    return loc


def carriers(within: np.ndarray, items: Sequence[str]) -> list[dict[str, float | str]]:
    """The items with the largest shares of the total within-item distance."""
    total = float(within.sum())
    if total <= 0.0:
        return []
    shares: dict[str, float] = {}
    for d, item in zip(within.tolist(), items, strict=True):
        shares[item] = shares.get(item, 0.0) + d
    top = sorted(shares.items(), key=lambda kv: (-kv[1], kv[0]))[:LISTED_ITEMS]
    return [{"item": item, "share": value / total} for item, value in top]
