"""The certificate as data: inputs and hashes, contracts as status reports them,
determinism, integrity, the comparison verify makes, and the attachment reader."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pypdf
import pytest

from app.cli.main import main
from app.core.certificate.build import build_certificate, canonical_json, content_hash
from app.core.certificate.compare import differences, integrity_problems
from app.core.contracts.kinds.coverage_curve import GRID
from app.core.contracts.ledger.format import GENESIS
from app.core.errors import InputError
from app.core.progress import run
from app.core.project import NO_ENGINE, open_project
from app.report.pdf_attachment import attachments
from tests.certificate_helpers import add_cert_labels, certified_project, contracts_project

STATED = "2026-11-30T12:00:00Z"


def _certificate(project: Path, stated: str = STATED) -> dict[str, Any]:
    return run(build_certificate(run(open_project(project)), generated_at=stated))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return certified_project(tmp_path_factory.mktemp("cert") / "proj")


@pytest.fixture(scope="module")
def cert(project: Path) -> dict[str, Any]:
    return _certificate(project)


def test_every_input_file_is_listed_with_its_sha256(project: Path, cert: dict[str, Any]
                                                    ) -> None:
    listed = {f["path"]: f for f in cert["inputs"]}
    expected = {"config.yaml": "config", "data/items.jsonl": "data",
                "annotations/ana/user_state.json": "annotations",
                "annotations/ben/user_state.json": "annotations",
                "labeling/engine.yaml": "engine", "labeling/predictions.jsonl": "labeling",
                "labeling/requests.jsonl": "labeling", "labeling/ledger.jsonl": "ledger",
                ".accord/ledger-head": "ledger"}
    assert {p: f["role"] for p, f in listed.items()} == expected
    for path, entry in listed.items():
        raw = (project / path).read_bytes()
        assert entry["sha256"] == hashlib.sha256(raw).hexdigest()
        assert entry["bytes"] == len(raw)


def test_ledger_head_is_the_hash_of_its_last_line(project: Path, cert: dict[str, Any]) -> None:
    lines = (project / "labeling" / "ledger.jsonl").read_bytes().rstrip(b"\n").split(b"\n")
    assert cert["ledger"]["head"] == hashlib.sha256(lines[-1]).hexdigest()
    assert cert["ledger"]["lines"] == len(lines)
    assert cert["ledger"]["ok"] is True


def test_contracts_are_what_label_status_reports(project: Path, cert: dict[str, Any],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["label", "status", str(project), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert list(cert["contracts"]) == list(status["contracts"])
    for ident, entry in status["contracts"].items():
        mine = cert["contracts"][ident]
        for key in ("kind", "schema", "state", "looks", "level_spent", "result"):
            assert mine[key] == entry[key], (ident, key)
    accuracy = cert["contracts"]["accuracy"]
    assert accuracy["state"] == "met" and accuracy["looks"] == 1
    assert accuracy["certifies"] is True and accuracy["confidence"] == 0.9
    assert accuracy["tests"] == status["contracts"]["accuracy"]["result"]["tests"]
    assert accuracy["rule"] == status["contracts"]["accuracy"]["result"]["rule"]
    assert accuracy["accepted_by_tier"]["model"] > 0
    assert cert["machine_labels_accepted"]["sentiment"]["by_source"] == \
        status["accepted"]["sentiment"]["by_source"]
    assert cert["unsupported_schemas"] == status["unsupported_schemas"]


def test_export_status_counts_match_label_export(project: Path, cert: dict[str, Any],
                                                 tmp_path: Path) -> None:
    out = tmp_path / "export.jsonl"
    assert main(["label", "export", str(project), "-o", str(out)]) == 0
    counts: dict[str, int] = {}
    for line in out.read_text().splitlines():
        row = json.loads(line)
        status = row["status"] if row["label_origin"] is None else \
            f"{row['status']}:{row['label_origin']}"
        counts[status] = counts.get(status, 0) + 1
    assert cert["export_statuses"]["sentiment"] == dict(sorted(counts.items()))


def test_threshold_legacy_is_uncertified_with_its_measured_error(cert: dict[str, Any]) -> None:
    legacy = cert["contracts"]["old-rule"]
    assert legacy["certifies"] is False and legacy["result"]["certified"] is False
    (entry,) = cert["uncertified"]
    assert entry["contract"] == "old-rule" and entry["threshold"] == 0.95
    assert entry["measured_error"] == legacy["result"]["measured_error"]
    assert entry["measured_error"] is not None


def test_dev_curve_counts_by_brute_force(project: Path, cert: dict[str, Any]) -> None:
    predictions = {json.loads(x)["item"]: json.loads(x) for x in
                   (project / "labeling" / "predictions.jsonl").read_text().splitlines()}
    dev = [json.loads(x) for x in (project / "labeling" / "requests.jsonl").read_text()
           .splitlines() if json.loads(x)["split"] == "dev"]
    scored = [(predictions[r["item"]]["confidence"],
               predictions[r["item"]]["label"] != r["label"]) for r in dev]
    points = cert["contracts"]["accuracy"]["dev_curve"]["model"]
    curve = {round(p["threshold"], 2): p for p in points}
    everyone = [p["confidence"] for p in predictions.values()]  # one tier: no routing
    for t in GRID:
        accepted = [wrong for c, wrong in scored if c >= t]
        if not accepted:
            assert round(float(t), 2) not in curve
            continue
        point = curve[round(float(t), 2)]
        assert point["n"] == len(accepted)
        assert point["error"] == pytest.approx(sum(accepted) / len(accepted))
        # coverage of the whole population, as the contracts panel draws it
        assert point["coverage"] == pytest.approx(sum(c >= t for c in everyone)
                                                  / len(everyone))


def test_dev_curve_is_the_contracts_panels_curve(project: Path, cert: dict[str, Any]
                                                 ) -> None:
    """The PDF's curve and the GUI's are one computation (coverage_curve.py, routed by
    the contract's rule), point for point."""
    from app.core.contracts.kinds.coverage_curve import error_coverage_curves
    from app.core.contracts.label_report import label_report

    report = label_report(project)
    status = report.contracts["accuracy"]
    (gui,) = error_coverage_curves(status.spec, report.data["sentiment"],
                                   status.result.get("rule") or {})
    points = cert["contracts"]["accuracy"]["dev_curve"]["model"]
    shown = gui.n_dev > 0
    assert [p["threshold"] for p in points] == [float(t) for t in gui.thresholds[shown]]
    assert [p["coverage"] for p in points] == [float(c) for c in gui.coverage[shown]]
    assert [p["error"] for p in points] == [float(e) for e in gui.dev_error[shown]]


def test_content_hash_is_sha256_of_sorted_compact_json(cert: dict[str, Any]) -> None:
    body = {k: v for k, v in cert.items() if k != "content_hash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert cert["content_hash"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert integrity_problems(cert) == []


def test_same_inputs_give_the_same_certificate(project: Path, cert: dict[str, Any]) -> None:
    again = _certificate(project)
    assert canonical_json(again) == canonical_json(cert)
    later = _certificate(project, "2027-01-01T00:00:00Z")
    assert later["generated_at"] != cert["generated_at"]
    assert {k: v for k, v in later.items() if k not in ("generated_at", "content_hash")} == \
        {k: v for k, v in cert.items() if k not in ("generated_at", "content_hash")}
    assert differences(cert, later) == []


def test_an_edited_certificate_fails_its_integrity_check(cert: dict[str, Any]) -> None:
    edited = json.loads(json.dumps(cert))
    edited["contracts"]["accuracy"]["state"] = "unmet"
    (problem,) = integrity_problems(edited)
    assert "content hash" in problem and "edited" in problem
    assert integrity_problems({"format": "something else"})
    assert integrity_problems([1, 2])


def test_differences_name_a_changed_input_and_the_changed_fields(
        tmp_path: Path) -> None:
    project = certified_project(tmp_path / "proj")
    before = _certificate(project)
    add_cert_labels(project)
    assert main(["label", "certify", str(project)]) == 0
    after = _certificate(project)
    found = differences(before, after)
    text = "\n".join(found)
    assert "input labeling/requests.jsonl changed" in text
    assert "input labeling/ledger.jsonl changed" in text
    assert "looks ledger: head hash" in text
    assert "contract accuracy: looks spent 1 in the PDF, 2 now" in text


def test_a_project_without_an_engine_gets_an_agreement_only_certificate(tmp_path: Path) -> None:
    project = contracts_project(tmp_path / "plain", engine=False)
    cert = _certificate(project)
    assert cert["contracts"] == {} and cert["configuration"] is None
    assert cert["labels_absent"] == NO_ENGINE
    assert cert["agreement"]["schemes"]["sentiment"]["kind"] == "nominal"
    assert cert["ledger"] == {"head": GENESIS, "lines": 0, "head_file": None, "ok": True,
                              "problem": None}
    assert [f["role"] for f in cert["inputs"]] == ["config", "data", "annotations",
                                                   "annotations"]
    assert content_hash(cert) == cert["content_hash"]


# ---------------------------------------------------------------- the attachment reader


def _pdf(attach: dict[str, bytes], password: str | None = None) -> bytes:
    """A PDF written by pypdf (cross-reference table, name tree) with these attachments."""
    writer = pypdf.PdfWriter()
    writer.add_blank_page(100, 100)
    for name, payload in attach.items():
        writer.add_attachment(name, payload)
    if password is not None:
        writer.encrypt(password)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_attachment_reader_follows_the_name_tree() -> None:
    payload = json.dumps({"a": "(parens) and \\ backslash"}).encode()
    found = attachments(_pdf({"plain.json": payload, "z.j": payload * 3}))
    assert found == {"plain.json": payload, "z.j": payload * 3}


def test_attachment_reader_refuses_what_it_cannot_read() -> None:
    with pytest.raises(InputError, match="not a PDF"):
        attachments(b"hello")
    with pytest.raises(InputError, match="encrypted"):
        attachments(_pdf({"x": b"1"}, password="secret"))
    with pytest.raises(InputError, match="cannot be read as a PDF"):
        attachments(b"%PDF-1.4\n1 0 obj << /F (x) /EF << /F 2 0 R >> >> endobj\n")


def test_the_certificate_names_the_study_not_the_folder(tmp_path: Path) -> None:
    from app.core.certificate.build import study_name

    config = tmp_path / "config.yaml"
    config.write_text("annotation_task_name: '  Review sentiment, wave 2 '\n")
    assert study_name(tmp_path) == "Review sentiment, wave 2"
    config.write_text("task_dir: .\n")
    assert study_name(tmp_path) == tmp_path.name


def test_an_input_linked_out_of_the_project_is_refused_not_hashed(tmp_path: Path) -> None:
    """The certificate hashes only what the readers would read: Potato's WAL file (which
    SQLite, not Accord, opens) linked to a file outside the project is an input error
    naming it, and a FIFO beside it is refused without blocking."""
    import os

    from app.core.certificate.inputs import hash_inputs, ledger_summary

    demos = tmp_path / "demos"
    assert main(["demo", "--export", str(demos)]) == 0
    project = demos / "sentiment_reviews"
    outside = tmp_path / "secret.txt"
    outside.write_text("not the project's", encoding="utf-8")
    (project / "engine.sqlite-wal").symlink_to(outside)
    with pytest.raises(InputError) as caught:
        run(hash_inputs(project))
    assert "engine.sqlite-wal" in str(caught.value) and "outside the project" in str(caught.value)
    (project / "engine.sqlite-wal").unlink()
    os.mkfifo(project / "labeling" / "ledger.jsonl")
    with pytest.raises(InputError) as fifo:
        ledger_summary(project)
    assert "ledger.jsonl" in str(fifo.value)
