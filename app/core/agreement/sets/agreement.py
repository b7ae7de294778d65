"""Agreement on sets of objects: cuboids, segments, tiers, regions (``agreement.md``).

For every scored item and every pair of its annotators the two sets are matched
(:mod:`app.core.agreement.sets.matching`) and scored:

    item score = Σ_matched s · (½ where the labels differ) / (matched + unmatched A + unmatched B)

Two empty answers agree (score 1, detection F1 1) and are also counted in
``n_empty_pairs``; one empty and one not scores 0.

**Comparison budget.** An item costs Σ over its annotator pairs of ``|A|·|B|``. Items
are taken in sorted id order; an item whose cost exceeds what is left is skipped whole
(never half-measured) and counted; later, smaller items may still fit.

**Intervals.** A percentile bootstrap over items (items resampled with replacement,
every pair of a drawn item comes along), seeded and stated in the report:
``BOOTSTRAP_RESAMPLES`` resamples, a ``INTERVAL_LEVEL`` interval. The spec fixes the
method, not the level: 95% is what an expert reads by default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from operator import attrgetter

import numpy as np

from app.core.agreement.sets.matching import THRESHOLD_SLACK, match
from app.core.agreement.sets.preference import Preference
from app.core.agreement.sets.small_matching import split_matching
from app.core.model import Answer
from app.core.objects import ObjectSet, SceneObject
from app.core.progress import Job, Progress

Similarity = Callable[[Sequence[SceneObject], Sequence[SceneObject]], np.ndarray]
ObjectsPair = tuple[Sequence[SceneObject], Sequence[SceneObject]]
BatchSimilarity = Callable[[Sequence[ObjectsPair]], list[np.ndarray]]
"""Similarity matrices of many (A, B) pairs at once: one vectorized call for a whole
batch of items instead of thousands of tiny ones (3D IoU is costly per call)."""
Selector = Callable[[ObjectSet], tuple[SceneObject, ...]]
BATCH_COMPARISONS = 1_000_000
"""Object comparisons per batch. Each batch pays the IoU's fixed costs once (some 3 ms
of clipping setup, whatever the number of pairs clipped): a lidar study of 8.3 million
comparisons spent a quarter of its IoU time on them in batches of 100,000. A batch's
temporaries are a few arrays of this many floats (about 10 MB more at the peak)."""

BOOTSTRAP_RESAMPLES = 2000
INTERVAL_LEVEL = 0.95
DEFAULT_BUDGET = 200_000
SET_METRICS = ("mean_agreement", "mean_object_count_diff", "detection_f1", "mean_matched_iou")


@dataclass(frozen=True, slots=True)
class PairOutcome:
    """Two annotators on one item: the score and what it is made of."""

    item: str
    a: str
    b: str
    n_a: int
    n_b: int
    score: float
    f1: float
    rows: np.ndarray
    cols: np.ndarray
    matched_iou: np.ndarray
    label_match: np.ndarray

    @property
    def empty(self) -> bool:
        return self.n_a == 0 and self.n_b == 0

    @property
    def count_diff(self) -> int:
        return abs(self.n_a - self.n_b)


@dataclass(slots=True)
class SetAgreement:
    """Every pair outcome of a scheme, plus what was left out and why."""

    outcomes: list[PairOutcome] = field(default_factory=list)
    objects: dict[str, dict[str, tuple[SceneObject, ...]]] = field(default_factory=dict)
    """Item → annotator → the objects compared (after selection and clamping)."""
    items_scored: list[str] = field(default_factory=list)
    items_over_budget: list[str] = field(default_factory=list)
    comparisons: int = 0
    regions_only: SetAgreement | None = None
    """For an image scheme holding landmarks, keypoints or paths: the same scoring over
    its boxes, polygons and ellipses alone (the chance-corrected numbers use it)."""
    matrices: dict[tuple[str, str, str], np.ndarray] | None = None
    """(item, a, b) → the pair's similarity matrix, when asked for (``keep_matrices``);
    at most the comparison budget's number of entries."""


