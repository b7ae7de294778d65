"""What ``accord label certify --json`` and the certificate state holds (issue 36).

References, all computed from the files the test wrote (:mod:`tests.contract_statements`),
never from Accord: each test's level is ``(1 − confidence)·6/(π² k²)`` divided by the
tested cells once; its n and errors are counted by brute force over the cert requests
and the predictions; its p is scipy's binomial CDF; a ppi class's labels are counted in
``requests.jsonl``. The certificate's text is read back from the PDF with pypdf.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Any

import pypdf
import pytest

from app.cli.main import main
from tests.certificate_helpers import contracts_project
from tests.contract_statements import (
    Written,
    append_requests,
    binomial_p,
    cert_counts,
    look_alpha,
    statement_project,
)

pytestmark = pytest.mark.usefixtures("qapp")

LABELS = ("pos", "neg", "neu", "mixed")
PER_CLASS = [(2, 0.15), (3, 0.15), (4, 0.2)]
"""(cells, error target): every class's cell tested, some p-values between the level
divided by the cells twice and once (the band the old report called failed)."""


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _pdf_text(project: Path, pdf: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["certificate", str(project), "-o", str(pdf)]) == 0
    capsys.readouterr()
    return [re.sub(r"\s+", " ", unicodedata.normalize("NFKC", page.extract_text()))
            for page in pypdf.PdfReader(pdf).pages]


def per_class_project(root: Path, cells: int, error: float) -> Written:
    return statement_project(root, labels=LABELS[:cells], contracts=[
        {"id": "accuracy", "kind": "selective_risk", "schema": "sentiment", "error": error,
         "per_class": True}])


def check_tests(written: Written, result: dict[str, Any], cells: int, error: float,
                look: int = 1) -> dict[str, list[dict[str, Any]]]:
    """Every test against its reference; returns the tests by class."""
    level = look_alpha(look) / cells
    by_class: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for test in result["tests"]:
        by_class[test["class"]].append(test)
        errors, n = cert_counts(written, test["threshold"], test["class"])
        assert (test["n"], test["errors"]) == (n, errors)
        assert test["p"] == pytest.approx(binomial_p(errors, n, error), rel=1e-9, abs=1e-15)
        assert test["level"] == pytest.approx(level, rel=1e-12)
        assert test["passed"] is (test["p"] <= level)
    assert sorted(by_class) == sorted(LABELS[:cells])  # every cell was tested
    rule = result["rule"]["model"]
    for cls, tests in by_class.items():
        # a fixed sequence: only its last test may fail, and it stops there
        assert all(t["passed"] for t in tests[:-1])
        thresholds = [t["threshold"] for t in tests]
        assert thresholds == sorted(thresholds, reverse=True)
        passed = [t["threshold"] for t in tests if t["passed"]]
        # the certified threshold is the last that passed, and its test is listed
        assert rule[cls] == (passed[-1] if passed else None)
    return by_class


@pytest.mark.parametrize(("cells", "error"), PER_CLASS)
def test_per_class_levels_and_passed_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           cells: int, error: float) -> None:
    written = per_class_project(tmp_path / "proj", cells, error)
    out = _json(["label", "certify", str(written.project), "--json"], capsys)
    contract = out["contracts"]["accuracy"]
    assert contract["state"] == "met" and contract["looks"] == 1
    by_class = check_tests(written, contract["result"], cells, error)
    level = look_alpha(1) / cells
    band = [t for tests in by_class.values() for t in tests if level / cells < t["p"] <= level]
    # the tests the old report (level divided twice) called failed pass, as decided
    assert band and all(t["passed"] for t in band)


def test_a_sequence_longer_than_forty_keeps_every_test(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    written = per_class_project(tmp_path / "proj", 2, 0.15)
    out = _json(["label", "certify", str(written.project), "--json"], capsys)
    result = out["contracts"]["accuracy"]["result"]
    by_class = check_tests(written, result, 2, 0.15)
    long = {cls: tests for cls, tests in by_class.items() if len(tests) > 40}
    assert long, {cls: len(t) for cls, t in by_class.items()}
    rule = result["rule"]["model"]
    for cls, tests in long.items():
        certified = [t for t in tests if t["threshold"] == rule[cls]]
        assert len(certified) == 1 and certified[0]["passed"]
        assert tests.index(certified[0]) >= 40  # beyond what Potato stores
        # Potato's own shape keeps its first 40 (what the audit compares)
        stored = result["potato_metrics"]["cells"][f"model:{cls}"]["tests"]
        assert len(stored) == 40 and stored == [
            {k: t[k] for k in ("threshold", "n", "errors", "p")} for t in tests[:40]]
    assert "tests_note" not in result
    status = _json(["label", "status", str(written.project), "--json"], capsys)
    def key(t: dict[str, Any]) -> tuple[str, float]:
        return t["class"], -t["threshold"]
    # the stored look gives every test back (its cells in the ledger's key order)
    assert sorted(status["contracts"]["accuracy"]["result"]["tests"], key=key) == sorted(
        result["tests"], key=key)


def test_the_certificate_prints_the_right_levels_and_every_test(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    written = per_class_project(tmp_path / "proj", 3, 0.15)
    out = _json(["label", "certify", str(written.project), "--json"], capsys)
    tests = out["contracts"]["accuracy"]["result"]["tests"]
    check_tests(written, out["contracts"]["accuracy"]["result"], 3, 0.15)
    text = " ".join(_pdf_text(written.project, tmp_path / "c.pdf", capsys))
    level = f"{look_alpha(1) / 3:.4f}"
    assert level == "0.0203"
    wrong = f"{look_alpha(1) / 9:.4f}"
    # one row per test, each with the level, none with the level divided twice
    assert text.count(f" {level} passed") == sum(1 for t in tests if t["passed"])
    assert text.count(f" {level} failed") == sum(1 for t in tests if not t["passed"])
    assert f" {wrong} " not in text
    # every test is a row, past the 40 Potato stores
    assert max(sum(1 for t in tests if t["class"] == c) for c in LABELS[:3]) > 40
    assert "the level is the look's, divided over the cells tested" in text


def rare_project(root: Path) -> tuple[Written, int]:
    """pos, neg and a rare class on 50 calibration labels; the rare class's labels."""
    written = statement_project(root, labels=("pos", "neg", "rare"), contracts=[
        {"id": "prevalence", "kind": "ppi", "schema": "sentiment",
         "estimand": "prevalence"}], n_items=500, n_dev=25, n_cert=25,
        weights=(0.47, 0.47, 0.06), seed=1)
    rare = sum(1 for r in written.requests if r["label"] == "rare")
    return written, rare


