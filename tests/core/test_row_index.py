"""``RowIndex`` against the dict it stands for (``{k: i for i, k in enumerate(keys)}``)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from app.core import row_index
from app.core.row_index import RowIndex, positions_in


def _keys(rng: random.Random, n: int) -> list[str]:
    pool = {f"i{rng.randrange(10 * n + 10)}" for _ in range(n)} | {"é", "🙂", "a b", "Z"}
    return sorted(pool)


def _oracle(index: dict[str, int], wanted: list[Any]) -> list[int]:
    return [index.get(key, -1) for key in wanted]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("searches", [0, 3, 20_000])
def test_lookups_equal_the_dict(seed: int, searches: int, monkeypatch: pytest.MonkeyPatch
                                ) -> None:
    monkeypatch.setattr(row_index, "SEARCHES", searches)  # binary search, the dict, both
    rng = random.Random(seed)
    keys = _keys(rng, rng.randint(0, 400))
    oracle = {key: i for i, key in enumerate(keys)}
    index = RowIndex(keys)
    asked: list[Any] = [*rng.sample(keys, min(len(keys), 20)), "absent", "", "i", 7, None,
                        "zzzz", "\x00"]
    for key in asked:
        assert index.get(key) == oracle.get(key)
        assert index.get(key, -5) == oracle.get(key, -5)
        assert (key in index) == (key in oracle)
        if key in oracle:
            assert index[key] == oracle[key]
        else:
            with pytest.raises(KeyError):
                index[key]
    assert len(index) == len(oracle) and list(index) == list(oracle)
    assert index == oracle and oracle == index


@pytest.mark.parametrize("seed", range(12))
def test_positions_equal_the_dict(seed: int) -> None:
    rng = random.Random(seed)
    keys = _keys(rng, rng.randint(1, 400))
    oracle = {key: i for i, key in enumerate(keys)}
    shuffled = rng.sample(keys, len(keys))
    with_duplicate = [*shuffled[:-1], shuffled[0]]  # as long as the keys, one twice
    with_other = [*shuffled[:-1], "not a key"]
    mixed: list[Any] = [*shuffled[:-1], 5]  # not all strings
    cases = [keys, list(keys), tuple(keys), shuffled, tuple(shuffled), with_duplicate,
             with_other, mixed, shuffled[: len(keys) // 2], [*shuffled, "more"], []]
    for wanted in cases:
        expected = np.array(_oracle(oracle, list(wanted)), np.int64)
        for index in (RowIndex(keys), oracle):
            found = positions_in(index, wanted)
            assert found.dtype == np.int64
            assert found.tolist() == expected.tolist()


def test_the_same_keys_in_another_order_need_no_dict() -> None:
    """A permutation of the keys (the common cascade: every tier answered every item) is
    ranked by a sort, and a few single keys by binary search: no dict is made."""
    keys = [f"item-{k:05d}" for k in range(5000)]
    index = RowIndex(keys)
    shuffled = random.Random(1).sample(keys, len(keys))
    assert index.positions(shuffled).tolist() == [int(key[5:]) for key in shuffled]
    assert index.positions(keys).tolist() == list(range(5000))
    assert [index.get(key) for key in shuffled[:100]] == [int(k[5:]) for k in shuffled[:100]]
    assert index._table is None


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("searches", [0, 5, 100_000])
def test_walks_in_the_keys_order_equal_the_dict(seed: int, searches: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Readers walking sorted items (every key, a subset with gaps short and longer than
    the search window, with absent keys between) and walking back, asking the same key
    twice: each answer is the dict's."""
    monkeypatch.setattr(row_index, "SEARCHES", searches)
    monkeypatch.setattr(row_index, "WINDOW", 4)
    rng = random.Random(seed)
    keys = _keys(rng, rng.randint(1, 500))
    oracle = {key: i for i, key in enumerate(keys)}
    index = RowIndex(keys)
    subset = sorted([*rng.sample(keys, len(keys) // 3), "i", "i5x", "zzz", "0"])
    walks: list[list[Any]] = [keys, subset, keys[::-1], [k for k in keys for _ in range(2)],
                              [*keys[: len(keys) // 2], *keys[: len(keys) // 2]], subset]
    for walk in walks:
        assert [index.get(key, -1) for key in walk] == _oracle(oracle, walk)
        assert [key in index for key in walk] == [key in oracle for key in walk]


@pytest.mark.parametrize("seed", range(10))
def test_keyed_values_equal_the_dict(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys in any order with their values: the dict's answers, in the keys' own order;
    a key there twice, or one that is no string, is left to the dict (``None``)."""
    from app.core import slices
    from app.core.row_index import keyed_values

    monkeypatch.setattr(slices, "SORT_IN_NUMPY", 10)  # numpy's sort (and the kept order)
    monkeypatch.setattr(row_index, "SEARCHES", [0, 5, 100_000][seed % 3])
    rng = random.Random(seed)
    listed = rng.sample(_keys(rng, rng.randint(1, 300)), k=rng.randint(1, 100))
    values = [rng.randrange(5) for _ in listed]
    oracle = dict(zip(listed, values, strict=True))
    keyed = keyed_values(listed, values)
    assert keyed is not None
    assert list(keyed) == listed and len(keyed) == len(oracle)
    assert list(keyed.items()) == list(oracle.items())
    for key in [*rng.sample(listed, len(listed)), "absent", "", 3, None]:
        assert keyed.get(key) == oracle.get(key)  # type: ignore[arg-type]
        assert (key in keyed) == (key in oracle)
        if key in oracle:
            assert keyed[key] == oracle[key]
        else:
            with pytest.raises(KeyError):
                keyed[key]  # type: ignore[index]
    assert keyed == oracle
    assert keyed_values([*listed, listed[0]], [*values, 9]) is None  # twice: the dict's
    assert keyed_values([*listed, 5], [*values, 9]) is None  # type: ignore[list-item]
    with pytest.raises(ValueError):
        keyed_values(listed, values[:-1])
    empty = keyed_values([], [])
    assert empty is not None and len(empty) == 0 and dict(empty) == {}
