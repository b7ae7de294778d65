"""The agreement colour scale reads the right way round and survives colour blindness.

A lead reported that the items table painted the worst items (0.33) pale green and the
best dark blue: the low end of the old ramp was nearly white, so nothing looked wrong.
These tests pin the meaning of the scale, not its exact colours: the low end is a strong
warm colour (as far from white as the high end), the high end a cool one, and the five
ramp stops stay distinguishable under the Machado, Oliveira & Fernandes (2009)
simulations of protanopia, deuteranopia and tritanopia (severity 1), applied in linear RGB.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from app.ui.palette import heat_color, heat_fill, heat_text_color

MACHADO_2009 = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}


def _rgb(value: float) -> np.ndarray:
    c = heat_color(value)
    return np.array([c.redF(), c.greenF(), c.blueF()])


def _linear(srgb: np.ndarray) -> np.ndarray:
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _srgb(linear: np.ndarray) -> np.ndarray:
    linear = np.clip(linear, 0.0, 1.0)
    return np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)


def test_low_agreement_is_warm_and_strong_high_agreement_cool() -> None:
    low, high = _rgb(0.0), _rgb(1.0)
    assert low[0] > low[2] + 0.3, "0 must read as bad: a red, not a pale or cool colour"
    assert high[2] > high[0] + 0.3, "1 must read as good: a blue"
    white = np.ones(3)
    assert np.linalg.norm(white - low) >= 0.8 * np.linalg.norm(white - high), \
        "the low end must be as visible as the high end, not nearly white"


@pytest.mark.parametrize("kind", sorted(MACHADO_2009))
def test_the_ramp_stays_distinguishable_under_colour_blindness(kind: str) -> None:
    matrix = np.array(MACHADO_2009[kind])
    stops = [_srgb(matrix @ _linear(_rgb(v))) for v in (0.0, 0.25, 0.5, 0.75, 1.0)]
    for a, b in itertools.pairwise(stops):
        assert np.linalg.norm(a - b) > 0.12, f"neighbouring stops merge under {kind}"
    assert np.linalg.norm(stops[0] - stops[-1]) > 0.5, f"the two ends merge under {kind}"


def test_text_reads_on_every_value_and_table_fills_stay_light() -> None:
    for v in np.linspace(0.0, 1.0, 21):
        bg, fg = heat_color(float(v)), heat_text_color(float(v))
        contrast = abs(bg.lightnessF() - fg.lightnessF())
        assert contrast > 0.35, f"text on {v:.2f} is hard to read"
        assert heat_fill(float(v)).lightnessF() >= 0.6, "table cells keep dark text readable"
