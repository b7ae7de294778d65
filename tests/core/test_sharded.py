"""``app.core.sharded`` against the dict it stands for (the oracle), at one dict and at
many (the key count per dict made small so a test-sized map is split)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from app.core import sharded
from app.core.sharded import ShardedIndex, ShardedMap, shard_count


@pytest.fixture(params=[1 << 16, 7], ids=["one-dict", "many-dicts"])
def keys_per_dict(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sharded, "SHARD_KEYS", request.param)
    return int(request.param)


def _keys(rng: random.Random, n: int) -> list[str]:
    return list(dict.fromkeys(f"k{rng.randrange(10 * n + 10)}-{'é' * rng.randrange(3)}"
                              for _ in range(n)))


def test_shard_count() -> None:
    assert [shard_count(n) for n in (0, 1, 65_536, 65_537, 131_072, 131_073, 1_000_000)] \
        == [1, 1, 1, 2, 2, 4, 16]


@pytest.mark.parametrize("n", [0, 1, 2, 50, 1000])
def test_every_read_equals_the_dict(keys_per_dict: int, n: int) -> None:
    rng = random.Random(n)
    keys = _keys(rng, n)
    values = [object() for _ in keys]
    oracle = dict(zip(keys, values, strict=True))
    mine = ShardedMap.of(keys, values)
    assert mine is not None
    if keys_per_dict == 7 and n >= 50:
        assert len(mine.index._shards) == shard_count(len(keys)) > 1
    assert len(mine) == len(oracle) and list(mine) == list(oracle)
    assert list(mine.keys()) == list(oracle.keys())
    assert list(mine.values()) == list(oracle.values())
    assert list(mine.items()) == list(oracle.items())
    assert mine == oracle and dict(mine) == oracle
    for key in [*keys, "absent", "", "k1-é"]:
        assert (key in mine) == (key in oracle)
        assert mine.get(key, "none") is oracle.get(key, "none")
        if key in oracle:
            assert mine[key] is oracle[key] and mine.index[key] == keys.index(key)
        else:
            with pytest.raises(KeyError):
                mine[key]
            assert mine.index.get(key) is None and key not in mine.index
    for other in (7, None, 2.5, ("k",)):
        assert other not in mine and mine.get(other) is None
    with pytest.raises(TypeError):  # as the dict: an unhashable key
        _ = ["k"] in mine
    assert (keys[0], values[0]) in mine.items() if keys else True


def test_codes_are_the_positions(keys_per_dict: int) -> None:
    rng = random.Random(1)
    keys = _keys(rng, 3000)
    index = ShardedIndex.of(keys)
    assert index is not None
    asked = [rng.choice(keys) for _ in range(5000)]
    expected = np.array([keys.index(k) for k in asked], dtype=np.int64)
    assert np.array_equal(index.codes(iter(asked), len(asked)), expected)
    with pytest.raises(KeyError):
        index.codes(iter([keys[0], "absent"]), 2)


def test_a_repeated_key_gives_none(keys_per_dict: int) -> None:
    keys = [f"k{i}" for i in range(100)]
    assert ShardedIndex.of([*keys, "k50"]) is None
    assert ShardedMap.of([*keys, "k0"], list(range(101))) is None
    with pytest.raises(ValueError, match="one value per key"):
        ShardedMap(ShardedIndex.of(keys), [1])  # type: ignore[arg-type]
