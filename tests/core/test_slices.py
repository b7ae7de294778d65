"""The slice-at-a-time builders give exactly what the single C call gives."""

from __future__ import annotations

import random
import sys
import threading
import time
from itertools import compress

import pytest

from app.core.slices import dict_in_slices, list_in_slices, set_in_slices


@pytest.mark.parametrize("n", [0, 1, 9, 10, 11, 30, 1234])
@pytest.mark.parametrize("size", [1, 3, 10])
def test_same_as_the_builtins(n: int, size: int) -> None:
    rng = random.Random(n * 31 + size)
    keys = [rng.randrange(max(n // 2, 1)) for _ in range(n)]  # repeated keys: last wins
    values = [rng.random() for _ in range(n)]
    assert list_in_slices(iter(values), size) == list(values)
    built = dict_in_slices(zip(keys, values, strict=True), size)
    expected = dict(zip(keys, values, strict=True))
    assert built == expected
    assert list(built) == list(expected)  # the same insertion order
    assert set_in_slices(iter(keys), size) == set(keys)
    mask = [rng.random() < 0.3 for _ in range(n)]
    assert dict_in_slices(compress(zip(keys, values, strict=True), mask), size) == \
        dict(compress(zip(keys, values, strict=True), mask))


def test_a_bad_size_is_refused() -> None:
    for build in (list_in_slices, dict_in_slices, set_in_slices):
        with pytest.raises(ValueError, match="at least 1"):
            build([], 0)  # type: ignore[operator]


def test_other_threads_run_between_slices() -> None:
    """The property the module exists for, counted not timed: a thread that wants the
    interpreter lock gets it during the build. One ``list(...)`` over the same values
    gives it no turn at all (the whole call is one C call)."""
    n = 1_000_000
    turns: list[int] = []
    stop = threading.Event()

    def beat() -> None:
        while not stop.is_set():
            turns.append(1)
            time.sleep(0)

    def count_turns(build: object) -> int:
        turns.clear()
        stop.clear()
        thread = threading.Thread(target=beat)
        thread.start()
        while not turns:  # the beating thread is running
            time.sleep(0.001)
        before = len(turns)
        build()  # type: ignore[operator]
        seen = len(turns) - before
        stop.set()
        thread.join()
        return seen

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    try:
        sliced = count_turns(lambda: list_in_slices(map(str, range(n)), 10_000))
        whole = count_turns(lambda: list(map(str, range(n))))
    finally:
        sys.setswitchinterval(old)
    # The other thread asks all the time: it gets a turn at the 100 slice boundaries,
    # and inside the single call never (only just before or after it, a few turns
    # or, on a loaded machine, a few dozen while the OS keeps it running).
    assert sliced >= 20
    assert sliced > whole


@pytest.mark.parametrize("n", [0, 1, 9, 10, 11, 1234])
def test_array_slices_are_tolist(n: int) -> None:
    import numpy as np

    from app.core.slices import take_in_slices, tolist_in_slices

    rng = random.Random(n)
    values = np.array([rng.random() for _ in range(n)])
    names = np.empty(5, dtype=object)
    names[:] = ["a", "b", 3, 4.5, "e"]
    codes = np.array([rng.randrange(5) for _ in range(n)], dtype=np.int32)
    for size in (1, 3, 10):
        assert tolist_in_slices(values, size) == values.tolist()
        taken = take_in_slices(names, codes, size)
        assert taken == names[codes].tolist()
        assert all(a is b for a, b in zip(taken, names[codes].tolist(), strict=True))
    with pytest.raises(ValueError, match="at least 1"):
        tolist_in_slices(values, 0)
    with pytest.raises(ValueError, match="at least 1"):
        take_in_slices(names, codes, 0)


@pytest.mark.parametrize("n", [0, 1, 9, 10, 11, 1234])
def test_array_in_slices_is_fromiter(n: int) -> None:
    """``array_in_slices`` is ``np.fromiter`` with a count: the same values and dtype,
    the iterator consumed to exactly ``n``, and a short one refused as numpy refuses it."""
    import numpy as np

    from app.core.slices import array_in_slices

    rng = random.Random(n)
    values = [rng.randrange(-5, 1000) for _ in range(n)]
    for size in (1, 3, 10, 100_000):
        built = array_in_slices(iter(values), np.int32, n, size)
        expected = np.fromiter(iter(values), np.int32, n)
        assert built.dtype == expected.dtype and built.tolist() == expected.tolist()
        longer = iter([*values, 7])
        array_in_slices(longer, np.int32, n, size)
        assert next(longer) == 7
    if n:
        with pytest.raises(ValueError):
            array_in_slices(iter(values[:-1]), np.int32, n, 3)
    with pytest.raises(ValueError, match="at least 1"):
        array_in_slices(iter(values), np.int32, n, 0)


def test_sorted_strings_is_sorted(monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy's order against ``sorted``'s, on strings of every width (and the ones numpy
    orders otherwise or cannot hold, which go to ``sorted``)."""
    from app.core import slices

    monkeypatch.setattr(slices, "SORT_IN_NUMPY", 10)
    rng = random.Random(9)
    alphabet = ["a", "b", "é", "\U0001f600", "\uffff", "\U0010ffff", "Z", "0", " ", "\u0100",
                "\x01", "\x7f", "\u0800"]
    for extra in ([], ["a\x00b", "a\x00"], ["x\ud800"]):
        values = list({"".join(rng.choice(alphabet) for _ in range(rng.randrange(7)))
                       for _ in range(5000)}) + extra
        got = slices.sorted_strings(values, 100)
        assert got == sorted(values)
        by_value = {id(v) for v in values}
        assert all(id(v) in by_value for v in got)  # the very objects
