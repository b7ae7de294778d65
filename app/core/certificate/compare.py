"""What ``accord verify`` checks: a certificate's integrity and its match with a project.

:func:`integrity_problems` reads a certificate as found in a PDF: it must be an Accord
certificate (``format``) whose ``content_hash`` is the SHA-256 of the rest. An edited
embedded JSON fails here.

:func:`differences` compares a stored certificate with one recomputed from the project,
field by field, and lists every difference in words, with a dotted path to the field.
Inputs are compared by path first, so a changed file is named as such ("labeling/
requests.jsonl changed") rather than as a hash deep in a list.

Choices where the spec is silent:

- ``generated_at`` and ``content_hash`` are not compared (the first is the stated time,
  the second follows from it).
- Numbers compare equal within a relative 1e-9 (and absolute 1e-12): the certificate
  is recomputed with the same code, but a different CPU or BLAS may move the last bit of
  a bootstrap mean; anything a reader could see in the PDF still differs.
- At most :data:`MAX_LISTED` differences are listed, then a count of the rest. The
  dev curves' points come last: their coverage is a share of the whole population, so
  one added item moves every point, and those would otherwise crowd out the item count
  and the states a reader looks for first.
"""

from __future__ import annotations

import math
from typing import Any

from app.core.certificate.build import FORMAT, VOLATILE_KEYS, content_hash

MAX_LISTED = 60
REL_TOL = 1e-9
ABS_TOL = 1e-12


def integrity_problems(certificate: Any) -> list[str]:
    """Empty when ``certificate`` is an Accord certificate whose hash matches its data."""
    if not isinstance(certificate, dict):
        return ["the embedded certificate is not a JSON object"]
    if certificate.get("format") != FORMAT:
        return [f"the embedded data is not an Accord certificate (format "
                f"{certificate.get('format')!r}, expected {FORMAT!r})"]
    stored = certificate.get("content_hash")
    actual = content_hash(certificate)
    if stored != actual:
        return [f"content hash: the certificate states {stored}, its data hash to {actual}: "
                "the embedded data was edited after it was written"]
    return []


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _numbers_equal(a: Any, b: Any) -> bool:
    return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _diff(a: Any, b: Any, path: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in b:
                out.append(f"{where}: in the certificate ({_short(a[key])}), "
                           "not in the project now")
            elif key not in a:
                out.append(f"{where}: in the project now ({_short(b[key])}), "
                           "not in the certificate")
            else:
                _diff(a[key], b[key], where, out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} entries in the certificate, {len(b)} now")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _diff(x, y, f"{path}[{i}]", out)
        return
    numeric = (int, float)
    if (isinstance(a, numeric) and isinstance(b, numeric) and not isinstance(a, bool)
            and not isinstance(b, bool)):
        if not _numbers_equal(a, b):
            out.append(f"{path}: {_short(a)} in the certificate, {_short(b)} now")
        return
    if a != b or type(a) is not type(b):
        out.append(f"{path}: {_short(a)} in the certificate, {_short(b)} now")


def _input_differences(stored: list[Any], fresh: list[Any]) -> list[str]:
    out: list[str] = []
    old = {str(f.get("path")): f for f in stored if isinstance(f, dict)}
    new = {str(f.get("path")): f for f in fresh if isinstance(f, dict)}
    for path in sorted(set(old) | set(new)):
        if path not in new:
            out.append(f"input {path}: in the certificate, missing from the project now")
        elif path not in old:
            out.append(f"input {path}: in the project now, not in the certificate")
        elif old[path].get("sha256") != new[path].get("sha256"):
            out.append(f"input {path} changed: sha256 {old[path].get('sha256')} in the "
                       f"certificate, {new[path].get('sha256')} now")
        elif old[path] != new[path]:
            _diff(old[path], new[path], f"input {path}", out)
    return out


HEADLINE = ("state", "looks", "level_spent", "rule", "ok", "head", "problem")
"""The last parts of a path a reader wants first: verdicts, looks and the ledger."""


def _rank(line: str) -> int:
    """Where a difference is listed: verdicts and the ledger first, the numbers behind them
    next, Potato's raw metrics and the coverage curves last (stable within each)."""
    path = line.split(":", 1)[0]
    if path.rsplit(".", 1)[-1] in HEADLINE or path.startswith("ledger"):
        return 0
    if ".dev_curve." in path or ".potato_metrics." in path:
        return 2
    return 1


def differences(stored: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """Every difference between a stored certificate and a fresh one, in words."""
    out = _input_differences(list(stored.get("inputs") or []), list(fresh.get("inputs") or []))
    rest_a = {k: v for k, v in stored.items() if k not in (*VOLATILE_KEYS, "inputs")}
    rest_b = {k: v for k, v in fresh.items() if k not in (*VOLATILE_KEYS, "inputs")}
    rest: list[str] = []
    _diff(rest_a, rest_b, "", rest)
    out += sorted(rest, key=_rank)
    if len(out) > MAX_LISTED:
        hidden = len(out) - MAX_LISTED
        out = [*out[:MAX_LISTED], f"... and {hidden} more differences"]
    return out
