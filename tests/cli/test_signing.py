"""Signed certificates (issue 16, part 6): ``accord keygen``, ``certificate --sign`` and
``verify --key``.

The case a hash cannot catch: someone edits the certificate's data, recomputes its hash and
renders the pages again from the edited data, so the file is a perfect certificate of
something that was never computed. Without the project only a signature gives it away. The
signature is checked against OpenSSL's own Ed25519 verification (an independent
implementation), so the test does not only read back what ``signing.py`` wrote.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pypdf
import pytest

from app.cli.main import main
from app.core.certificate.build import ATTACHMENT_NAME, canonical_json, content_hash
from app.core.certificate.signing import PRIVATE_NAME, PUBLIC_NAME, SIGNATURE_NAME
from tests.certificate_helpers import certified_project

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's settings folder, in the test's temporary folder."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "Accord"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def signed(tmp_path: Path, settings: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    project = certified_project(tmp_path / "proj")
    assert _run(["keygen"], capsys)[0] == 0
    pdf = tmp_path / "signed.pdf"
    code, out, err = _run(["certificate", str(project), "-o", str(pdf), "--sign"], capsys)
    assert code == 0, err
    assert "signed by key" in out
    return project, pdf


def _attachments(pdf: Path) -> dict[str, bytes]:
    reader = pypdf.PdfReader(pdf)
    return {name: data[0] for name, data in reader.attachments.items()}


def test_keygen_writes_a_private_key_only_its_owner_reads(
    settings: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["keygen"], capsys)
    assert code == 0
    private, public = settings / PRIVATE_NAME, settings / PUBLIC_NAME
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(settings.stat().st_mode) == 0o700
    assert private.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    assert str(private) in out and not list(settings.glob(".*.tmp"))
    before = private.read_bytes()
    code, _, err = _run(["keygen"], capsys)
    assert code == 2 and "--force" in err and err.count("\n") == 1
    assert private.read_bytes() == before  # never overwritten unasked
    assert _run(["keygen", "--force"], capsys)[0] == 0
    assert private.read_bytes() != before


def test_a_signed_certificate_verifies_with_its_key(
    signed: tuple[Path, Path], settings: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, pdf = signed
    key = str(settings / PUBLIC_NAME)
    code, out, _ = _run(["verify", str(pdf), "--key", key], capsys)
    assert code == 0, out
    assert "the key given with --key" in out
    code, out, _ = _run(["verify", str(pdf), "--key", key, "--project", str(project)], capsys)
    assert code == 0, out
    code, out, _ = _run(["verify", str(pdf)], capsys)
    assert code == 0 and "pass --key" in out


def test_the_signature_verifies_with_openssl(signed: tuple[Path, Path], settings: Path) -> None:
    """Ed25519 over the canonical JSON of the attached certificate, checked by OpenSSL."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    _, pdf = signed
    found = _attachments(pdf)
    signature = json.loads(found[SIGNATURE_NAME])
    assert signature["algorithm"] == "Ed25519"
    folder = pdf.parent
    (folder / "data").write_bytes(canonical_json(json.loads(found[ATTACHMENT_NAME])))
    (folder / "sig").write_bytes(base64.b64decode(signature["signature"]))
    command = [
        "openssl",
        "pkeyutl",
        "-verify",
        "-pubin",
        "-inkey",
        str(settings / PUBLIC_NAME),
        "-rawin",
        "-in",
        str(folder / "data"),
        "-sigfile",
        str(folder / "sig"),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "Signature Verified Successfully" in result.stdout
    # and one changed byte of the data is refused by OpenSSL too
    (folder / "data").write_bytes((folder / "data").read_bytes().replace(b'"', b"'", 1))
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode != 0


def _forge(pdf: Path, target: Path, signature: bytes | None) -> dict[str, Any]:
    """A perfect forgery: the data edited, the hash recomputed, the pages rendered again."""
    from app.report.pdf import render_pdf

    data = json.loads(_attachments(pdf)[ATTACHMENT_NAME])
    assert data["contracts"]["accuracy"]["parameters"]["error"] == 0.2
    data["contracts"]["accuracy"]["parameters"]["error"] = 0.01  # a promise never tested
    data["content_hash"] = content_hash(data)
    extra = {SIGNATURE_NAME: signature} if signature is not None else None
    target.write_bytes(render_pdf(data, extra))
    return data


def test_a_forged_certificate_with_a_recomputed_hash_is_caught_by_the_key(
    signed: tuple[Path, Path], settings: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, pdf = signed
    key = str(settings / PUBLIC_NAME)
    forged = tmp_path / "forged.pdf"

    # unsigned: without --key nothing can tell (the note says it is not signed) ...
    _forge(pdf, forged, None)
    code, out, _ = _run(["verify", str(forged)], capsys)
    assert code == 0 and "the certificate is not signed" in out
    # ... with --key it fails
    code, out, _ = _run(["verify", str(forged), "--key", key], capsys)
    assert code == 1 and "the certificate is not signed" in out

    # the original signature copied over: it does not match the data
    _forge(pdf, forged, _attachments(pdf)[SIGNATURE_NAME])
    for argv in (["verify", str(forged)], ["verify", str(forged), "--key", key]):
        code, out, _ = _run(argv, capsys)
        assert code == 1 and "does not match the attached certificate" in out

    # signed with the forger's own key: valid, but not the key the client trusts
    other = tmp_path / "forger"
    assert _run(["keygen", "--dir", str(other)], capsys)[0] == 0
    project = certified_project(tmp_path / "proj2")
    assert (
        _run(
            [
                "certificate",
                str(project),
                "-o",
                str(tmp_path / "x.pdf"),
                "--sign",
                "--key",
                str(other / PRIVATE_NAME),
            ],
            capsys,
        )[0]
        == 0
    )
    code, out, _ = _run(["verify", str(tmp_path / "x.pdf"), "--key", key], capsys)
    assert code == 1 and "not by the key given with --key" in out


def test_key_errors_are_one_line_and_exit_2(
    tmp_path: Path, settings: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = certified_project(tmp_path / "proj")
    out_pdf = str(tmp_path / "c.pdf")
    code, _, err = _run(["certificate", str(project), "-o", out_pdf, "--sign"], capsys)
    assert code == 2 and "accord keygen" in err and err.count("\n") == 1
    code, _, err = _run(["certificate", str(project), "-o", out_pdf, "--key", "k.pem"], capsys)
    assert code == 2 and "add --sign" in err
    assert _run(["keygen"], capsys)[0] == 0
    (settings / PRIVATE_NAME).chmod(0o644)
    code, _, err = _run(["certificate", str(project), "-o", out_pdf, "--sign"], capsys)
    assert code == 2 and "0644" in err and "chmod 600" in err
    assert not Path(out_pdf).exists()
    (settings / PRIVATE_NAME).chmod(0o600)
    assert _run(["certificate", str(project), "-o", out_pdf, "--sign"], capsys)[0] == 0
    bad = tmp_path / "bad.pem"
    bad.write_text("not a key\n")
    for key in (bad, tmp_path / "missing.pem", settings / PRIVATE_NAME):
        code, _, err = _run(["verify", out_pdf, "--key", str(key)], capsys)
        assert code == 2 and err.count("\n") == 1, err


def test_a_garbled_signature_is_a_problem_not_a_traceback(
    signed: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, pdf = signed
    for garbage in (
        b"{",
        b"[]",
        json.dumps(
            {
                "format": "accord-signature-v1",
                "algorithm": "Ed25519",
                "public_key": "AA==",
                "signature": "!!",
            }
        ).encode(),
    ):
        target = tmp_path / "garbled.pdf"
        writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(pdf))
        names = writer.root_object["/Names"]["/EmbeddedFiles"]["/Names"]
        spec = names[names.index(SIGNATURE_NAME) + 1].get_object()
        spec["/EF"]["/F"].get_object().set_data(garbage)
        buffer = io.BytesIO()
        writer.write(buffer)
        target.write_bytes(buffer.getvalue())
        code, out, err = _run(["verify", str(target)], capsys)
        assert code == 1 and "signature" in out and not err, (garbage, out, err)
