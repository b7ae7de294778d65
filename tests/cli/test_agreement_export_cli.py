"""`accord agreement PROJECT -o FILE`: the format from the suffix, exit 2 on a bad one,
and an interrupted write leaves the old file (or none), never half of one."""

from __future__ import annotations

import csv
import errno
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from app.cli.main import main
from tests.potato_project import RADIO, label, simple_items, write_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    values = {"ann": ["pos", "neg", "pos", "neu"], "bob": ["pos", "neg", "neg", "neu"],
              "cy": ["neg", "neg", "pos", "neu"]}
    return write_project(tmp_path / "proj", schemes=[RADIO], items=simple_items(4),
                         annotators={who: {f"item-{i}": [label("sentiment", v)]
                                           for i, v in enumerate(answers)}
                                     for who, answers in values.items()})


def _stdout_json(project: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["agreement", str(project), "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_json_file_equals_the_printed_json(project: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    printed = _stdout_json(project, capsys)
    target = tmp_path / "out" / "report.json"
    assert main(["agreement", str(project), "-o", str(target)]) == 0
    assert f"wrote json report to {target}" in capsys.readouterr().out
    assert json.loads(target.read_text(encoding="utf-8")) == printed


def test_csv_file_holds_the_printed_numbers(project: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    printed = _stdout_json(project, capsys)["schemes"]["sentiment"]
    target = tmp_path / "report.CSV"
    assert main(["agreement", str(project), "--output", str(target)]) == 0
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"), newline="")))
    metrics = {r["metric"]: float(r["value"]) for r in rows
               if r["scheme"] == "sentiment" and r["scope"] == "scheme"}
    assert metrics == printed["metrics"]
    pairs = {(r["subject"], r["metric"]): float(r["value"]) for r in rows if r["scope"] == "pair"}
    assert pairs == {(k, m): v for k, p in printed["pairs"].items() for m, v in p.items()}


def test_html_file_is_one_standalone_page(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    assert main(["agreement", str(project), "-o", str(target), "--scheme", "sentiment"]) == 0
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert "Krippendorff α" in page and "ann – bob" in page


@pytest.mark.parametrize("name", ["report.pdf", "report", "report.txt"])
def test_unknown_suffix_is_bad_input_before_any_work(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / name
    missing_project = tmp_path / "no-such-project"
    assert main(["agreement", str(missing_project), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "--output" in err and ".csv, .json or .html" in err
    assert not target.exists()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_failed_write_keeps_the_old_file(failing: str, project: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "report.html"
    target.write_text("the previous report")

    def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, failing, broken)
    assert main(["agreement", str(project), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"{target}: cannot write the report: Input/output error" in err
    assert target.read_text() == "the previous report"
    assert _leftovers(tmp_path) == []


def test_interrupted_write_leaves_no_target(project: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C after the bytes are in the temporary file, before the rename."""
    target = tmp_path / "fresh.csv"
    real_fsync = os.fsync

    def interrupted(descriptor: int) -> None:
        real_fsync(descriptor)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    assert main(["agreement", str(project), "-o", str(target)]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert not target.exists()
    assert _leftovers(tmp_path) == []


def test_a_folder_in_the_way_is_bad_input(project: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "taken.json"
    target.mkdir()
    assert main(["agreement", str(project), "-o", str(target)]) == 2
    assert "cannot write the report" in capsys.readouterr().err
    assert target.is_dir()
