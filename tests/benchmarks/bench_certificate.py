"""Benchmark: certificates of the sentiment demo and of a 100,000-item study.

Run on purpose: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_certificate.py
[--items N]``.

For each study (the sentiment demo exported and certified once; the 100,000-item study of
``bench_label_status.py`` with all six contract kinds, certified once):

- in process: opening the project (agreement report and contract status, shared by every
  output), building the certificate (hashing every input, assembling, canonical JSON), and
  printing the PDF; the references in the same run are ``json.dumps`` of the same
  agreement report and status the plain JSON outputs print, and the size of that JSON;
- as commands, each in its own process under ``/usr/bin/time``: ``accord certificate``
  against ``accord label status --json`` (the reference: the same project read and
  evaluated, printed as JSON instead of a PDF).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # beside timing.py
from bench_label_status import generate
from timing import timed

from app.cli.main import main as accord
from app.core.certificate.build import build_certificate, canonical_json
from app.core.progress import run
from app.core.project import open_project


def _bench(name: str, project: Path, out: Path) -> None:
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication(["bench"])
    from app.report.pdf import render_pdf

    t0 = time.perf_counter()
    data = run(open_project(project))
    t1 = time.perf_counter()
    cert = run(build_certificate(data, generated_at="2026-11-30T12:00:00Z"))
    t2 = time.perf_counter()
    pdf = render_pdf(cert)
    t3 = time.perf_counter()
    assert data.labels is not None
    reference = json.dumps({"agreement": data.report.to_json(),
                            "status": data.labels.to_json()}).encode()
    t4 = time.perf_counter()
    canonical = canonical_json(cert)
    input_bytes = sum(int(f["bytes"]) for f in cert["inputs"])
    print(f"{name}: open {t1 - t0:.2f}s (shared); certificate data {t2 - t1:.3f}s "
          f"({len(cert['inputs'])} inputs, {input_bytes / 1e6:.1f} MB hashed; JSON "
          f"{len(canonical) / 1e3:.1f} kB); PDF {t3 - t2:.2f}s, {len(pdf) / 1e3:.0f} kB; "
          f"reference json.dumps of report + status {t4 - t3:.3f}s, "
          f"{len(reference) / 1e3:.1f} kB")
    pdf_path = out / f"{name}.pdf"
    cli_time, cli_mib, _ = timed([sys.executable, "-m", "app", "certificate", str(project),
                                  "-o", str(pdf_path)])
    ref_time, ref_mib, _ = timed([sys.executable, "-m", "app", "label", "status",
                                  str(project), "--json"])
    print(f"{name}: accord certificate {cli_time:.2f}s, peak {cli_mib:.0f} MiB, "
          f"{pdf_path.stat().st_size / 1e3:.0f} kB; reference accord label status --json "
          f"{ref_time:.2f}s, peak {ref_mib:.0f} MiB; ratio {cli_time / ref_time:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        assert accord(["demo", "--export", str(root / "demos")]) == 0
        sentiment = root / "demos" / "sentiment_reviews"
        assert accord(["label", "certify", str(sentiment)]) == 0
        _bench("sentiment_reviews", sentiment, root)
        big = root / "big"
        generate(big, args.items)
        assert accord(["label", "certify", str(big)]) == 0
        _bench(f"{args.items}-items", big, root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
