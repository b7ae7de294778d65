"""The localization samples kept beside a regions scheme's result, and their histograms.

Oracles: σ and the mean distances are recomputed from the kept samples and compared
with the report's metrics (computed by ``fill_region_chance`` before the samples were
kept), the KS statistic with scipy, and the histogram densities with hand-counted bins.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.stats import ks_2samp

from app.core.agreement.regions.chance import Localization
from app.core.agreement.regions.distances import (
    RegionAgreement,
    distance_histograms,
    item_within,
)
from app.core.agreement.report import agreement_report
from app.core.agreement.sets.agreement import SetAgreement
from app.core.formats.potato.project import read_potato
from app.core.progress import run

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "street_images"


@pytest.fixture(scope="module")
def objects_result():  # type: ignore[no-untyped-def]
    study = run(read_potato(DEMO))
    return run(agreement_report(study, project=str(DEMO))).schemes["objects"]


def test_regions_details_keep_the_samples_sigma_and_ks_were_computed_from(
        objects_result) -> None:  # type: ignore[no-untyped-def]
    details = objects_result.details
    assert isinstance(details, SetAgreement) and isinstance(details, RegionAgreement)
    loc = details.localization
    assert loc is not None
    m = objects_result.metrics
    assert loc.within.mean() == pytest.approx(m["mean_within_distance"], abs=1e-12)
    assert loc.between.mean() == pytest.approx(m["mean_between_distance"], abs=1e-12)
    assert 1 - loc.within.mean() / loc.between.mean() == pytest.approx(m["sigma"], abs=1e-12)
    assert ks_2samp(loc.within, loc.between).statistic == pytest.approx(m["ks"], abs=1e-12)
    assert loc.between.size == objects_result.extra["chance_baseline"]["n_pairs"]
    # every matched pair of every annotator pair is a within-item distance
    assert loc.within.size == sum(o.rows.size for o in details.outcomes)
    # the set fields are the same objects, not copies
    assert details.outcomes[0].item in details.objects


def test_json_is_unchanged_by_the_kept_samples(objects_result) -> None:  # type: ignore[no-untyped-def]
    keys = set(objects_result.to_json())
    assert "localization" not in keys and "details" not in keys


def test_histograms_are_densities_on_shared_bins() -> None:
    loc = Localization(np.array([0.01, 0.02, 0.26, 0.99, 1.0]), ["a", "a", "b", "b", "b"],
                       np.array([0.5, 0.55, 0.74]), True)
    h = distance_histograms(loc, bins=4)
    assert h.edges.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    # counts within: [2, 1, 0, 2] of 5, width 0.25 → density count / (5 · 0.25)
    assert h.within.tolist() == pytest.approx([1.6, 0.8, 0.0, 1.6])
    # between: 0.5, 0.55, 0.74 all in [0.5, 0.75)
    assert h.between.tolist() == pytest.approx([0.0, 0.0, 4.0, 0.0])
    assert (h.n_within, h.n_between) == (5, 3)
    assert item_within(loc, "a").tolist() == [0.01, 0.02]
    assert item_within(loc, "zzz").size == 0


def test_an_empty_sample_has_zero_density_not_nan() -> None:
    loc = Localization(np.zeros(0), [], np.array([0.3]), True)
    h = distance_histograms(loc)
    assert not np.isnan(h.within).any() and h.within.sum() == 0
