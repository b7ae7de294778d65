"""Potato's own numbers beside Accord's in the text table, the HTML report and the CSV
(``app/report/potato_values.py``), on projects Potato 2.12.1's server wrote.

Oracle: the ``/admin/iaa`` JSON Potato's server returned for the same project
(``expected/iaa.json``, saved when the fixture was written), not Accord's block: a slider's
interval block, a likert's ordinal block, and the ``null`` Potato prints for every span
metric.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from app.core.agreement.result import AgreementReport
from app.core.progress import run
from app.core.project import open_project
from app.report.agreement_export import render_csv
from app.report.agreement_html import render_html
from app.report.agreement_text import render as render_text

SERVER = Path(__file__).resolve().parents[1] / "data" / "potato_server"
CASES = [("ratings/numbers", "relevance", ("pearson_r", "mae", "rmse", "alpha_interval",
                                           "icc_2_k")),
         ("ratings/numbers", "quality", ("weighted_kappa_linear", "weighted_kappa_quadratic",
                                         "spearman_rho", "alpha_ordinal")),
         ("spans", "entities", ("token_level_kappa", "span_f1_exact", "span_f1_partial",
                                "krippendorff_alpha_u", "gamma_mathet"))]


def _report(project: str) -> AgreementReport:
    return run(open_project(SERVER / project)).report


def _potato(project: str, scheme: str) -> dict[str, float | None]:
    iaa = json.loads((SERVER / project / "expected" / "iaa.json").read_text())
    metrics: dict[str, float | None] = iaa["schemas"][scheme]["metrics"]
    return metrics


def _shown(value: float | None) -> str:
    return "null" if value is None else f"{value:.3f}"


@pytest.mark.parametrize(("project", "scheme", "names"), CASES)
def test_the_text_and_html_reports_show_potatos_numbers(
        project: str, scheme: str, names: tuple[str, ...]) -> None:
    report = _report(project)
    potato = _potato(project, scheme)
    text = render_text(report)
    block = text[text.index(f"{scheme}  ("):]
    line = next(x for x in block.splitlines() if "Potato 2.12.1's /admin/iaa:" in x)
    html = render_html(report)
    for name in names:
        assert f"{name} {_shown(potato[name])}" in line
        assert f"{name} {_shown(potato[name])}" in html


@pytest.mark.parametrize(("project", "scheme", "names"), CASES)
def test_the_csv_has_potatos_numbers_and_a_reason_for_each_null(
        project: str, scheme: str, names: tuple[str, ...]) -> None:
    rows = list(csv.DictReader(io.StringIO(render_csv(_report(project)))))
    potato = _potato(project, scheme)
    for name in names:
        (row,) = [r for r in rows if r["scheme"] == scheme
                  and r["metric"] == f"potato_iaa.{name}"]
        if potato[name] is None:
            assert row["value"] == "" and "reports null" in row["undefined_reason"]
        else:
            assert float(row["value"]) == pytest.approx(potato[name], abs=1e-9)
