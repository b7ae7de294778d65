"""``kept_whole``: every tier's items are the study's (and its schema one of the schemes),
against sets, on tiers that hold the study's items in sorted order, fewer, or others."""

from __future__ import annotations

import random

import pytest

from app.core import slices
from app.core.formats.potato.engine.answers import StoredAnswers, TierColumns
from app.core.formats.potato.engine.predictions import kept_whole


def _tier(items: list[str], tier: str) -> TierColumns:
    n = len(items)
    return TierColumns.build("s", tier, items, ["pos"] * n, [0.5] * n, ["ok"] * n, None,
                             sorted_items=True)


@pytest.mark.parametrize("seed", range(8))
def test_kept_whole_is_set_inclusion(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slices, "SORT_IN_NUMPY", 5)  # the numpy sort and its kept order
    rng = random.Random(seed)
    study = [f"i{k}" for k in rng.sample(range(1000), rng.randint(6, 60))]
    items = dict.fromkeys(study).keys()  # the study's order: the data files'
    whole = sorted(study)
    other = sorted([*study[:-1], "not in the study"])
    fewer = sorted(rng.sample(study, len(study) // 2))
    for tiers in ([whole], [whole, whole[:]], [whole, fewer], [fewer], [other],
                  [whole, other], [fewer, other], [sorted([*study, "more"])]):
        stored = StoredAnswers({"s": {f"t{k}": _tier(t, f"t{k}") for k, t in enumerate(tiers)}})
        expected = all(set(t) <= set(study) for t in tiers)
        assert kept_whole(stored, items, {"s"}) is expected
        assert kept_whole(stored, items, {"other"}) is False
