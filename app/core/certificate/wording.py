"""The words ``accord verify`` uses for a difference: whose field, which field, what value.

A difference is found at a path in the certificate's JSON (``contracts.accuracy.state``);
a reader wants a sentence: "contract accuracy: state met in the PDF, insufficient now".
:func:`subject` turns the head of the path into whose field it is, :func:`field_words`
the rest into the field's name, :func:`value_words` a value into short text (a record
or a list is named by its size, never printed as a Python ``repr``).

Pure and without user markup: the sentences go to a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

Path = tuple[str | int, ...]

FIELDS = {
    "n_items": "number of items",
    "n_annotators": "number of annotators",
    "n_labels": "number of labels",
    "n_people": "number of people",
    "state": "state",
    "looks": "looks spent",
    "level_spent": "level spent",
    "head": "head hash",
    "lines": "lines",
    "ok": "intact",
    "problem": "problem",
    "head_file": "head file",
    "claim": "claim",
    "certifies": "certifies",
    "confidence": "confidence",
    "rule": "chosen rule",
    "tests": "tests",
    "accepted_by_tier": "share accepted per tier",
    "accepted_by_tier_counts": "labels accepted per tier",
    "projection": "projection",
    "notes": "notes",
    "mean_js": "mean Jensen–Shannon distance",
    "interval": "interval",
    "noise_ceiling": "noise ceiling",
    "groups": "groups",
    "estimates": "estimates",
    "estimate": "estimate",
    "measured_error": "measured error",
    "threshold": "threshold",
    "winning_rate": "winning rate",
    "alpha": "Krippendorff's α",
    "kappa": "Cohen's κ",
    "fleiss_kappa": "Fleiss' κ",
    "percent_agreement": "percent agreement",
    "by_source": "labels by source",
    "total": "total",
    "sizes": "panel sizes",
    "parameters": "parameter",
    "result": "",
    "metrics": "",
    "coverage": "coverage",
    "passed": "passed",
    "p": "p",
    "level": "level",
    "errors": "errors",
    "n": "n",
    "prepared": "",
    "for": "prepared for",
    "by": "prepared by",
    "sha256": "SHA-256",
    "bytes": "size in bytes",
    "schemes": "schemes",
    "annotators": "annotators",
}
"""JSON keys as a reader says them; an empty name is a container that adds nothing."""

HEX = re.compile(r"[0-9a-f]{32,}")


def subject(path: Path) -> tuple[str, Path]:
    """(whose field, the rest of the path): ``("contract accuracy", ("state",))``."""
    head, rest = (path[0], path[1:]) if path else ("certificate", ())
    named = {
        "contracts": "contract",
        "panels": "panels of",
        "machine_labels_accepted": "machine labels accepted on",
        "export_statuses": "export statuses of",
    }
    if head in named and rest:
        return f"{named[str(head)]} {rest[0]}", rest[1:]
    if head == "agreement" and rest[:1] == ("schemes",) and len(rest) > 1:
        return f"agreement on {rest[1]}", rest[2:]
    plain = {
        "ledger": "looks ledger",
        "project": "project",
        "agreement": "agreement",
        "configuration": "configuration",
        "uncertified": "uncertified labels",
        "prepared": "page 1",
        "unsupported_schemas": "unsupported schemas",
        "labels_absent": "labels",
        "accord_version": "Accord version",
        "format": "format",
    }
    return plain.get(str(head), str(head).replace("_", " ")), rest


def field_words(rest: Sequence[str | int]) -> str:
    """The field's name: ``("tests", 2, "p")`` → ``"tests, entry 3: p"``."""
    words: list[str] = []
    for key in rest:
        if isinstance(key, int):
            words.append(f"entry {key + 1}")
        else:
            name = FIELDS.get(key, key.replace("_", " "))
            if name:
                words.append(name)
    return ", ".join(words)


def value_words(value: Any) -> str:
    """A value as short text: numbers to 6 digits, hashes shortened, records by size."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        text = HEX.sub(lambda m: m.group()[:12] + "…", value)
        return text if len(text) <= 80 else text[:77] + "…"
    if isinstance(value, dict):
        return f"a record of {len(value)} field{'s' if len(value) != 1 else ''}"
    if isinstance(value, list):
        if (
            all(isinstance(v, int | float | str) and not isinstance(v, bool) for v in value)
            and len(value) <= 4
        ):
            return "[" + ", ".join(value_words(v) for v in value) + "]"
        return f"{len(value)} entr{'ies' if len(value) != 1 else 'y'}"
    return value_words(str(value))