def score_pair(item: str, a: str, b: str, objects_a: Sequence[SceneObject],
               objects_b: Sequence[SceneObject], similarity: np.ndarray,
               threshold: float, codes: LabelCodes | None = None) -> PairOutcome:
    """Match and score one pair on one item.

    ``codes`` (optional) caches each object set's labels as integer codes, so that an
    annotator's objects on an item are read once for all their pairs.
    """
    n_a, n_b = len(objects_a), len(objects_b)
    # Labels as small integer codes: comparing every cell's two strings in an object array
    # was a third of a lidar study's scoring time.
    codes = LabelCodes() if codes is None else codes
    same_label = codes.of(objects_a)[:, None] == codes.of(objects_b)[None, :]
    rows, cols = match(similarity, threshold, same_label.reshape(n_a, n_b))
    ious = similarity[rows, cols] if rows.size else np.zeros(0)
    same = same_label[rows, cols].astype(bool) if rows.size else np.zeros(0, dtype=bool)
    if n_a == 0 and n_b == 0:
        score, f1 = 1.0, 1.0
    else:
        matched = rows.size
        credit = float(np.where(same, ious, ious / 2.0).sum()) if matched else 0.0
        score = credit / (matched + (n_a - matched) + (n_b - matched))
        f1 = 2.0 * matched / (n_a + n_b)
    return PairOutcome(item, a, b, n_a, n_b, score, f1, rows, cols, ious, same)


_LABEL = attrgetter("label")
_STR = frozenset({str})


def _label(obj: SceneObject) -> str:
    label = getattr(obj, "label", "")
    return label if type(label) is str else str(label)


class LabelCodes:
    """Labels as integer codes (one numbering for all), each object set's read once."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}
        self._sets: dict[int, tuple[Sequence[SceneObject], np.ndarray]] = {}

    def of(self, objects: Sequence[SceneObject]) -> np.ndarray:
        known = self._sets.get(id(objects))
        if known is not None and known[0] is objects:
            return known[1]
        numbers = self._numbers
        try:  # the labels as they are when all are strings (a reader's always are)
            labels = list(map(_LABEL, objects))
        except AttributeError:
            labels = list(map(_label, objects))
        else:
            if not set(map(type, labels)) <= _STR:
                labels = list(map(_label, objects))
        for label in set(labels).difference(numbers):  # only equality of codes matters
            numbers[label] = len(numbers)
        codes = np.fromiter(map(numbers.__getitem__, labels), dtype=np.intp, count=len(labels))
        self._sets[id(objects)] = (objects, codes)  # keeps objects alive: ids stay unique
        return codes


def per_pair(similarity: Similarity) -> BatchSimilarity:
    """A batch similarity that computes each pair's matrix on its own."""
    def batch(pairs: Sequence[ObjectsPair]) -> list[np.ndarray]:
        return [similarity(a, b) for a, b in pairs]

    return batch


def set_agreement(answers: Mapping[str, Mapping[str, Answer]], select: Selector,
                  similarity: BatchSimilarity, threshold: float, budget: int = DEFAULT_BUDGET,
                  keep_matrices: bool = False) -> Job[SetAgreement]:
    """Score every pair on every scored item within the comparison budget.

    Pairs are gathered across items into batches of about ``BATCH_COMPARISONS`` object
    comparisons, and each batch's similarity matrices come from one call (kept in
    ``matrices`` with ``keep_matrices``).
    """
    result = SetAgreement(matrices={} if keep_matrices else None)
    remaining = budget
    items = sorted(i for i, by in answers.items() if len(by) >= 2)
    pending: list[tuple[str, str, str]] = []
    pending_cost = 0
    for k, item in enumerate(items):
        by = answers[item]
        objects = {name: select(answer) for name, answer in sorted(by.items())
                   if isinstance(answer, ObjectSet)}
        names = sorted(objects)
        cost = sum(len(objects[x]) * len(objects[y]) for x, y in combinations(names, 2))
        if cost > remaining:
            result.items_over_budget.append(item)
            continue
        remaining -= cost
        result.comparisons += cost
        result.items_scored.append(item)
        result.objects[item] = objects
        pending.extend((item, x, y) for x, y in combinations(names, 2))
        pending_cost += cost
        if pending_cost >= BATCH_COMPARISONS:
            _flush(result, pending, similarity, threshold)
            pending, pending_cost = [], 0
            yield Progress(k + 1, len(items), f"matching item {k + 1} of {len(items)}")
    _flush(result, pending, similarity, threshold)
    return result


def _flush(result: SetAgreement, pending: list[tuple[str, str, str]],
           similarity: BatchSimilarity, threshold: float) -> None:
    if not pending:
        return
    pairs = [(result.objects[item][x], result.objects[item][y]) for item, x, y in pending]
    matrices = similarity(pairs)
    result.outcomes.extend(score_pairs(pending, pairs, matrices, threshold))
    if result.matrices is not None:
        for key, sim in zip(pending, matrices, strict=True):
            result.matrices[key] = sim


