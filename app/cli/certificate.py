"""``accord certificate PROJECT -o FILE.pdf`` and ``accord verify FILE.pdf [--project P]``.

Argument parsing and printing only: the certificate is built by
:mod:`app.core.certificate.build`, printed by :mod:`app.report.pdf`, read back by
:mod:`app.report.pdf_attachment` and compared by :mod:`app.core.certificate.compare`.

Exit status (``cli.md``): ``certificate`` 0 when written, 2 for bad input. ``verify`` 0
when the embedded certificate is intact (and, with ``--project``, matches the project
recomputed), 1 with every difference listed on stdout, 2 for bad input (not a PDF, no
certificate attached, an unreadable project).

Choices where the spec is silent:

- Both commands read the project with ``status`` semantics: nothing is tested or written
  (``accord label certify`` is the step that spends looks), so ``verify`` can be run on
  a reviewer's copy without changing it.
- ``certificate`` renders with Qt's offscreen platform unless ``QT_QPA_PLATFORM`` says
  otherwise: it needs fonts, not a display, so it works over SSH and in CI.
- ``verify`` needs no Qt at all (the attachment reader is plain Python).
- ``--for`` and ``--by`` are stored in the certificate (its hash covers them); ``verify
  --project`` recomputes with the names the PDF states, so they are never a difference.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    verify = commands.add_parser("verify", help="check a certificate PDF (and its project)")
    verify.add_argument("pdf", type=Path, metavar="FILE.pdf")
    verify.add_argument("--project", type=Path, help="recompute from this project and compare")


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


def run_certificate(args: argparse.Namespace) -> int:
    from app.core.certificate.build import utc_now

    output: Path = args.output
    if output.suffix.lower() != ".pdf":
        raise InputError(f"expected a .pdf file name, found '{output.name}'", key="-o")
    if output.exists() and output.is_dir():
        raise InputError("expected a file name, found a folder", file=output)
    cert = with_bar(certificate_job(args.project, utc_now(), args.prepared_for, args.prepared_by))
    _app = _ensure_gui_application()
    from app.report.pdf import write_certificate_pdf

    size = write_certificate_pdf(cert, output)
    states = ", ".join(f"{i} {c['state']}" for i, c in cert["contracts"].items()) or "no contracts"
    print(f"wrote {output} ({size:,} bytes): {states}; content hash {cert['content_hash']}")
    return EXIT_OK


def load_embedded(pdf: Path) -> dict[str, Any]:
    from app.core.certificate.build import ATTACHMENT_NAME
    from app.report.pdf_attachment import read_attachment

    raw = read_attachment(pdf, ATTACHMENT_NAME)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"the attached certificate is not valid JSON ({exc})", file=pdf) from exc
    if not isinstance(data, dict):
        raise InputError("the attached certificate is not a JSON object", file=pdf)
    return data


def run_verify(args: argparse.Namespace) -> int:
    from app.core.certificate.build import utc_now
    from app.core.certificate.compare import differences, integrity_problems

    stored = load_embedded(args.pdf)
    problems = integrity_problems(stored)
    found: list[str] = []
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
        found = differences(stored, fresh)
    if problems:
        print(f"{args.pdf}: the embedded certificate fails its integrity check:")
        for line in problems:
            print(f"  - {line}")
    if found:
        count = f"{len(found)} difference{'s' if len(found) != 1 else ''}"
        print(
            f"{args.pdf}: {count} between the certificate in the PDF and the project "
            f"{args.project} now:"
        )
        for line in found:
            print(f"  - {line}")
    if problems or found:
        return EXIT_MISMATCH
    what = (
        f"matches the project {args.project}"
        if args.project is not None
        else "is intact (use --project to recompute it from the project)"
    )
    print(
        f"{args.pdf}: the certificate stated at {stored.get('generated_at')} {what}; "
        f"content hash {stored.get('content_hash')}"
    )
    return EXIT_OK
