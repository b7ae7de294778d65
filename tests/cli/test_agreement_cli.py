"""`accord agreement` and `accord demo`: the stable JSON of cli.md and the text table."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import krippendorff
import pytest

from app.cli.main import main
from tests.potato_project import LIKERT, RADIO, label, simple_items, structured, write_project

METRICS = {
    "nominal": {"alpha", "kappa", "percent_agreement", "fleiss_kappa"},
    "ordinal": {"alpha", "kappa", "percent_agreement"},
    "trace": {"alpha", "kappa", "percent_agreement", "n_units"},
}


def _project(tmp_path: Path) -> Path:
    def pr(*rewards: int) -> list[Any]:
        return structured("steps", {"steps": [{"index": i, "reward": r}
                                              for i, r in enumerate(rewards)]})

    return write_project(tmp_path / "proj", schemes=[
        RADIO, LIKERT, {"annotation_type": "process_reward", "name": "steps"},
        {"annotation_type": "spatial_annotation", "name": "boxes"},
    ], items=simple_items(4), annotators={
        "zoe": {"item-0": [label("sentiment", "pos"), label("quality", "4", "4"), pr(1, 1, -1)],
                "item-1": [label("sentiment", "neg"), label("quality", "2", "2"), pr(1, -1)],
                "item-2": [label("sentiment", "neu"), label("quality", "3", "3")]},
        "adam": {"item-0": [label("sentiment", "pos"), label("quality", "5", "5"), pr(1, 1, 1)],
                 "item-1": [label("sentiment", "neg"), label("quality", "2", "2"), pr(1, -1)],
                 "item-2": [label("sentiment", "pos"), label("quality", "3", "3")],
                 "item-3": [label("sentiment", "pos")]},
    }, extra_config={"num_annotators_per_item": 2})


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "NaN" not in out
    return json.loads(out)  # type: ignore[no-any-return]


def test_json_follows_cli_md(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    data = _json(["agreement", str(project), "--json"], capsys)
    assert set(data) >= {"accord_version", "project", "coverage", "schemes"}
    assert data["project"] == str(project)
    assert data["coverage"] == {"n_items": 4, "n_annotators": 2}
    assert list(data["schemes"]) == ["sentiment", "quality", "steps", "boxes"]
    for name in ("sentiment", "quality", "steps"):
        scheme = data["schemes"][name]
        for key in ("annotation_type", "kind", "n_items", "n_pairs", "n_items_skipped",
                    "metrics", "intervals", "undefined", "pairs", "notes"):
            assert key in scheme, (name, key)
        assert set(scheme["metrics"]) == METRICS[scheme["kind"]]
        assert list(scheme["pairs"]) == ["adam|zoe"]  # the two names sorted
        for metric, value in scheme["metrics"].items():
            assert value is not None or metric in scheme["undefined"]
    sentiment = data["schemes"]["sentiment"]
    assert (sentiment["n_items"], sentiment["n_pairs"], sentiment["n_items_skipped"]) == (3, 3, 1)
    oracle = krippendorff.alpha(reliability_data=[[0, 1, 2], [0, 1, 0]],
                                level_of_measurement="nominal")
    assert math.isclose(sentiment["metrics"]["alpha"], oracle, abs_tol=1e-12)
    steps = data["schemes"]["steps"]
    assert steps["metrics"]["n_units"] == 5 and steps["n_pairs"] == 5
    assert steps["metrics"]["percent_agreement"] == 4 / 5
    boxes = data["schemes"]["boxes"]
    assert boxes["kind"] == "cuboids" and boxes["n_items"] == 0
    assert boxes["metrics"]["mean_agreement"] is None and boxes["undefined"]["mean_agreement"]


def test_scheme_option_selects_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(["agreement", str(_project(tmp_path)), "--json", "--scheme", "quality"], capsys)
    assert list(data["schemes"]) == ["quality"]


def test_text_table_shows_numbers_and_reasons(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    project = write_project(tmp_path / "one", schemes=[RADIO], items=simple_items(2),
                            annotators={"solo": {"item-0": [label("sentiment", "pos")]},
                                        "duo": {"item-1": [label("sentiment", "neg")]}})
    assert main(["agreement", str(project)]) == 0
    out = capsys.readouterr().out
    assert "sentiment  (radio → nominal)" in out
    assert "Krippendorff α" in out and "—" in out
    assert "agreement of one person is undefined" in out


def test_demo_runs_the_bundled_studies(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(["demo", "--json"], capsys)
    assert set(data) == {"support_triage", "lidar_sweeps", "speaker_turns", "street_images",
                         "sentiment_reviews", "people_photos", "agent_judge", "potato_reviews"}
    kinds = {s["kind"] for study in data.values() for s in study["schemes"].values()}
    assert kinds == {"nominal", "ordinal", "trace", "cuboids", "tiers", "segments", "regions",
                     "masks"}
    assert data["support_triage"]["project"] == "demo:support_triage"


def test_demo_export_writes_project_folders(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--export", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "support_triage" / "config.yaml").is_file()
    capsys.readouterr()
    # The exported copy is a project like any other.
    data = _json(["agreement", str(tmp_path / "out" / "support_triage"), "--json",
                  "--scheme", "resolution"], capsys)
    assert data["coverage"]["n_annotators"] == 4
    for study in ("lidar_sweeps", "speaker_turns", "street_images"):
        assert (tmp_path / "out" / study / "config.yaml").is_file()
    # Exporting again never overwrites.
    assert main(["demo", "--export", str(tmp_path / "out")]) == 2
    assert "already exists" in capsys.readouterr().err