def test_ppi_says_when_a_class_rests_on_fewer_than_three_labels(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    written, rare = rare_project(tmp_path / "proj")
    assert 0 <= rare <= 2  # the study's premise (seeded)
    out = _json(["label", "certify", str(written.project), "--json"], capsys)
    result = out["contracts"]["prevalence"]["result"]
    for name in ("pos", "neg", "rare"):
        count = sum(1 for r in written.requests if r["label"] == name)
        assert result["estimates"][name]["class_labels"] == count
    assert result["coverage_not_assured"] == [
        {"group": None, "label": "rare", "class_labels": rare}]
    note = result["coverage_not_assured_note"]
    assert note.startswith("Coverage not assured: 1 interval rests on fewer than 3 labels "
                           f"of its class (rare: {rare} label")
    # Potato's number is kept as computed
    metrics = result["potato_metrics"]["estimates"]["all"]["rare"]
    assert result["estimates"]["rare"]["interval"] == [metrics["lo"], metrics["hi"]]
    pages = _pdf_text(written.project, tmp_path / "c.pdf", capsys)
    assert "Coverage not assured for 1 class (prevalence: rare)" in pages[0]
    assert "1 on fewer than 3 labels of its class: coverage not assured" in pages[0]
    rest = " ".join(pages[1:])
    assert f"50 of 500; {rare} of its class: coverage not assured" in rest
    assert "Coverage not assured: 1 interval rests on fewer than 3 labels" in rest


def _wrong_cert_lines(written: Written, start: int, count: int) -> list[dict[str, Any]]:
    """``count`` more answered cert requests whose people disagree with the machine."""
    out = []
    for k in range(start, start + count):
        item = f"item-{k}"
        value = written.guess[item][0]
        other = next(v for v in ("pos", "neg", "neu") if v != value)
        out.append({"request": f"r{k}", "item": item, "schema": "sentiment",
                    "kind": "calibration", "pi": 0.5, "split": "cert", "annotator": "ana",
                    "label": other})
    return out


def test_a_state_moved_by_certify_says_what_moved_it(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    project = contracts_project(tmp_path / "proj")
    first = _json(["label", "certify", str(project), "--json"], capsys)
    assert first["contracts"]["accuracy"]["state"] == "met"
    assert not any(n.startswith("State moved") for n in first["contracts"]["accuracy"]["notes"])
    predictions = [json.loads(x) for x in
                   (project / "labeling" / "predictions.jsonl").read_text().splitlines()]
    guess = {p["item"]: (p["label"], p["confidence"]) for p in predictions}
    written = Written(project, {}, guess, [])
    append_requests(written, _wrong_cert_lines(written, 201, 40))
    second = _json(["label", "certify", str(project), "--json"], capsys)
    accuracy = second["contracts"]["accuracy"]
    assert accuracy["state"] == "insufficient" and accuracy["looks"] == 2
    sentence = ("State moved from met to insufficient on this certify, look 2 at level "
                f"{look_alpha(2):.6f} (the stored result was look 1): 40 cert labels "
                "arrived (120 then, 160 now); dev labels unchanged (80).")
    assert sentence in accuracy["notes"]
    # the estimates did not move: no sentence
    assert not any(n.startswith("State moved") for c in ("prevalence", "plan", "old-rule")
                   for n in second["contracts"][c]["notes"])
    status = _json(["label", "status", str(project), "--json"], capsys)
    assert sentence in status["contracts"]["accuracy"]["notes"]
    text = " ".join(_pdf_text(project, tmp_path / "c.pdf", capsys))
    assert "State moved from met to insufficient on this certify, look 2" in text
