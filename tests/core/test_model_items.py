"""``Item``'s media and steps: one shared read-only empty mapping for the items that have
none (``model.NO_ENTRIES``), which reads as an empty dict does."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from app.core.model import NO_ENTRIES, Item


def test_an_item_without_media_or_steps_reads_as_empty_dicts() -> None:
    a, b = Item("a", {"id": "a"}), Item("b", {"id": "b"}, "text")
    assert a.media is NO_ENTRIES and b.steps is NO_ENTRIES  # shared, not made per item
    for empty in (a.media, a.steps):
        assert len(empty) == 0 and list(empty) == [] and dict(empty) == {}
        assert "image" not in empty and empty.get("image") is None
        assert empty == {} and {} == empty and not empty  # noqa: SIM300 - both ways
        assert list(empty.items()) == [] and list(empty.values()) == []
        with pytest.raises(KeyError):
            empty["image"]
        with pytest.raises(TypeError):
            empty["image"] = Path("x.png")  # type: ignore[index]
    assert repr(a) == "Item(id='a', record={'id': 'a'}, text=None, media={}, steps={})"
    assert copy.deepcopy(a).media is NO_ENTRIES and pickle.loads(pickle.dumps(a)) == a
    assert pickle.loads(pickle.dumps(a)).steps is NO_ENTRIES


def test_an_item_keeps_its_own_media() -> None:
    item = Item("a", {"id": "a"}, None, {"image": Path("a.png")})
    assert item.media == {"image": Path("a.png")} and Item("b", {}).media == {}
