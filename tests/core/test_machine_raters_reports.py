"""The written reports with machine raters: text, HTML, CSV and the certificate's section
say who the machines are, that the headline is people only, and the partitions' numbers;
a project without machine raters writes none of it.

The numbers themselves are tested against Potato's report in ``test_machine_raters.py``;
here each output is read back and compared with the report object's partitions.
"""

from __future__ import annotations

import csv
import io
import json
from functools import cache
from pathlib import Path

import pytest

from app.core.agreement.report import agreement_report
from app.core.agreement.result import AgreementReport
from app.core.formats.potato.project import load_study
from app.core.progress import run
from app.report.agreement_export import render_csv, render_html, render_json
from app.report.agreement_text import render
from app.report.certificate_agreement import agreement_section, agreement_summary

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_server"
DETAIL = "ner_tool 3.7.2 db en_core_web_sm-3.7.1 (tool)"


@cache
def report(name: str) -> AgreementReport:
    return run(agreement_report(load_study(DATA / name), project=name))


def _alpha(part: str, scheme: str) -> float:
    value = report("machines").partitions[part].schemes[scheme].metrics["alpha"]
    assert isinstance(value, float)
    return value


def test_text_names_the_machines_and_shows_partitions() -> None:
    out = render(report("machines"))
    assert "3 people and 3 machine raters" in out and DETAIL in out
    assert "over people only" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("sentiment ·"))
    shown = [float(w) for w in line.split() if w.replace(".", "", 1).isdigit()]
    assert shown == pytest.approx([_alpha(p, "sentiment")
                                        for p in ("human_human", "machine_machine", "pooled")],
                                       abs=5e-4)


def test_html_table_and_escaping() -> None:
    page = render_html(report("machines"))
    assert "<h2>People and machine raters</h2>" in page
    assert f"{_alpha('machine_machine', 'topic'):.3f}" in page
    assert "en_core_web_sm-3.7.1" in page


def test_csv_partition_rows_read_back() -> None:
    rows = list(csv.DictReader(io.StringIO(render_csv(report("machines")))))
    parts = [r for r in rows if r["scope"] == "partition"]
    assert {r["subject"] for r in parts} == {"human_human", "machine_machine", "pooled"}
    for part in ("human_human", "machine_machine", "pooled"):
        row = next(r for r in parts if r["subject"] == part and r["scheme"] == "quality"
                   and r["metric"] == "alpha")
        assert float(row["value"]) == _alpha(part, "quality")  # repr: bit for bit


def test_json_keys_added_not_renamed() -> None:
    plain = json.loads(render_json(report("categorical")))
    machines = json.loads(render_json(report("machines")))
    assert set(machines) - set(plain) == {"annotators", "partitions", "pooling"}
    assert set(plain) <= set(machines)


def test_no_machine_rater_writes_none_of_it() -> None:
    r = report("categorical")
    assert "machine" not in render(r) and "Partitions" not in render(r)
    assert "People and machine raters" not in render_html(r)
    assert ",partition," not in render_csv(r)
    cert = {"agreement": r.to_json()}
    assert "machine" not in agreement_section(cert) + agreement_summary(cert)


def test_certificate_says_people_only_and_the_partitions() -> None:
    agreement = report("machines").to_json()
    agreement.pop("project")
    cert = {"agreement": agreement}
    summary = agreement_summary(cert)
    assert "3 machine raters" in summary and "over people only" in summary
    section = agreement_section(cert)
    assert "Among the machine raters" in section and "Over everyone together" in section
    assert f"{_alpha('pooled', 'quality'):.3f}" in section
