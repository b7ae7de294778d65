"""Badges read from the kind registry, calibration panels against a hand count, and
verify's differences as sentences (no Python dicts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.cli.main import main
from app.core.certificate.build import build_certificate
from app.core.certificate.compare import differences
from app.core.certificate.panels import scheme_panels
from app.core.contracts.kinds import registry
from app.core.contracts.kinds.base import HumanLabel, SchemaData
from app.core.model import Kind, Scheme
from app.core.progress import run
from app.core.project import open_project
from app.report.certificate_verdicts import verdict
from tests.certificate_helpers import add_cert_labels, certified_project


@pytest.mark.parametrize(
    ("kind", "state", "word"),
    [
        ("selective_risk", "met", "CERTIFIED"),
        ("selective_risk", "insufficient", "NOT DECIDED YET"),  # never NOT MET (issue 35)
        ("ppi", "insufficient", "NOT DECIDED YET"),
        ("selective_risk", "infeasible", "NOT MET"),
        ("ppi", "met", "ESTIMATE MET"),
        ("distributional", "met", "ESTIMATE MET"),
        ("no_worse_than_human", "violated", "NOT MET"),
        ("budget_first", "met", "PLAN"),
        ("threshold_legacy", "met", "UNCERTIFIED RULE"),
        ("threshold_legacy", "insufficient", "UNCERTIFIED RULE"),
    ],
)
def test_badges_by_meaning(kind: str, state: str, word: str) -> None:
    assert verdict(kind, state).word == word


def test_badges_come_from_the_registry_not_the_name(monkeypatch: pytest.MonkeyPatch) -> None:
    kinds = dict(registry.KINDS)
    kinds["budget_first"] = registry.KindInfo("budget_first", gates=True, certifies=True)
    monkeypatch.setattr("app.report.certificate_verdicts.KINDS", kinds)
    assert verdict("budget_first", "met").word == "CERTIFIED"


def _human(who: str, label: str) -> HumanLabel:
    return HumanLabel(annotator=who, label=label, pi=1.0)


def test_panels_against_a_hand_count() -> None:
    """a: x, x, y (3 people); b: x, x, x (3, one in dev and two in cert); c: 2 people (no
    panel). Coincidences o_xx 4, o_xy = o_yx 1, n = 6, n_x 5, n_y 1: α = 1 − 5 · 2/10 = 0."""
    scheme = Scheme("s", "radio", Kind.NOMINAL, labels=("x", "y"))
    data = SchemaData(
        scheme=scheme,
        tiers=("m",),
        items=("a", "b", "c"),
        predictions={},
        dev={
            "a": (_human("p", "x"), _human("q", "x"), _human("r", "y")),
            "b": (_human("p", "x"),),
            "c": (_human("p", "x"),),
        },
        cert={"b": (_human("q", "x"), _human("r", "x")), "c": (_human("q", "y"),)},
        dev_fraction=0.5,
    )
    found = scheme_panels(data)
    assert found is not None
    assert found["n_items"] == 2 and found["sizes"] == {"3": 2}
    assert found["n_people"] == 3 and found["n_labels"] == 6
    assert found["alpha"] == pytest.approx(0.0, abs=1e-12)
    data_two = SchemaData(
        scheme=scheme,
        tiers=("m",),
        items=("c",),
        predictions={},
        dev={"c": (_human("p", "x"), _human("q", "y"))},
        cert={},
        dev_fraction=0.5,
    )
    assert scheme_panels(data_two) is None


def _cert(project: Path, **named: Any) -> dict[str, Any]:
    return run(
        build_certificate(run(open_project(project)), generated_at="2026-12-01T00:00:00Z", **named)
    )


def test_verify_sentences_name_whose_field_changed(tmp_path: Path) -> None:
    project = certified_project(tmp_path / "proj")
    before = _cert(project)
    edited = json.loads(json.dumps(before))
    edited["contracts"]["accuracy"]["state"] = "insufficient"
    assert differences(edited, before) == [
        "contract accuracy: state insufficient in the PDF, met now"
    ]
    add_cert_labels(project)
    assert main(["label", "certify", str(project)]) == 0
    found = differences(before, _cert(project))
    assert "contract accuracy: looks spent 1 in the PDF, 2 now" in found
    for line in found:
        assert "{'" not in line and '{"' not in line and "[{" not in line, line
    assert len(found) < 40  # curves and Potato's figures read as one sentence each


def test_prepared_for_and_by_are_in_the_data_and_hashed(tmp_path: Path) -> None:
    project = certified_project(tmp_path / "proj")
    cert = _cert(project, prepared_for="  Acme  ", prepared_by="Dana Lead")
    assert cert["prepared"] == {"for": "Acme", "by": "Dana Lead"}
    assert _cert(project)["prepared"] == {"for": None, "by": None}
    assert _cert(project)["content_hash"] != cert["content_hash"]