def score_pairs(pending: Sequence[tuple[str, str, str]], pairs: Sequence[ObjectsPair],
                matrices: Sequence[np.ndarray], threshold: float) -> list[PairOutcome]:
    """:func:`score_pair` of every pair of a batch, the same outcomes to the bit.

    Why: a lidar study scores 6,000 pairs of 40 × 40 boxes, and a dozen numpy calls per
    pair cost more than the IoU. Most pairs need no choice: every object overlaps at most
    one of the other set enough to match (:func:`~app.core.agreement.sets.matching.match`'s
    first case), so the matching is every such pair. Those are found for the whole batch
    at once (thresholded cells, their rows and columns counted) and scored from slices of
    batch-wide arrays, each credit summed by numpy over its own slice as before. The
    others, and pairs with an empty side, go through :func:`score_pair` itself.
    """
    codes = LabelCodes()
    outcomes: list[PairOutcome | None] = [None] * len(pairs)
    batch = [k for k, (a, b) in enumerate(pairs)
             if len(a) and len(b) and matrices[k].dtype == np.float64]
    if batch:
        _score_simple(batch, pending, pairs, matrices, threshold, codes, outcomes)
    for k, outcome in enumerate(outcomes):
        if outcome is None:
            (item, x, y), (a, b) = pending[k], pairs[k]
            outcomes[k] = score_pair(item, x, y, a, b, matrices[k], threshold, codes)
    return outcomes  # type: ignore[return-value]


def _score_simple(batch: list[int], pending: Sequence[tuple[str, str, str]],
                  pairs: Sequence[ObjectsPair], matrices: Sequence[np.ndarray],
                  threshold: float, codes: LabelCodes, outcomes: list[PairOutcome | None]
                  ) -> None:
    """Fill ``outcomes[k]`` for the pairs of ``batch`` whose matching needs no choice, or
    whose choices :func:`~app.core.agreement.sets.small_matching.split_matching` makes
    (as ``match`` would, on the same preference matrix); the rest are left ``None``."""
    n_a = np.array([len(pairs[k][0]) for k in batch], dtype=np.int64)
    n_b = np.array([len(pairs[k][1]) for k in batch], dtype=np.int64)
    flat = np.concatenate([np.asarray(matrices[k], dtype=np.float64).ravel() for k in batch])
    cells = n_a * n_b
    weights = np.where(flat >= threshold - THRESHOLD_SLACK, flat, 0.0)
    where = np.flatnonzero(weights > 0.0)  # match's positive cells, pair by pair, row-major
    pair = np.repeat(np.arange(len(batch)), cells)[where]
    local = where - (np.cumsum(cells) - cells)[pair]
    rows, cols = np.divmod(local, n_b[pair])
    row_key = (np.cumsum(n_a) - n_a)[pair] + rows
    col_key = (np.cumsum(n_b) - n_b)[pair] + cols
    crowded = ((np.bincount(row_key, minlength=int(n_a.sum()))[row_key] > 1)
               | (np.bincount(col_key, minlength=int(n_b.sum()))[col_key] > 1))
    needs_choice = set(pair[crowded].tolist())  # not np.unique: it imports numpy.ma
    labels_a = np.concatenate([codes.of(pairs[k][0]) for k in batch])
    labels_b = np.concatenate([codes.of(pairs[k][1]) for k in batch])
    same = labels_a[row_key] == labels_b[col_key]
    ious = flat[where]
    credits = np.where(same, ious, ious / 2.0)
    rows, cols = rows.astype(np.int64), cols.astype(np.int64)
    bounds = np.searchsorted(pair, np.arange(len(batch) + 1)).tolist()
    firsts = (np.cumsum(cells) - cells).tolist()
    ceiling = float(ious.max()) * 2.0 if ious.size else 0.0  # above every preference
    for p, k in enumerate(batch):
        start, end = bounds[p], bounds[p + 1]
        na, nb = int(n_a[p]), int(n_b[p])
        item, x, y = pending[k]
        if p in needs_choice:  # match's small components, from the cells split here
            part = crowded[start:end].tolist()
            cells_p = list(zip(rows[start:end].tolist(), cols[start:end].tolist(), strict=True))
            code_a, code_b = codes.of(pairs[k][0]), codes.of(pairs[k][1])
            preference = Preference(weights, firsts[p], na, nb, code_a, code_b)
            chosen = split_matching(preference, [c for c, busy in zip(cells_p, part,
                                                                        strict=True) if not busy],
                                    [c for c, busy in zip(cells_p, part, strict=True) if busy],
                                    ceiling)
            if chosen is None:
                continue  # near ties or a large component: score_pair asks the solver
            r, c = chosen
            matched_iou = flat[firsts[p] + r * nb + c]
            label_match = code_a[r] == code_b[c]
            matched = r.size
            credit = float(np.where(label_match, matched_iou, matched_iou / 2.0).sum())
        else:
            r, c, matched_iou, label_match = (rows[start:end], cols[start:end],
                                              ious[start:end], same[start:end])
            matched = end - start
            credit = float(credits[start:end].sum()) if matched else 0.0
        outcomes[k] = PairOutcome(
            item, x, y, na, nb, credit / (matched + (na - matched) + (nb - matched)),
            2.0 * matched / (na + nb), r, c, matched_iou, label_match)


