"""The slice view's geometry: one slice decoded equals Potato's own decoder, and the
outline's segments are exactly the unit edges a brute-force walk finds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.core.agreement.volumes.reading import parse_volume
from app.core.agreement.volumes.slices import outline, painted_slices, slice_dice, slice_mask
from app.core.formats.potato.place import Place
from app.core.model import Kind, Scheme
from tests.core.volume_data import stored

SCHEME = Scheme("seg", "volume_annotation", Kind.VOLUMES, labels=("A",))


@pytest.mark.parametrize("seed", range(6))
def test_slice_mask_equals_potato_decoder(seed: int) -> None:
    from potato.media.volume_masks import label_volume

    rng = np.random.default_rng(seed)
    shape = (7, 5, 4)
    vol = rng.random(shape) < 0.4
    vol[:, :, 2] = False
    raw = stored({"A": vol}, shape, ["A"])
    answer = parse_volume(json.loads(json.dumps(raw)), SCHEME,
                          Place(Path("u.json"), "i", "seg", "a"))
    theirs = label_volume(raw, shape, "A")
    for k in range(shape[2]):
        assert np.array_equal(slice_mask(answer, "A", k), theirs[:, :, k].T)
    assert painted_slices([answer], "A") == [k for k in range(4) if vol[:, :, k].any()]
    assert 2 not in painted_slices([answer], None)


def _brute_edges(mask: np.ndarray) -> set[tuple[int, int, int, int]]:
    nj, ni = mask.shape
    edges = set()
    for j in range(nj):
        for i in range(ni):
            if not mask[j, i]:
                continue
            if j == 0 or not mask[j - 1, i]:
                edges.add((i, j, i + 1, j))
            if j == nj - 1 or not mask[j + 1, i]:
                edges.add((i, j + 1, i + 1, j + 1))
            if i == 0 or not mask[j, i - 1]:
                edges.add((i, j, i, j + 1))
            if i == ni - 1 or not mask[j, i + 1]:
                edges.add((i + 1, j, i + 1, j + 1))
    return edges


@pytest.mark.parametrize("seed", range(6))
def test_outline_is_every_boundary_edge(seed: int) -> None:
    mask = np.random.default_rng(seed).random((6, 9)) < 0.5
    segments = outline(mask)
    assert {tuple(int(v) for v in s) for s in segments} == _brute_edges(mask)
    assert len(segments) == len(_brute_edges(mask))


def test_slice_dice() -> None:
    a = np.array([[1, 1, 0]], bool)
    b = np.array([[0, 1, 1]], bool)
    assert slice_dice(a, b) == 0.5
    assert slice_dice(a & False, b & False) is None
