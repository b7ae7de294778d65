"""``accord import brat | conll | doccano`` as a real process: bad input is exit status 2
and one line naming the file, the line and what was expected, no traceback, no project;
good input is exit 0 and a project Accord scores as spans (``accord agreement``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "importers" / "spans"


def _accord(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True,
                          text=True, check=False)


def _bad(tmp_path: Path, fmt: str) -> tuple[list[str], str]:
    """A source of ``fmt`` broken on one line, and the place the error must name."""
    if fmt == "brat":
        folder = tmp_path / "alice"
        shutil.copytree(DATA / "brat" / "alice", folder)
        (folder / "japan.ann").write_text("T1\tLocation 0 5\tJapan\nT2\tLocation 40 45\tx\n")
        return [str(folder)], f"{folder / 'japan.ann'}:2"
    if fmt == "conll":
        bad = tmp_path / "a.conll"
        bad.write_text("EU -X- _ B-ORG\nrejects -X- O\n")
        return [str(bad)], f"{bad}:2"
    bad = tmp_path / "a.jsonl"
    bad.write_text('{"id": 1, "text": "EU", "label": [[0, 2, "ORG"]]}\n{"id": 2, "text": "x"}\n')
    return [str(bad)], f"{bad}:2"


@pytest.mark.parametrize("fmt", ["brat", "conll", "doccano"])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, fmt: str) -> None:
    sources, where = _bad(tmp_path, fmt)
    out = tmp_path / "project"
    done = _accord("import", fmt, *sources, "-o", str(out))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and where in lines[0] and "expected" in lines[0], done.stderr
    assert "Traceback" not in done.stderr and not out.exists()


@pytest.mark.parametrize(("fmt", "sources"), [
    ("brat", ["brat/alice", "brat/bob"]),
    ("conll", ["conll/alice.conll", "conll/bob.conll"]),
    ("doccano", ["doccano/alice.jsonl", "doccano/bob.jsonl"]),
])
def test_an_import_writes_a_project_accord_opens(tmp_path: Path, fmt: str,
                                                 sources: list[str]) -> None:
    out = tmp_path / "project"
    done = _accord("import", fmt, *(str(DATA / s) for s in sources), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "entities (span)" in done.stdout
    report = _accord("agreement", str(out), "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["schemes"]["entities"]["kind"] == "spans"
