"""The slice-at-a-time builders give exactly what the single C call gives."""

from __future__ import annotations

import random
import sys
import threading
import time
from itertools import compress

import numpy as np
import pytest

from app.core.slices import (
    dict_in_slices,
    empty_in_slices,
    list_in_slices,
    repeat_each,
    set_in_slices,
    tiled,
)


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


def test_string_order_is_sorteds_stable_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The order numpy gives (ties kept in place) against ``sorted``'s on the indices,
    with repeated strings and the ones that go to ``sorted``."""
    from app.core import slices

    monkeypatch.setattr(slices, "SORT_IN_NUMPY", 10)
    rng = random.Random(4)
    alphabet = ["a", "b", "é", "\U0001f600", "Z", "\u0800", "\x01"]
    for extra in ([], ["a\x00b"], ["x\ud800"]):
        values = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(4)))
                  for _ in range(3000)] + extra
        expected = sorted(range(len(values)), key=values.__getitem__)
        assert slices.string_order(values, 100).tolist() == expected


def test_string_order_keeps_the_last_long_lists_order(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    """The same strings again (other objects, another list) get the kept order back, read
    only; any other list is sorted afresh, and each answer is ``sorted``'s."""
    from app.core import slices

    monkeypatch.setattr(slices, "SORT_IN_NUMPY", 10)
    monkeypatch.setattr(slices, "_last_order", [])
    rng = random.Random(12)
    values = [f"k{rng.randrange(500)}" for _ in range(400)]
    first = slices.string_order(values, 50)
    assert not first.flags.writeable
    copies = ["".join(list(v)) for v in values]  # equal strings, other objects
    assert slices.string_order(copies, 50) is first
    for other in (values[:-1], [*values[:-1], "k-1"], list(reversed(values)),
                  [*values[1:], "k"]):
        got = slices.string_order(other, 50)
        assert got.tolist() == sorted(range(len(other)), key=other.__getitem__)
    assert slices.string_order(values, 50) is not first  # the kept one was replaced
    assert slices.string_order(values, 50).tolist() == first.tolist()
    with pytest.raises(ValueError):
        first[0] = 1


def test_equal_in_slices_is_list_equality() -> None:
    from app.core.slices import equal_in_slices

    rng = random.Random(3)
    for _ in range(300):
        a = [rng.choice("abc") for _ in range(rng.randrange(6))]
        b = [rng.choice("abc") for _ in range(rng.randrange(6))]
        for size in (1, 2, 100):
            assert equal_in_slices(a, b, size) == (a == b)
            assert equal_in_slices(tuple(a), a, size)


def test_contains_in_slices_is_in() -> None:
    from app.core.slices import contains_in_slices

    rng = random.Random(5)
    for _ in range(300):
        values = [rng.choice(["", "a", "b", "ab"]) for _ in range(rng.randrange(8))]
        target = rng.choice(["", "a", "c"])
        for size in (1, 2, 3, 100):
            assert contains_in_slices(values, target, size) == (target in values)
            assert contains_in_slices(tuple(values), target, size) == (target in values)
    with pytest.raises(ValueError):
        contains_in_slices(["a"], "a", 0)


def test_joined_object_array_is_the_concatenation() -> None:
    from app.core.nones import Nones
    from app.core.slices import joined_object_array

    rng = random.Random(7)
    for _ in range(200):
        parts = [[f"v{rng.randrange(50)}" for _ in range(rng.randrange(7))]
                 for _ in range(rng.randrange(5))]
        expected = [v for part in parts for v in part]
        for size in (1, 2, 3, 100):
            got = joined_object_array(parts, size)
            assert got.dtype == object and got.tolist() == expected
            assert joined_object_array([tuple(p) for p in parts], size).tolist() == expected
    assert joined_object_array([Nones(2), ["a"]]).tolist() == [None, None, "a"]
    with pytest.raises(ValueError):
        joined_object_array([["a"]], 0)


def test_object_array_takes_any_sequence() -> None:
    from app.core.nones import Nones
    from app.core.slices import object_array

    for values in (["a", "b", "c"], ("a", "b", "c"), Nones(5), []):
        for size in (1, 2, 100):
            got = object_array(values, size)
            assert got.dtype == object and got.tolist() == list(values)


@pytest.mark.parametrize("size", [1, 2, 7, 1 << 19])
def test_split_in_slices_is_split(size: int) -> None:
    from app.core.slices import split_in_slices

    rng = random.Random(size)
    for _ in range(200):
        text = "".join(rng.choice("ab\x1f") for _ in range(rng.randrange(40)))
        assert split_in_slices(text, "\x1f", size) == text.split("\x1f")
    with pytest.raises(ValueError, match="one character"):
        split_in_slices("a,b", ",,")


