"""Accord's view of a real Potato project, proved with Potato's own contract classes.

For every contract of every project Potato 2.12.1 wrote (``tests/data/potato_engine``),
the view :func:`method_view` builds from the raw ``engine.sqlite`` rows, handed to
Potato's own class for the kind at the look Potato recorded, gives exactly the result
Potato stored in ``contract_version`` (state, acceptance, metrics, projection; numbers
to 1e-9). So the view (calibration items, truth, splits, pi, tier answers with their
statuses, the routed output from the previously stored rule, the population) is the one
Potato's engine built.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.contracts.label_report import label_report
from app.core.contracts.potato_method.from_store import method_contract, method_view
from app.core.contracts.potato_method.truth import majority
from tests.core.potato_method_oracle import _close, potato_result

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_engine"
PROJECTS = sorted(p.name for p in DATA.iterdir() if (p / "engine.sqlite").is_file()) \
    if DATA.is_dir() else []


@pytest.mark.parametrize("name", PROJECTS)
def test_potato_s_classes_on_accord_s_view_reproduce_potato_s_records(name: str) -> None:
    report = label_report(DATA / name)
    store = report.potato
    assert store is not None
    checked = 0
    for spec in report.config.contracts:
        record = store.records.contracts[spec.id]
        built = method_view(store, report.config, report.study.schemes[spec.schema],
                            before=record.version_id)
        assert built is not None, spec.id
        look = max(1, int(record.result.get("look") or 1))
        mine = potato_result(method_contract(spec), built.view, look=look)
        different = [d for key in ("status", "acceptance", "metrics", "projection", "look")
                     for d in _close(mine.get(key), record.result.get(key), key)]
        assert different == [], (spec.id, different[:5])
        checked += 1
    assert checked == len(report.config.contracts)


def test_the_truth_is_the_majority_with_ties_to_the_first_person() -> None:
    assert majority({"a": "pos", "b": "neg", "c": "neg"}) == "neg"
    assert majority({"a": "pos", "b": "neg"}) == "pos"
    assert majority({"a": 3, "b": 4, "c": 4}) == 4
    assert majority({}) is None
