"""``accord certificate PROJECT -o FILE.pdf [--sign [--key PRIVATE]]`` and ``accord verify
FILE.pdf [--project P] [--key PUB]``.

Argument parsing and printing only: the certificate is built by
:mod:`app.core.certificate.build`, printed by :mod:`app.report.pdf`, read back as a viewer
reads it by :mod:`app.report.verification.structure` (pypdf), its pages compared with a new
rendering by :mod:`app.report.verification.pages`, its data by
:mod:`app.core.certificate.compare` and its signature by :mod:`app.core.certificate.signing`.

Exit status (``cli.md``): ``certificate`` 0 when written, 2 for bad input. ``verify`` 0
when the PDF is one revision a viewer reads as Accord wrote it, the embedded certificate is
intact, the pages print exactly what it says (and, with ``--key``, it is signed by that key;
with ``--project``, it matches the project recomputed); 1 with every problem and difference
listed on stdout; 2 for bad input (not a PDF, encrypted, no certificate attached, an
unreadable project or key).

Choices where the spec is silent:

- Both commands read the project with ``status`` semantics: nothing is tested or written
  (``accord label certify`` is the step that spends looks), so ``verify`` can be run on
  a reviewer's copy without changing it.
- Both render with Qt's offscreen platform unless ``QT_QPA_PLATFORM`` says otherwise: they
  need fonts, not a display, so they work over SSH and in CI (``verify`` renders the
  attached certificate again to compare its pages).
- A PDF changed after it was written (an incremental update, objects the cross-reference
  table does not point at, two attachments of the name) is a failed check, exit 1, not bad
  input: it is a PDF, and what is wrong with it is what verify is for.
- ``--for`` and ``--by`` are stored in the certificate (its hash covers them); ``verify
  --project`` recomputes with the names the PDF states, so they are never a difference.
- The drawing (shapes, colours, fonts, images) is compared only when this machine renders with
  the Qt version the PDF names; otherwise verify fails unless ``--text-only`` accepts a
  comparison of the text, boxes, annotations and metadata alone (the PDF's ``/Producer`` is
  its own word: changing it must not switch a check off silently).
- ``--sign`` signs with the key of ``accord keygen`` (the settings folder) unless ``--key``
  names another private key; the signature is a second attachment (``signing.py``).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app import __version__
from app.cli.progress import with_bar
from app.core.errors import InputError

if TYPE_CHECKING:
    from app.core.progress import Job

# The core (scipy, the contracts) is imported inside the commands that use it, so that
# `accord --help` and the GUI's launch do not pay for it (cli.py's docstring).

EXIT_OK = 0
EXIT_MISMATCH = 1


def add_certificate_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    cert = commands.add_parser("certificate", help="write the project's certificate as a PDF")
    cert.add_argument("project", type=Path, help="Potato project folder")
    cert.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.pdf")
    cert.add_argument(
        "--for",
        dest="prepared_for",
        metavar="CLIENT",
        help="who the certificate is prepared for (printed on page 1)",
    )
    cert.add_argument(
        "--by",
        dest="prepared_by",
        metavar="NAME",
        help="who prepared it, e.g. the annotation lead (printed on page 1)",
    )
    cert.add_argument(
        "--sign",
        action="store_true",
        help="sign the certificate with your key (made by 'accord keygen')",
    )
    cert.add_argument(
        "--key",
        type=Path,
        metavar="PRIVATE.pem",
        help="sign with this private key instead of the one in the settings folder",
    )
    verify = commands.add_parser("verify", help="check a certificate PDF (and its project)")
    verify.add_argument("pdf", type=Path, metavar="FILE.pdf")
    verify.add_argument("--project", type=Path, help="recompute from this project and compare")
    verify.add_argument(
        "--key",
        type=Path,
        metavar="PUB.pem",
        help="require a signature by this public key (from 'accord keygen')",
    )
    verify.add_argument(
        "--text-only",
        action="store_true",
        help="accept comparing the pages' text only when the PDF was made with another Qt",
    )


def certificate_job(
    project: Path,
    generated_at: str,
    prepared_for: str | None = None,
    prepared_by: str | None = None,
) -> Job[dict[str, Any]]:
    """Open the project (status semantics) and build its certificate."""
    from app.core.certificate.build import build_certificate
    from app.core.progress import Progress, scaled
    from app.core.project import open_project

    data = yield from scaled(open_project(project), 0.0, 0.85, 1.0)
    cert = yield from scaled(
        build_certificate(
            data, generated_at=generated_at, prepared_for=prepared_for, prepared_by=prepared_by
        ),
        0.85,
        1.0,
        1.0,
    )
    yield Progress(1.0, 1.0, "done")
    return cert


def _ensure_gui_application() -> Any:
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance()
    if app is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QGuiApplication(["accord"])
    return app


def _signing_key(args: argparse.Namespace) -> Any:
    """The private key ``--sign`` signs with (loaded before any work, so a missing key
    fails at once)."""
    from app.core.certificate.signing import PRIVATE_NAME, load_private, settings_folder

    if args.key is not None and not args.sign:
        raise InputError("--key names the key to sign with; add --sign", key="--key")
    if not args.sign:
        return None
    path: Path = args.key if args.key is not None else settings_folder() / PRIVATE_NAME
    if args.key is None and not path.exists():
        raise InputError("no signing key yet: run 'accord keygen' first", file=path)
    return load_private(path)


def run_certificate(args: argparse.Namespace) -> int:
    from app.core.certificate.build import utc_now

    output: Path = args.output
    if output.suffix.lower() != ".pdf":
        raise InputError(f"expected a .pdf file name, found '{output.name}'", key="-o")
    if output.exists() and output.is_dir():
        raise InputError("expected a file name, found a folder", file=output)
    key = _signing_key(args)
    cert = with_bar(certificate_job(args.project, utc_now(), args.prepared_for, args.prepared_by))
    _app = _ensure_gui_application()
    from app.core.certificate.signing import SIGNATURE_NAME, key_id, sign
    from app.report.pdf import write_certificate_pdf

    extra = {SIGNATURE_NAME: sign(cert, key)} if key is not None else None
    size = write_certificate_pdf(cert, output, extra)
    states = ", ".join(f"{i} {c['state']}" for i, c in cert["contracts"].items()) or "no contracts"
    signed = f"; signed by key {key_id(key.public_key())}" if key is not None else ""
    print(f"wrote {output} ({size:,} bytes): {states}; content hash {cert['content_hash']}{signed}")
    return EXIT_OK


def _json_object(raw: bytes, pdf: Path) -> dict[str, Any]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"the attached certificate is not valid JSON ({exc})", file=pdf) from exc
    if not isinstance(data, dict):
        raise InputError("the attached certificate is not a JSON object", file=pdf)
    return data


def load_embedded(pdf: Path) -> dict[str, Any]:
    """The certificate attached to ``pdf`` (read as a viewer reads it)."""
    from app.core.certificate.build import ATTACHMENT_NAME
    from app.report.pdf_attachment import read_attachment

    return _json_object(read_attachment(pdf, ATTACHMENT_NAME), pdf)


def _print_section(pdf: Path, title: str, lines: list[str]) -> None:
    if lines:
        print(f"{pdf}: {title}:")
        for line in lines:
            print(f"  - {line}")


def run_verify(args: argparse.Namespace) -> int:
    from app.core.certificate.build import ATTACHMENT_NAME, utc_now
    from app.core.certificate.compare import Differences, compare, integrity_problems
    from app.core.certificate.signing import SIGNATURE_NAME, load_public, signature_check
    from app.report.verification.structure import attachment, optional_attachment, read_pdf

    trusted = load_public(args.key) if args.key is not None else None
    try:
        read = read_pdf(args.pdf)
        stored = _json_object(attachment(read, ATTACHMENT_NAME), args.pdf)
        signature = optional_attachment(read, SIGNATURE_NAME)
    except InputError as exc:
        raise InputError(exc.problem, file=args.pdf) from exc
    problems = integrity_problems(stored)
    pages: list[str] = []
    notes: list[str] = []
    if not problems:
        pages, notes = _page_check(read, stored, args.text_only)
    signed, signed_notes = signature_check(stored, signature, trusted)
    found = Differences()
    if args.project is not None:
        raw = stored.get("prepared")
        named: dict[str, Any] = raw if isinstance(raw, dict) else {}
        fresh = with_bar(
            certificate_job(
                args.project,
                str(stored.get("generated_at") or utc_now()),
                named.get("for"),
                named.get("by"),
            )
        )
        found = compare(stored, fresh)
    _print_section(args.pdf, "the file was changed after Accord wrote it", read.problems)
    _print_section(args.pdf, "the embedded certificate fails its integrity check", problems)
    _print_section(args.pdf, "the pages do not show the attached certificate", pages)
    _print_section(args.pdf, "the signature does not hold", signed)
    if found.total:
        _print_section(
            args.pdf,
            f"{found.heading()} between the certificate in the PDF and the project "
            f"{args.project} now",
            found.lines,
        )
    if read.problems or problems or pages or signed or found.total:
        return EXIT_MISMATCH
    what = (
        f"matches the project {args.project}"
        if args.project is not None
        else "is intact (use --project to recompute it from the project)"
    )
    print(
        f"{args.pdf}: the certificate stated at {stored.get('generated_at')} {what}; its pages "
        f"print it; {'; '.join([*signed_notes, *notes])}; content hash "
        f"{stored.get('content_hash')}"
    )
    return EXIT_OK


RENDER_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError)
"""What rendering a hand-made certificate can raise (its hash is right, its shape is not
one Accord writes): a failed check, never a traceback."""


def _page_check(read: Any, stored: dict[str, Any], text_only: bool) -> tuple[list[str], list[str]]:
    """(problems, notes) of the pages against the attached certificate rendered again."""
    _app = _ensure_gui_application()
    from app.report.verification.pages import compare_pages, rendered
    from app.report.verification.structure import READ_ERRORS

    try:
        expected = rendered(stored)
    except (*RENDER_ERRORS, InputError) as exc:
        return [
            f"the attached certificate cannot be rendered ({exc.__class__.__name__}: {exc}): "
            "Accord did not write it"
        ], []
    try:
        check = compare_pages(read, expected)
    except (*RENDER_ERRORS, *READ_ERRORS) as exc:
        return [f"the pages cannot be read ({exc.__class__.__name__}: {exc})"], []
    if check.undrawn is not None:
        if text_only:
            check.notes.append(check.undrawn)
        else:
            check.problems.append(
                f"{check.undrawn}; a changed drawing (a white box over a row, a recoloured "
                "verdict) would go unseen: verify where the PDF's Qt renders, or pass "
                "--text-only to accept a text-only check"
            )
    written = stored.get("accord_version")
    if check.problems and written != __version__:
        check.problems.insert(
            0,
            f"(the certificate was written by Accord {written}, this is Accord {__version__}: "
            "the pages are compared with what this version prints, and wording may have "
            "changed between versions)",
        )
    return check.problems, check.notes
