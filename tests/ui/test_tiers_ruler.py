"""The tiers view's time ruler: round steps, labels never closer than the minimum.

Oracle: for the step, every candidate (1, 2, 5 × a power of ten up to 20 s, then 30 s and
the minute steps)
enumerated and the smallest one far enough apart taken; hand-worked cases for ticks and
labels.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.ui.views.tiers.ruler import MINUTE_PARTS, format_time, major_step, ticks


def candidates() -> list[float]:
    small = [m * 10.0**k for k in range(-4, 2) for m in (1.0, 2.0, 5.0)]
    return sorted({*(c for c in small if c <= 20.0), *MINUTE_PARTS})


def test_steps_against_every_candidate() -> None:
    rng = np.random.default_rng(11)
    for _ in range(500):
        span = float(10 ** rng.uniform(-2, 3.5))
        px = float(rng.uniform(200, 2000))
        want = next(c for c in candidates() if c * px / span >= 70.0 * (1 - 1e-9))
        assert major_step(span, px) == pytest.approx(want), (span, px)


def test_ticks_by_hand() -> None:
    t = ticks(0.0, 5.5, 1150.0)
    assert t.step == 0.5
    assert t.major.tolist() == pytest.approx([0.5 * k for k in range(12)])
    assert t.labels[:4] == ("0.0 s", "0.5 s", "1.0 s", "1.5 s")
    assert t.minor_step == pytest.approx(0.1)
    assert t.minor.tolist()[:5] == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.6])
    assert len(t.minor) == 55 - 11 + 1 - 1  # 0.1 … 5.5 without the 11 majors after 0
    zoomed = ticks(1.23, 1.9, 1000.0)
    assert zoomed.step == 0.05 and zoomed.labels[0] == "1.25 s"
    assert ticks(0.0, 3600.0, 1000.0).labels[:3] == ("0:00", "5:00", "10:00")
    assert ticks(0.0, 8.0, 300.0).labels == ("0 s", "2 s", "4 s", "6 s", "8 s")


def test_labels_are_at_least_min_px_apart_at_any_zoom() -> None:
    rng = np.random.default_rng(5)
    for _ in range(300):
        start = float(rng.uniform(0, 100))
        end = start + float(10 ** rng.uniform(-1.5, 3))
        px = float(rng.uniform(150, 2500))
        t = ticks(start, end, px)
        assert np.all(np.diff(t.major) * px / (end - start) >= 70.0 - 1e-6)
        assert np.all((t.major >= start - 1e-9) & (t.major <= end + 1e-9))
        assert len(set(t.labels)) == len(t.labels)  # never two ticks saying the same


def test_format_time() -> None:
    assert format_time(1.5, 0.5, False) == "1.5 s"
    assert format_time(2.0, 1.0, False) == "2 s"
    assert format_time(0.125, 0.005, False) == "0.125 s"
    assert format_time(125.0, 60.0, True) == "2:05"
