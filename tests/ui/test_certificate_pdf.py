"""The certificate PDF, read back with pypdf (text, metadata, attachment) and rendered
with pdftoppm; escaping of hostile label names; atomic writing; the GUI export."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path
from typing import Any

import pypdf
import pytest
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from app import __version__
from app.core.certificate.build import ATTACHMENT_NAME, build_certificate
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.report.pdf import GuardedDocument, page_images, render_pdf, write_certificate_pdf
from app.report.plots import contract_plots
from app.ui.export_certificate import Exported, export_certificate
from app.ui.exporting.prepared import SETTINGS_KEY, Prepared, PreparedDialog
from app.ui.workers import WorkerPool
from tests.certificate_helpers import HOSTILE, IMG, LINK, certified_project, contracts_project

STATED = "2026-11-30T12:00:00Z"


def _data(project: Path) -> ProjectData:
    return run(open_project(project))


def _cert(project: Path) -> dict[str, Any]:
    return run(build_certificate(_data(project), generated_at=STATED))


def _text(pdf: Path) -> str:
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(pdf).pages)
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return certified_project(tmp_path_factory.mktemp("pdf") / "proj")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return certified_project(tmp_path_factory.mktemp("hostile") / "proj", HOSTILE)


def test_pdf_reads_back_with_text_metadata_and_attachment(qapp: Any, project: Path,
                                                          tmp_path: Path) -> None:
    cert = _cert(project)
    pdf = tmp_path / "c.pdf"
    size = write_certificate_pdf(cert, pdf)
    assert size == pdf.stat().st_size
    reader = pypdf.PdfReader(pdf)
    assert reader.metadata is not None
    # The study's name (annotation_task_name "test"), not its folder "proj" (issue 13).
    assert reader.metadata.title == "Accord certificate — test"
    assert cert["project"]["folder"] == "proj"
    assert reader.metadata.creator == f"Accord {__version__}"
    assert str(reader.metadata["/CreationDate"]) == "D:20261130120000Z"
    (attached,) = reader.attachments[ATTACHMENT_NAME]
    assert json.loads(attached) == cert
    text = _text(pdf)
    first = unicodedata.normalize("NFKC", reader.pages[0].extract_text())
    assert "Summary" in first and "Labels delivered" in re.sub(r"\s+", " ",
                                                                                 first)
    for needle in ("accuracy", "CERTIFIED",
                   "the error among accepted machine labels on 'sentiment' is at most 20%",
                   "Uncertified", "old-rule", "Agreement between people",
                   "Method notes", "Angelopoulos", "Calderon", "Krippendorff", "STAPLE",
                   cert["content_hash"], f"page 1 of {len(reader.pages)}"):
        assert needle in text, needle


def test_pages_render_to_png_with_pdftoppm(qapp: Any, project: Path, tmp_path: Path) -> None:
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    pdf = tmp_path / "c.pdf"
    write_certificate_pdf(_cert(project), pdf)
    subprocess.run(["pdftoppm", "-r", "60", "-png", str(pdf), str(tmp_path / "page")],
                   check=True, capture_output=True)
    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) == len(pypdf.PdfReader(pdf).pages) >= 3
    image = QImage(str(pages[0]))
    assert not image.isNull() and image.width() > 400


def test_hostile_label_names_show_as_text_and_load_nothing(qapp: Any, hostile: Path,
                                                           tmp_path: Path) -> None:
    cert = _cert(hostile)
    pdf = tmp_path / "c.pdf"
    write_certificate_pdf(cert, pdf)
    text = _text(pdf)
    assert IMG in text and LINK in text
    hostname = Path("/etc/hostname")
    if hostname.is_file() and hostname.read_text().strip():
        assert hostname.read_text().strip() not in text
    raw = pdf.read_bytes()
    assert b"/URI" not in raw and b"/Link" not in raw  # no clickable link was made


def test_the_document_refuses_every_resource_it_was_not_given(qapp: Any) -> None:
    doc = GuardedDocument()
    doc.setHtml('<p>x</p><img src="file:///etc/hostname"><img src="http://example.com/a.png">'
                '<link rel="stylesheet" href="file:///etc/passwd">')
    doc.size()  # lay out: images are requested now
    assert "file:///etc/hostname" in doc.refused
    assert "http://example.com/a.png" in doc.refused


def test_the_footers_hash_reads_back_as_written(qapp: Any, project: Path) -> None:
    """A hash whose first 16 digits hold "ff" and "fi"-like pairs is drawn letter by
    letter (no ligature glyph swallows one), so every page's text gives it back."""
    cert = dict(_cert(project), content_hash="717ff3a0ffee1f2f" + "0" * 48)
    reader = pypdf.PdfReader(io.BytesIO(render_pdf(cert)))
    for page in reader.pages:
        assert "717ff3a0ffee1f2f" in page.extract_text().replace("\n", "")


def test_the_same_certificate_gives_the_same_pdf_bytes(qapp: Any, project: Path) -> None:
    cert = _cert(project)
    assert render_pdf(cert) == render_pdf(cert)


