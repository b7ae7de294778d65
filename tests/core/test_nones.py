"""``Nones(n)`` reads as ``[None] * n`` does, every way a reader may ask."""

from __future__ import annotations

from itertools import compress

import pytest

from app.core.nones import Nones


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_nones_read_as_the_list(n: int) -> None:
    nones, listed = Nones(n), [None] * n
    assert len(nones) == n and list(nones) == listed and list(reversed(nones)) == listed
    for index in range(-n - 2, n + 2):
        if -n <= index < n:
            assert nones[index] is None
        else:
            with pytest.raises(IndexError):
                nones[index]
    for start in (None, -3, 0, 1, 5):
        for stop in (None, -1, 0, 2, 9):
            for step in (None, 1, 2, -1):
                assert nones[start:stop:step] == listed[start:stop:step]
    assert (None in nones) == (None in listed) and (0 in nones) is False
    assert nones.count(None) == listed.count(None) and nones.count(0) == 0
    assert nones.index(None) == 0 if n else True
    keep = [k % 2 == 0 for k in range(n)]
    assert list(compress(nones, keep)) == list(compress(listed, keep))
    assert nones == listed and listed == nones and nones == tuple(listed) and nones == Nones(n)


def test_nones_differ_from_other_lists() -> None:
    assert Nones(2) != [None, 0] and Nones(2) != [None] and Nones(2) != Nones(3)
    assert Nones(1) != "x" and Nones(0) == []
    with pytest.raises(ValueError, match="at least 0"):
        Nones(-1)
    with pytest.raises(TypeError):
        hash(Nones(1))
