"""Certificates read as plain words (issue 35 part 8): no Python ``None`` and no raw JSON
in the text a viewer extracts, on the bundled Potato demo and every project Potato
2.12.1 wrote in ``tests/data/potato_engine``; and the demo's moved Potato record is
stated with the sentence of what moved (issue 35 part 6)."""

from __future__ import annotations

import re
from pathlib import Path

import pypdf
import pytest

from app.cli.main import main

REPO = Path(__file__).resolve().parents[2]
PROJECTS = [REPO / "resources" / "demo" / "potato_reviews",
            *sorted(p for p in (REPO / "tests" / "data" / "potato_engine").iterdir()
                    if (p / "engine.sqlite").is_file())]
RAW = re.compile(r"\bNone\b|\{\s*[\"']|[\"']\s*:\s|\[\s*\{")
"""``None``, or the start of a JSON object / list of objects / a quoted key."""


def _text(project: Path, tmp_path: Path) -> str:
    pdf = tmp_path / "certificate.pdf"
    assert main(["certificate", str(project), "-o", str(pdf)]) == 0
    pages = pypdf.PdfReader(pdf).pages
    return "\n".join(" ".join((page.extract_text() or "").split()) for page in pages)


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_no_none_and_no_raw_json(project: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    text = _text(project, tmp_path)
    capsys.readouterr()
    assert text.strip()
    assert RAW.findall(text) == []


def test_the_demo_states_what_moved_since_potato_s_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _text(PROJECTS[0], tmp_path)
    capsys.readouterr()
    assert "Accord's recomputation: stale." in text
    assert "315 predictions arrived after Potato's record: ids up to 647 then, 962 now" in text


def test_an_insufficient_contract_is_never_under_not_met(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """cascade_fixture: Potato left selective_risk and distributional ``insufficient``
    (too few labels to decide) and no_worse_than_human ``violated``."""
    text = _text(REPO / "tests" / "data" / "potato_engine" / "cascade_fixture", tmp_path)
    capsys.readouterr()
    assert not re.search(r"NOT MET insufficient", text)
    assert len(re.findall(r"NOT DECIDED YET insufficient", text)) == 4  # summary + section
    assert len(re.findall(r"NOT MET violated", text)) == 2
    assert "1 not met (sentiment_vs_people)" in text
    assert "2 not decided yet (sentiment_risk, sentiment_distribution)" in text