def test_an_interrupted_export_leaves_no_half_written_pdf(qapp: Any, project: Path,
                                                          tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    cert = _cert(project)
    pdf = tmp_path / "c.pdf"

    def interrupted(src: Any, dst: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_certificate_pdf(cert, pdf)
    assert not pdf.exists() and list(tmp_path.iterdir()) == []
    pdf.write_bytes(b"the earlier certificate")
    with pytest.raises(KeyboardInterrupt):
        write_certificate_pdf(cert, pdf)
    assert pdf.read_bytes() == b"the earlier certificate"
    assert [p.name for p in tmp_path.iterdir()] == ["c.pdf"]


def test_a_project_without_contracts_says_so(qapp: Any, tmp_path: Path) -> None:
    plain = contracts_project(tmp_path / "plain", engine=False)
    pdf = tmp_path / "c.pdf"
    write_certificate_pdf(_cert(plain), pdf)
    text = _text(pdf)
    assert "No contracts." in text and "agreement between annotators only" in text


def test_plots_are_drawn(qapp: Any, project: Path) -> None:
    cert = _cert(project)
    for ident in ("accuracy", "prevalence"):
        (png,) = contract_plots(cert["contracts"][ident])
        image = QImage.fromData(png)
        assert not image.isNull()
        colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 7)
                   for y in range(0, image.height(), 7)}
        assert QColor("#0072b2").name() in colours  # the first tier / group colour is drawn
    assert contract_plots(cert["contracts"]["plan"]) == []


def test_gui_export_writes_the_pdf_and_previews_page_one(qtbot: QtBot, project: Path,
                                                         tmp_path: Path) -> None:
    data = _data(project)
    results: list[Exported | None] = []
    messages: list[tuple[bool, str]] = []
    export_certificate(None, data, None, ask=lambda *a: (str(tmp_path / "mine"), ""),
                       tell=lambda _p, ok, text: messages.append((ok, text)),
                       prepare=lambda *a: Prepared(), done=results.append)
    (result,) = results
    assert result is not None and messages == []
    assert result.path == tmp_path / "mine.pdf" and result.path.stat().st_size == result.size
    assert result.preview.width() > 500 and not result.preview.isNull()
    assert result.dialog is not None
    qtbot.addWidget(result.dialog)
    first = page_images(result.certificate, pages=1, dpi=80)[0]
    assert first == result.preview


def test_gui_export_runs_the_job_on_a_worker_pool(qtbot: QtBot, project: Path,
                                                  tmp_path: Path) -> None:
    data = _data(project)
    pool = WorkerPool()
    results: list[Exported | None] = []
    export_certificate(None, data, pool, ask=lambda *a: (str(tmp_path / "c.pdf"), ""),
                       tell=lambda *a: None, prepare=lambda *a: Prepared(),
                       show_preview=False, done=results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=20000)
    assert results[0] is not None and results[0].path.is_file()
    assert pool.await_workers(5000)
    cancelled: list[Exported | None] = []
    export_certificate(None, data, pool, ask=lambda *a: ("", ""), done=cancelled.append)
    assert cancelled == [None]


def test_gui_prepared_for_and_by_reach_the_certificate(qtbot: QtBot, project: Path,
                                                       tmp_path: Path) -> None:
    """The GUI's --for/--by: stored in the attached data (the hash covers them) and
    printed on page 1; cancelling that dialog cancels the export, nothing written."""
    data = _data(project)
    results: list[Exported | None] = []
    export_certificate(None, data, None, ask=lambda *a: (str(tmp_path / "for.pdf"), ""),
                       tell=lambda *a: None, show_preview=False,
                       prepare=lambda *a: Prepared("Acme Labs", "J. Doe"),
                       done=results.append)
    (result,) = results
    assert result is not None
    assert result.certificate["prepared"] == {"for": "Acme Labs", "by": "J. Doe"}
    text = " ".join(pypdf.PdfReader(str(result.path)).pages[0].extract_text().split())
    assert "Prepared for Acme Labs · prepared by J. Doe" in text
    cancelled: list[Exported | None] = []
    export_certificate(None, data, None, ask=lambda *a: (str(tmp_path / "no.pdf"), ""),
                       tell=lambda *a: None, prepare=lambda *a: None, done=cancelled.append)
    assert cancelled == [None] and not (tmp_path / "no.pdf").exists()


def test_prepared_dialog_tidies_and_leaves_empty_fields_out(qtbot: QtBot) -> None:
    dialog = PreparedDialog(None, "Remembered Lead")
    qtbot.addWidget(dialog)
    assert dialog.by_edit.text() == "Remembered Lead" and dialog.for_edit.text() == ""
    assert dialog.prepared() == Prepared(None, "Remembered Lead")
    dialog.for_edit.setText("  Acme \t Labs  ")
    dialog.by_edit.setText("   ")
    assert dialog.prepared() == Prepared("Acme Labs", None)
    assert SETTINGS_KEY == "certificate/prepared_by"