# --------------------------------------------------------------------------- summaries


@dataclass(frozen=True, slots=True)
class Summary:
    """Means of the set metrics over a list of pair outcomes (``None``: no data)."""

    mean_agreement: float | None
    mean_object_count_diff: float | None
    detection_f1: float | None
    mean_matched_iou: float | None
    n_pairs: int
    n_empty_pairs: int
    n_items: int


def summarize(outcomes: Sequence[PairOutcome]) -> Summary:
    if not outcomes:
        return Summary(None, None, None, None, 0, 0, 0)
    scores = np.array([o.score for o in outcomes])
    diffs = np.array([o.count_diff for o in outcomes], dtype=np.float64)
    f1 = np.array([o.f1 for o in outcomes])
    matched = np.concatenate([o.matched_iou for o in outcomes])
    return Summary(
        mean_agreement=float(scores.mean()),
        mean_object_count_diff=float(diffs.mean()),
        detection_f1=float(f1.mean()),
        mean_matched_iou=float(matched.mean()) if matched.size else None,
        n_pairs=len(outcomes),
        n_empty_pairs=sum(1 for o in outcomes if o.empty),
        n_items=len({o.item for o in outcomes}),
    )


def per_item_sums(outcomes: Sequence[PairOutcome]) -> tuple[list[str], np.ndarray]:
    """Per item: sums of score, count diff, F1, pairs, matched IoU and matched count."""
    index: dict[str, int] = {}
    rows: list[list[float]] = []
    for o in outcomes:
        k = index.setdefault(o.item, len(rows))
        if k == len(rows):
            rows.append([0.0] * 6)
        row = rows[k]
        row[0] += o.score
        row[1] += o.count_diff
        row[2] += o.f1
        row[3] += 1
        row[4] += float(o.matched_iou.sum())
        row[5] += o.matched_iou.size
    return list(index), np.array(rows, dtype=np.float64).reshape(len(rows), 6)


def bootstrap_intervals(outcomes: Sequence[PairOutcome], seed: int,
                        resamples: int = BOOTSTRAP_RESAMPLES, level: float = INTERVAL_LEVEL
                        ) -> dict[str, list[float]]:
    """Percentile intervals of every set metric, resampling items with replacement."""
    _, sums = per_item_sums(outcomes)
    n = sums.shape[0]
    if n < 2:
        return {}
    rng = np.random.default_rng(seed)
    totals = np.empty((resamples, 6))
    chunk = max(1, 2_000_000 // n)
    columns = np.ascontiguousarray(sums.T)
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        draws = np.ascontiguousarray(rng.integers(0, n, size=(stop - start, n)).T)
        # Column by column, draw-major and C-contiguous, so numpy adds each total first
        # draw to last: the order (and so the bits) of summing the (resamples, n, 6)
        # gather over its middle axis, from one (n, chunk) gather at a time instead of a
        # six times larger one (half the time, a sixth of the memory).
        for k in range(6):
            totals[start:stop, k] = columns[k][draws].sum(axis=0)
    tail = (1.0 - level) / 2.0 * 100.0
    out: dict[str, list[float]] = {}
    for name, numerator, denominator in (("mean_agreement", 0, 3),
                                         ("mean_object_count_diff", 1, 3),
                                         ("detection_f1", 2, 3), ("mean_matched_iou", 4, 5)):
        den = totals[:, denominator]
        if not (den > 0).all():
            continue
        ratio = totals[:, numerator] / den
        lo, hi = np.percentile(ratio, [tail, 100.0 - tail])
        out[name] = [float(lo), float(hi)]
    return out
