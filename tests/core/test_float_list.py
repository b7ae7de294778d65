"""``FloatList`` reads as ``array.tolist()``: the same floats, bit for bit."""

from __future__ import annotations

import pickle
import struct

import numpy as np
import pytest

from app.core.float_list import FloatList


def _doubles(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**63, n, dtype=np.uint64)  # every exponent, both signs below
    values = bits.view(np.float64).copy()
    values[::7] *= -1
    values[::11] = 0.0
    values[::13] = -0.0
    return values[np.isfinite(values)]


@pytest.mark.parametrize("seed", range(5))
def test_elements_slices_and_iteration_are_tolist(seed: int) -> None:
    array = _doubles(2000, seed)
    listed = array.tolist()
    lazy = FloatList(array)
    assert len(lazy) == len(listed)
    for i in [0, 1, len(listed) - 1, -1, -len(listed), *range(0, len(listed), 97)]:
        assert type(lazy[i]) is float
        assert struct.pack("<d", lazy[i]) == struct.pack("<d", listed[i])  # -0.0 too
    for part in (slice(3, 50), slice(None, None, -3), slice(-10, None)):
        assert [x.hex() for x in lazy[part]] == [x.hex() for x in listed[part]]
    assert [x.hex() for x in lazy] == [x.hex() for x in listed]
    assert [x.hex() for x in lazy[5:9]] == [x.hex() for x in listed[5:9]]  # after listing
    with pytest.raises(IndexError):
        lazy[len(listed)]


def test_equality_is_a_lists() -> None:
    array = np.array([0.5, 1.0, -2.0])
    listed = [0.5, 1.0, -2.0]
    assert FloatList(array) == listed and listed == FloatList(array)  # both sides
    assert FloatList(array) == FloatList(array.copy())
    assert FloatList(array) != [0.5, 1.0] and FloatList(array) != (0.5, 1.0, -2.0)
    restored = pickle.loads(pickle.dumps(FloatList(array)))
    assert restored == [0.5, 1.0, -2.0]
    with pytest.raises(TypeError):
        hash(FloatList(array))


def test_only_a_flat_float64_array() -> None:
    with pytest.raises(ValueError):
        FloatList(np.array([1, 2]))
    with pytest.raises(ValueError):
        FloatList(np.zeros((2, 2)))
