"""A crowded pair of a batch is matched from its preference read cell by cell
(:class:`~app.core.agreement.sets.preference.Preference`) and with the margin bounded
before it is summed (``split_matching``'s ``ceiling``): the same cells, the same sum to
the bit, and the same choices as from the whole matrix, near ties included."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.agreement.sets.agreement import LabelCodes, score_pair, score_pairs
from app.core.agreement.sets.matching import TIE_BREAK
from app.core.agreement.sets.preference import Preference
from app.core.agreement.sets.small_matching import MARGIN, split_matching
from app.core.objects import Segment


def _matrix_and_codes(rng: np.random.Generator, n_a: int, n_b: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    weights = np.where(rng.random((n_a, n_b)) < 0.3, rng.uniform(0.25, 1.0, (n_a, n_b)), 0.0)
    return weights, rng.integers(0, 3, n_a), rng.integers(0, 3, n_b)


def test_cells_and_sum_are_the_matrix_s() -> None:
    rng = np.random.default_rng(1)
    for n_a, n_b in ((1, 1), (3, 7), (40, 40), (41, 13)):
        weights, code_a, code_b = _matrix_and_codes(rng, n_a, n_b)
        flat = np.concatenate([rng.random(5), weights.ravel(), rng.random(3)])
        lazy = Preference(flat, 5, n_a, n_b, code_a, code_b)
        whole = weights * (1.0 + TIE_BREAK * np.asarray(code_a[:, None] == code_b[None, :],
                                                         dtype=np.float64))
        assert lazy.shape == whole.shape
        assert [lazy[r, c] for r in range(n_a) for c in range(n_b)] == whole.ravel().tolist()
        assert lazy.sum().hex() == float(whole.sum()).hex()


def _split(weights: np.ndarray) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    positive = weights > 0
    alone = positive & (positive.sum(axis=1) == 1)[:, None] & (positive.sum(axis=0) == 1)
    cells = list(zip(*np.nonzero(positive), strict=True))
    return ([(int(r), int(c)) for r, c in cells if alone[r, c]],
            [(int(r), int(c)) for r, c in cells if not alone[r, c]])


@pytest.mark.parametrize("gap", [0.0, 0.5 * MARGIN, MARGIN, 3 * MARGIN, 30 * MARGIN, 100 * MARGIN,
                                 300 * MARGIN, 1e-6, 0.1])
def test_the_bounded_margin_makes_the_whole_margin_s_choices(gap: float) -> None:
    """Two rows and two columns that cross: matchings worth ``1 + gap`` and ``1``, beside
    many lone cells that make the exact margin large (gaps between the bounds)."""
    rng = np.random.default_rng(7)
    weights = np.zeros((60, 60))
    weights[0, 0], weights[1, 1] = 0.5 + gap, 0.5
    weights[0, 1] = weights[1, 0] = 0.5
    weights[np.arange(2, 60), np.arange(2, 60)] = rng.uniform(0.9, 1.0, 58)
    alone, edges = _split(weights)
    expected = split_matching(weights, alone, edges)
    for ceiling in (1.0, float(weights.max()), 2.0):
        got = split_matching(weights, alone, edges, ceiling)
        assert (got is None) == (expected is None)
        if got is not None and expected is not None:
            assert got[0].tolist() == expected[0].tolist()
            assert got[1].tolist() == expected[1].tolist()


def test_batches_with_crowded_pairs_are_their_pairs_alone() -> None:
    rng = np.random.default_rng(11)
    pending, pairs, matrices = [], [], []
    for k in range(60):
        n_a, n_b = (int(v) for v in rng.integers(1, 12, 2))
        weights, code_a, code_b = _matrix_and_codes(rng, n_a, n_b)
        names = ("car", "truck", "van")
        pairs.append((tuple(Segment(0.0, 1.0, names[c]) for c in code_a),
                      tuple(Segment(0.0, 1.0, names[c]) for c in code_b)))
        matrices.append(weights)
        pending.append((f"item-{k}", "ana", "ben"))
    together = score_pairs(pending, pairs, matrices, 0.25)
    codes = LabelCodes()
    for key, (a, b), sim, got in zip(pending, pairs, matrices, together, strict=True):
        want = score_pair(*key, a, b, sim, 0.25, codes)
        assert (got.score.hex(), got.f1.hex(), got.rows.tolist(), got.cols.tolist(),
                got.matched_iou.tobytes(), got.label_match.dtype, got.label_match.tolist()) == (
            want.score.hex(), want.f1.hex(), want.rows.tolist(), want.cols.tolist(),
            want.matched_iou.tobytes(), want.label_match.dtype, want.label_match.tolist())
