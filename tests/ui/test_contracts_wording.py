"""What a lead reads on a selective_risk card and certificate (issue 35 part 8).

- The rule's coverage of the population and the machine labels delivered, in one
  sentence: numbers checked against Potato 2.12.1's own record of the demo (its
  ``metrics.accepted`` and ``population``) and its own resolved labels
  (``auto:accepted``), and against Accord's export (every item is auto, human or pending).
- Why the rule sits at its threshold when the last test listed is lower and failed:
  the tests quoted are Potato's stored ones.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pypdf
import pytest
from pytestqt.qtbot import QtBot

from app.cli.main import main
from app.core.contracts.label_report import label_report
from app.core.contracts.labels.coverage_words import coverage_sentence, rule_coverage
from app.core.progress import run
from app.core.project import open_project
from app.ui.views.base import ViewContext
from app.ui.views.contracts.text import key_numbers
from app.ui.views.contracts.view import ContractsView

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "potato_reviews"


def _demo() -> tuple[dict[str, object], int, int, int]:
    """Potato's record of ``accuracy``, its covered items, population and auto labels."""
    report = label_report(DEMO)
    assert report.potato is not None
    record = report.potato.records.contracts["accuracy"].result
    metrics = record["metrics"]
    auto = report.potato.records.resolved["sentiment"]["auto:accepted"]
    return record, int(metrics["accepted"]), int(metrics["population"]), int(auto)


def test_coverage_and_delivery_in_one_sentence() -> None:
    report = label_report(DEMO)
    _, covered, population, auto = _demo()
    status = report.contracts["accuracy"]
    assert rule_coverage(status.result) == ({"distilbert": 0, "gemma-12b": covered},
                                            population)
    origins = Counter(row["label_origin"] for row in report.export())
    assert origins["auto"] == auto  # Accord delivers what Potato resolved
    rest = covered - auto
    assert rest <= origins["human"] + origins[None]  # the rest: people's or pending
    sentence = coverage_sentence(status.result, auto)
    assert sentence == (
        f"{auto} machine labels delivered of the {covered} items the rule covers "
        f"({covered / population:.1%} of {population}, all by gemma-12b); the other "
        f"{rest} are labelled by people or wait for a person's check")
    assert (auto, covered, population) == (279, 427, 481)
    lines = key_numbers(status, str, auto)
    assert sentence in lines
    assert not any(line.startswith("Accepted by tier") for line in lines)


def test_other_shapes_of_the_sentence() -> None:
    two = {"accepted_by_tier": {"a": 0.1, "b": 0.5}, "accepted_by_tier_counts": {"a": 10, "b": 50}}
    assert coverage_sentence(two) == ("The rule covers 60 of the 100 items (60.0%, by tier: "
                                      "a 10, b 50)")
    assert coverage_sentence(two, 60) == ("60 machine labels delivered of the 60 items the "
                                          "rule covers (60.0% of 100, by tier: a 10, b 50)")
    assert "another contract delivers the rest" in str(coverage_sentence(two, 70))
    none = {"accepted_by_tier": {"a": 0.0}, "accepted_by_tier_counts": {"a": 0}}
    assert coverage_sentence(none) == "The rule covers none of the items"
    assert coverage_sentence({}) is None


def test_why_the_rule_is_certified_below_the_last_test() -> None:
    record, _, _, _ = _demo()
    tests = record["metrics"]["cells"]["gemma-12b:*"]["tests"]  # type: ignore[index]
    alpha = float(record["alpha"])  # type: ignore[arg-type]
    passed = [t for t in tests if t["p"] <= alpha]
    failed = next(t for t in tests if t["p"] > alpha)
    assert passed[-1]["threshold"] == record["acceptance"]["gemma-12b"]["*"]  # type: ignore[index]
    assert failed["threshold"] < passed[-1]["threshold"]  # the last listed, lower, failed
    lines = key_numbers(label_report(DEMO).contracts["accuracy"], str, 279)
    assert (f"Why gemma-12b ≥ {passed[-1]['threshold']} is certified: the tests run from "
            "dev's choice down and stop at the first that fails; "
            f"{passed[-1]['threshold']} is the lowest that passed ({passed[-1]['errors']} "
            f"errors in {passed[-1]['n']} cert labels, p {passed[-1]['p']:.3g}); "
            f"{failed['threshold']} failed ({failed['errors']} errors in {failed['n']}, "
            f"p {failed['p']:.3g} > {alpha:.4g}), so the sequence ended there") in lines


def test_the_card_and_the_certificate_say_it(qtbot: QtBot, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=run(open_project(DEMO))))
    view.complete()
    numbers = view.cards["accuracy"].numbers.text()
    assert "279 machine labels delivered of the 427 items the rule covers" in numbers
    assert "Why gemma-12b ≥ 0.7723 is certified" in numbers
    pdf = tmp_path / "c.pdf"
    assert main(["certificate", str(DEMO), "-o", str(pdf)]) == 0
    capsys.readouterr()
    text = " ".join(" ".join((p.extract_text() or "").split())
                    for p in pypdf.PdfReader(pdf).pages)
    assert re.search(r"279 machine labels delivered of the 427 items the rule covers "
                     r"\(88\.8% of 481, all by gemma-12b\); the other 148 are labelled by "
                     r"people or wait for a person's check; 27 of 28 tests passed", text)
    assert "88.8% (427 items)" in text and "(427 labels)" not in text