@pytest.mark.parametrize("size", [1, 3, 10, 1 << 19])
def test_ints_in_slices_reads_what_group_concat_writes(size: int) -> None:
    """Integers of any sign and width up to int64's ends, as SQLite joins them."""
    import sqlite3

    from app.core.slices import ints_in_slices

    rng = random.Random(size)
    numbers = [rng.choice([0, -1, 7, 2**63 - 1, -(2**63), rng.randrange(-(2**62), 2**62)])
               for _ in range(500)]
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (x INTEGER)")
    db.executemany("INSERT INTO t VALUES (?)", [(n,) for n in numbers])
    for count in (1, 2, 500):
        (text,) = db.execute(f"SELECT group_concat(x) FROM (SELECT x FROM t LIMIT {count})"
                             ).fetchone()
        assert ints_in_slices(text, np.int64, size).tolist() == numbers[:count]
    for bad in ("1,x,3", "x", "1,,2", "1.5,2"):
        with pytest.raises(ValueError):
            ints_in_slices(bad, np.int64, size)


@pytest.mark.parametrize("times", [1, 2, 3, 7])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_repeat_each_and_tiled_are_numpys_repeat_and_tile(times: int, dtype: type) -> None:
    values = np.array([5, -1, 0, 3, 3, 9], dtype=dtype)
    for given in (values, values[:0], values[::2]):  # empty, not contiguous
        for got, expected in ((repeat_each(given, times), np.repeat(given, times)),
                              (tiled(given, times), np.tile(given, times))):
            assert got.dtype == expected.dtype
            assert got.flags.c_contiguous
            np.testing.assert_array_equal(got, expected)
    for got in (repeat_each(values, times), tiled(values, times)):
        got[0] = 42  # a copy of its own, not a view of the values
        assert values[0] == 5


def test_every_sliced_loop_hands_the_lock_over_between_slices(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each helper calls ``let_others_run`` between its slices (a loop of numpy string
    conversions, which let go of the lock inside, otherwise starved the GUI thread
    60-90 ms): counted, at least once per slice boundary."""
    from app.core import slices

    calls: list[int] = []
    monkeypatch.setattr(slices, "let_others_run", lambda: calls.append(1))
    monkeypatch.setattr(slices, "SORT_IN_NUMPY", 10)
    numbers = np.arange(100, dtype=np.float64)
    strings = [f"s{k % 37}" for k in range(100)]
    text = ",".join(map(str, range(100)))
    runs = {
        "list_in_slices": lambda: slices.list_in_slices(iter(strings), 10),
        "dict_in_slices": lambda: slices.dict_in_slices(zip(strings, range(100), strict=True),
                                                        10),
        "tolist_in_slices": lambda: slices.tolist_in_slices(numbers, 10),
        "array_in_slices": lambda: slices.array_in_slices(iter(range(100)), np.int64, 100, 10),
        "take_in_slices": lambda: slices.take_in_slices(slices.object_array(strings),
                                                        np.arange(100), 10),
        "object_array": lambda: slices.object_array(strings, 10),
        "joined_object_array": lambda: slices.joined_object_array([strings[:50],
                                                                   strings[50:]], 10),
        "string_order": lambda: slices._numpy_order(strings, 10),
        "equal_in_slices": lambda: slices.equal_in_slices(strings, list(strings), 10),
        "contains_in_slices": lambda: slices.contains_in_slices(strings, "absent", 10),
        "split_in_slices": lambda: slices.split_in_slices(text, ",", 30),
        "ints_in_slices": lambda: slices.ints_in_slices(text, np.int64, 30),
    }
    for name, run in runs.items():
        calls.clear()
        run()
        assert len(calls) >= 5, name


class _Answer:
    """A value that can be watched for being freed (weakref)."""


@pytest.mark.parametrize("n", [0, 1, 255, 256, 257, 1000])
def test_empty_in_slices_frees_what_only_the_dict_held(n: int) -> None:
    import weakref

    values = {f"doc{i}": [_Answer()] for i in range(n)}
    kept = values.get("doc7")  # a value someone else holds stays whole
    watched = [weakref.ref(v[0]) for v in values.values()]
    handovers: list[int] = []
    original = sys.modules["app.core.slices"].let_others_run
    sys.modules["app.core.slices"].let_others_run = lambda: handovers.append(len(values))
    try:
        empty_in_slices(values)
    finally:
        sys.modules["app.core.slices"].let_others_run = original
    assert values == {}
    assert sum(w() is not None for w in watched) == (1 if kept is not None else 0)
    assert kept is None or isinstance(kept[0], _Answer)
    assert handovers == [max(n - 256 * (k + 1), 0) for k in range(-(-n // 256))]
