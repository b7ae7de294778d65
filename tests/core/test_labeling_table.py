"""The column reader of predictions.jsonl against the per-line reader (the oracle).

``read_common_predictions`` must give exactly the predictions of the per-line checks
(``labeling._prediction``, one line at a time) or hand the file back to them; and
``schema_data``'s machine labels built from the columns must equal one ``MachineLabel``
per prediction made the plain way.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from app.core.contracts.kinds.base import MachineLabel
from app.core.errors import InputError
from app.core.formats.labeling.reader import _prediction, read_predictions, to_answer
from app.core.formats.labeling.table import PredictionTable
from app.core.formats.potato.project import load_study
from app.core.formats.reading.json_lines import Fields, iter_json_lines
from app.core.model import Study
from tests.potato_project import label, write_project

TIERS = ("small", "big")


def _study(root: Path) -> Study:
    write_project(root, schemes=[
        {"annotation_type": "radio", "name": "sentiment", "labels": ["pos", "neg", "neu"]},
        {"annotation_type": "likert", "name": "quality", "size": 5}],
        items=[{"id": f"i{k}", "text": ""} for k in range(50)],
        annotators={"ann": {"i0": [label("sentiment", "pos")]}})
    return load_study(root)


def _per_line(path: Path, study: Study) -> list[Any]:
    return [_prediction(Fields(path, line, record), study, TIERS)
            for line, record in iter_json_lines(path)]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _records(seed: int, schemas: tuple[str, ...] = ("sentiment",)) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for k in range(50):
        for tier in TIERS:
            for schema in schemas:
                label: Any = rng.choice(["pos", "neg", "neu"]) if schema == "sentiment" \
                    else rng.choice([1, 2, 5])
                out.append({"item": f"i{k}", "schema": schema, "tier": tier, "label": label,
                            "confidence": rng.choice([0, 1, round(rng.random(), 4)])})
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("schemas", [("sentiment",), ("sentiment", "quality")])
def test_columns_equal_the_per_line_reader(tmp_path: Path, schemas: tuple[str, ...]) -> None:
    study = _study(tmp_path)
    path = _write(tmp_path / "p.jsonl", _records(1, schemas))
    table = read_predictions(path, study, TIERS)
    assert isinstance(table, PredictionTable) and table.probs is None  # the fast path ran
    expected = _per_line(path, study)
    assert list(table) == expected and table == tuple(expected)
    assert [table[k] for k in range(len(table))] == expected
    assert all(type(p.confidence) is float for p in table)


@pytest.mark.parametrize("change", [
    {"probs": {"pos": 1.0}}, {"probs": None}, {"model": "x"}, {"confidence": 1},
    {"item": 3}, {"label": 4}])
def test_uncommon_lines_read_per_line(tmp_path: Path, change: dict[str, Any]) -> None:
    study = _study(tmp_path)
    records = _records(2)
    records[17] = {**records[17], **change}
    path = _write(tmp_path / "p.jsonl", records)
    if change.get("item") == 3 or change.get("label") == 4:
        with pytest.raises(InputError) as caught:
            read_predictions(path, study, TIERS)
        assert caught.value.line == 18
        return
    assert list(read_predictions(path, study, TIERS)) == _per_line(path, study)


def test_a_repeated_prediction_names_both_lines(tmp_path: Path) -> None:
    study = _study(tmp_path)
    records = _records(3)
    records.append(dict(records[5]))
    path = _write(tmp_path / "p.jsonl", records)
    with pytest.raises(InputError) as caught:
        read_predictions(path, study, TIERS)
    assert caught.value.line == len(records) and "line 6" in str(caught.value)


def test_machine_labels_from_columns(tmp_path: Path) -> None:
    from app.core.contracts.labels.schema_data import _machine_labels

    study = _study(tmp_path)
    for schemas in (("sentiment",), ("sentiment", "quality")):
        path = _write(tmp_path / "p.jsonl", _records(4, schemas))
        table = read_predictions(path, study, TIERS)
        for name in schemas:
            scheme = study.schemes[name]
            expected: dict[str, dict[str, MachineLabel]] = {t: {} for t in TIERS}
            for p in table:
                if p.schema == name:
                    expected[p.tier][p.item] = MachineLabel(to_answer(scheme, p.label),
                                                            p.confidence, p.probs)
            got = _machine_labels(scheme, table, TIERS)
            assert got == expected
            assert [list(got[t]) for t in TIERS] == [list(expected[t]) for t in TIERS]


@pytest.mark.parametrize("warm", [1_000, 2])
def test_tier_labels_behave_as_the_dict(tmp_path: Path, warm: int,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The coded mapping against the plain dict of the same labels: lookups, membership,
    order, values, a missing item, a tier with no prediction; one item at a time (numpy)
    and past the warm-up (lists and a dict)."""
    from app.core.contracts.labels import machine_columns
    from app.core.contracts.labels.schema_data import _machine_labels
    from app.core.formats.labeling import item_codes

    monkeypatch.setattr(machine_columns, "WARM", warm)
    monkeypatch.setattr(item_codes, "WARM", warm)
    study = _study(tmp_path)
    records = [r for r in _records(5) if not (r["tier"] == "big" and r["item"] == "i3")]
    path = _write(tmp_path / "p.jsonl", records)
    table = read_predictions(path, study, TIERS)
    assert table.coded is not None
    scheme = study.schemes["sentiment"]
    got = _machine_labels(scheme, table, (*TIERS, "absent"))
    plain = _machine_labels(scheme, PredictionTable.of(list(table)), (*TIERS, "absent"))
    assert all(type(m) is dict for m in plain.values())  # the list table: plain dicts
    for tier in (*TIERS, "absent"):
        mine, oracle = got[tier], plain[tier]
        assert len(mine) == len(oracle) and list(mine) == list(oracle)
        assert list(mine.items()) == list(oracle.items())
        assert list(mine.values()) == list(oracle.values())
        for item in [*study.items, "nope", 3]:
            assert (item in mine) == (item in oracle)
            assert mine.get(item) == oracle.get(item)  # type: ignore[call-overload]
    assert "i3" not in got["big"] and "i3" in got["small"]
    with pytest.raises(KeyError):
        got["big"]["i3"]
    assert type(got["small"]["i0"].confidence) is float


