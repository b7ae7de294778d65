"""The size a data file declares for an item's picture is believed only when it is sane."""

from __future__ import annotations

import pytest

from app.core.model import Item
from app.ui.views.image_canvas import DEFAULT_SIZE, MAX_SIDE, item_image


@pytest.mark.parametrize(("width", "height", "expected"), [
    (320, 240, (320, 240)),
    ("320", 240.0, (320, 240)),
    ("abc", -3, DEFAULT_SIZE),            # was a ValueError on the GUI thread
    (float("nan"), float("inf"), DEFAULT_SIZE),
    (1e308, 0, DEFAULT_SIZE),             # a scene that size would be allocated
    (True, [1], DEFAULT_SIZE),
    (MAX_SIDE, MAX_SIDE + 1, (MAX_SIDE, DEFAULT_SIZE[1])),
])
def test_declared_sizes(width: object, height: object, expected: tuple[int, int]) -> None:
    image, size = item_image(Item("i", {"width": width, "height": height}))
    assert image is None and size == expected
