"""A batch scored at once (``score_pairs``) is every pair scored alone (``score_pair``),
to the bit: matched pairs, IoUs, labels, scores and F1."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.agreement.sets.agreement import LabelCodes, score_pair, score_pairs
from app.core.objects import Segment


def _objects(rng: np.random.Generator, n: int) -> tuple[Segment, ...]:
    return tuple(Segment(float(k), float(k) + 1.0, str(rng.choice(["a", "b", "c"])))
                 for k in range(n))


def _matrix(rng: np.random.Generator, n_a: int, n_b: int, crowded: bool) -> np.ndarray:
    """Mostly one overlap per object (a permutation), some crowding, exact thresholds."""
    s = np.zeros((n_a, n_b))
    k = min(n_a, n_b)
    s[rng.permutation(n_a)[:k], rng.permutation(n_b)[:k]] = rng.uniform(0.26, 1.0, k)
    s[rng.random((n_a, n_b)) < (0.1 if crowded else 0.01)] *= 0.5  # some below it
    if crowded and n_a > 1 and n_b > 1:
        s[rng.integers(0, n_a, 3), rng.integers(0, n_b, 3)] = rng.uniform(0.2, 0.9, 3)
    s[rng.random((n_a, n_b)) < 0.02] = 0.5  # the threshold itself
    return s


def _fields(outcome: object) -> tuple[object, ...]:
    o = outcome
    return (o.item, o.a, o.b, o.n_a, o.n_b, o.score.hex(), o.f1.hex(),  # type: ignore[attr-defined]
            o.rows.dtype, o.rows.tolist(), o.cols.dtype, o.cols.tolist(),  # type: ignore[attr-defined]
            o.matched_iou.dtype, o.matched_iou.tobytes(),  # type: ignore[attr-defined]
            o.label_match.dtype, o.label_match.tolist())  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("threshold", [0.25, 0.5, 1e-13])
def test_a_batch_is_its_pairs_scored_alone(seed: int, threshold: float) -> None:
    rng = np.random.default_rng(seed)
    pending, pairs, matrices = [], [], []
    for k in range(40):
        n_a, n_b = (int(v) for v in rng.choice([0, 1, 2, 7, 9, 40, 150], 2)) if k else (150, 150)
        a, b = _objects(rng, n_a), _objects(rng, n_b)
        pending.append((f"item-{k // 3}", "ana", f"ben{k}"))
        pairs.append((a, b))
        matrices.append(_matrix(rng, n_a, n_b, crowded=k > 0 and bool(rng.random() < 0.3)))
    together = score_pairs(pending, pairs, matrices, threshold)
    codes = LabelCodes()
    alone = [score_pair(*key, a, b, sim, threshold, codes)
             for key, (a, b), sim in zip(pending, pairs, matrices, strict=True)]
    assert [_fields(o) for o in together] == [_fields(o) for o in alone]
    assert threshold != 1e-13 or any(o.rows.size > 128 for o in together)  # sums in blocks
