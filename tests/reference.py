"""Shared reference values for the tests, found without a conftest.

The file lives in the workspace's ``shared/spec`` folder, next to (not inside) the
project checkout: ``…/shared/spec/reference-vectors.json``. The lookup walks up from
this file, so it works from any checkout depth; a test that needs the values is
skipped, with the paths tried, when the file is absent.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

SPEC_RELATIVE = Path("shared") / "spec" / "reference-vectors.json"


def reference_candidates() -> list[Path]:
    """Where the reference file may be, nearest first.

    Seen from a test module in ``tests/core`` these are ``parents[3] / "shared"/…`` and
    ``parents[2].parent / "shared"/…``; walking every ancestor covers both and any
    other layout.
    """
    here = Path(__file__).resolve()
    return [ancestor / SPEC_RELATIVE for ancestor in here.parents]


def reference_path() -> Path | None:
    """The reference file, or ``None`` when it is nowhere above this checkout."""
    for candidate in reference_candidates():
        if candidate.is_file():
            return candidate
    return None


@cache
def _load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def reference_vectors() -> dict[str, Any]:
    """The parsed ``reference-vectors.json``; skips the calling test when it is absent."""
    path = reference_path()
    if path is None:
        tried = ", ".join(str(p) for p in reference_candidates()[:3])
        pytest.skip(f"reference-vectors.json not found (looked for {SPEC_RELATIVE} at {tried}, …)")
    return _load(path)
