"""`accord certificate` and `accord verify`: exit 0 on a match, 1 with the differences
listed (a changed input file, a changed ledger, an edited embedded JSON), 2 bad input.

``certificate`` renders with Qt, so these tests take pytest-qt's ``qapp`` (one
QApplication for the whole session, offscreen)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pypdf
import pytest

from app.cli.main import main
from app.core.certificate.build import ATTACHMENT_NAME, content_hash
from tests.certificate_helpers import add_cert_labels, certified_project

pytestmark = pytest.mark.usefixtures("qapp")


def _certificate(project: Path, pdf: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["certificate", str(project), "-o", str(pdf)]) == 0
    return capsys.readouterr().out


def _verify(argv: list[str], capsys: pytest.CaptureFixture[str], code: int) -> str:
    assert main(["verify", *argv]) == code
    return capsys.readouterr().out


@pytest.fixture
def written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    project = certified_project(tmp_path / "proj")
    pdf = tmp_path / "out" / "certificate.pdf"
    pdf.parent.mkdir()
    _certificate(project, pdf, capsys)
    return project, pdf


def _replace_attachment(pdf: Path, data: dict[str, Any], target: Path) -> None:
    """Rewrite the PDF with pypdf, the certificate attachment replaced by ``data``."""
    reader = pypdf.PdfReader(pdf)
    writer = pypdf.PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    writer.add_attachment(ATTACHMENT_NAME, json.dumps(data).encode("utf-8"))
    with target.open("wb") as handle:
        writer.write(handle)


def test_certificate_then_verify_matches(written: tuple[Path, Path],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    project, pdf = written
    out = _verify([str(pdf)], capsys, 0)
    assert "is intact" in out
    out = _verify([str(pdf), "--project", str(project)], capsys, 0)
    assert "matches the project" in out
    assert not list(pdf.parent.glob(".*.tmp"))


def test_verify_catches_a_changed_input_file(written: tuple[Path, Path],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    project, pdf = written
    config = project / "config.yaml"
    config.write_text(config.read_text() + "# edited after the certificate\n")
    out = _verify([str(pdf), "--project", str(project)], capsys, 1)
    assert "input config.yaml changed" in out
    assert out.count("\n  - ") == 1  # nothing else moved


def test_verify_catches_a_changed_data_file(written: tuple[Path, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    project, pdf = written
    data = project / "data" / "items.jsonl"
    data.write_text(data.read_text() + json.dumps({"id": "extra", "text": "new"}) + "\n")
    out = _verify([str(pdf), "--project", str(project)], capsys, 1)
    assert "input data/items.jsonl changed" in out
    assert "project: number of items 300 in the PDF, 301 now" in out


def test_verify_catches_a_changed_ledger(written: tuple[Path, Path],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    project, pdf = written
    add_cert_labels(project)
    assert main(["label", "certify", str(project)]) == 0
    capsys.readouterr()
    out = _verify([str(pdf), "--project", str(project)], capsys, 1)
    assert "input labeling/ledger.jsonl changed" in out
    assert "looks ledger: head hash" in out
    assert "contract accuracy: looks spent 1 in the PDF, 2 now" in out


def test_verify_catches_a_tampered_ledger_line(written: tuple[Path, Path],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    project, pdf = written
    ledger = project / "labeling" / "ledger.jsonl"
    ledger.write_bytes(ledger.read_bytes().replace(b'"look":1', b'"look":7'))
    out = _verify([str(pdf), "--project", str(project)], capsys, 1)
    assert "input labeling/ledger.jsonl changed" in out
    assert "looks ledger: intact yes in the PDF, no now" in out


def test_verify_catches_an_edited_embedded_json(written: tuple[Path, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    project, pdf = written
    stored = json.loads(pypdf.PdfReader(pdf).attachments[ATTACHMENT_NAME][0])
    edited = json.loads(json.dumps(stored))
    edited["contracts"]["accuracy"]["parameters"]["error"] = 0.01
    forged = tmp_path / "forged.pdf"
    _replace_attachment(pdf, edited, forged)
    out = _verify([str(forged)], capsys, 1)
    assert "content hash" in out and "edited" in out

    # Recomputing the hash passes the integrity check, never the pages (they print the
    # original) nor the project comparison.
    edited["content_hash"] = content_hash(edited)
    _replace_attachment(pdf, edited, forged)
    out = _verify([str(forged)], capsys, 1)
    assert "integrity" not in out
    assert "the pages do not show the attached certificate" in out
    assert "prints “0.2,” where the attached certificate prints “0.01,”" in out
    out = _verify([str(forged), "--project", str(project)], capsys, 1)
    assert "contract accuracy: parameter, error 0.01 in the PDF, 0.2 now" in out


def test_bad_input_exits_2(tmp_path: Path, written: tuple[Path, Path],
                           capsys: pytest.CaptureFixture[str]) -> None:
    project, _ = written
    not_pdf = tmp_path / "x.pdf"
    not_pdf.write_text("hello")
    assert main(["verify", str(not_pdf)]) == 2
    assert "not a PDF" in capsys.readouterr().err
    plain = tmp_path / "plain.pdf"
    writer = pypdf.PdfWriter()
    writer.add_blank_page(100, 100)
    buffer = io.BytesIO()
    writer.write(buffer)
    plain.write_bytes(buffer.getvalue())
    assert main(["verify", str(plain)]) == 2
    assert "no attachment named" in capsys.readouterr().err
    assert main(["certificate", str(tmp_path / "missing"), "-o", str(tmp_path / "a.pdf")]) == 2
    assert "not found" in capsys.readouterr().err
    assert main(["certificate", str(project), "-o", str(tmp_path / "a.txt")]) == 2
    assert not (tmp_path / "a.pdf").exists()


def test_for_and_by_print_on_page_one_and_verify_keeps_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = certified_project(tmp_path / "proj")
    pdf = tmp_path / "c.pdf"
    assert main(["certificate", str(project), "-o", str(pdf), "--for", "Acme Reviews Ltd",
                 "--by", "Dana Lead"]) == 0
    capsys.readouterr()
    first = pypdf.PdfReader(pdf).pages[0].extract_text()
    assert "Prepared for Acme Reviews Ltd · prepared by Dana Lead" in " ".join(first.split())
    out = _verify([str(pdf), "--project", str(project)], capsys, 0)
    assert "matches the project" in out
    config = project / "config.yaml"
    config.write_text(config.read_text() + "# edited\n")
    out = _verify([str(pdf), "--project", str(project)], capsys, 1)
    assert "1 difference between the certificate in the PDF and the project" in out