def test_repeats_are_found_by_counting_or_sorting() -> None:
    """Both branches of the repeat check against a set of (schema, tier, item) keys."""
    import numpy as np

    from app.core.formats.labeling.decoded import Columns
    from app.core.formats.labeling.table import _repeated_codes

    rng = random.Random(11)
    for items in (5, 100_000):  # few codes: counted in bins; many: sorted
        for _ in range(20):
            n = rng.randrange(1, 40)
            item = [rng.randrange(items) for _ in range(n)]
            tier = [rng.randrange(2) for _ in range(n)]
            names = [f"i{k}" for k in range(items)]
            columns = Columns(names, {}, np.array(item, np.int32), ("s",),
                              np.zeros(n, np.int32), ("a", "b"), np.array(tier, np.int32),
                              ["x"], np.zeros(n, np.int32), np.zeros(n))
            assert _repeated_codes(columns) == (len(set(zip(item, tier, strict=True))) != n)


def test_item_codes_are_positions() -> None:
    """ItemCodes (addresses sorted by numpy) against the positions of a plain dict."""
    from app.core.formats.labeling.item_codes import ItemCodes, item_codes

    rng = random.Random(5)
    by_id: dict[str, object] = {f"x{rng.random()}": object() for _ in range(3000)}
    expected = {item: k for k, item in enumerate(by_id)}
    codes = ItemCodes(by_id)
    ids = list(by_id)
    rng.shuffle(ids)
    assert codes.codes(ids, len(ids)).tolist() == [expected[i] for i in ids]
    with pytest.raises(KeyError):
        codes.codes(["nope"], 1)
    assert [codes.get(i) for i in ids] == [expected[i] for i in ids]  # past the warm-up
    assert codes.get("nope") is None and "nope" not in codes and 3 not in codes
    assert dict(codes) == expected and len(codes) == len(expected)
    shared = object()
    assert item_codes({"a": shared, "b": shared}) == {"a": 0, "b": 1}
