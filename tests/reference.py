"""Published reference values for the tests (``shared/spec/reference-vectors.json``).

A copy is kept in ``tests/data`` so the reference tests run (and can fail) in any
checkout, CI included, and are never skipped for want of a sibling folder. When the
spec folder is beside the checkout, ``test_reference_copy_is_current`` checks that the
copy still equals it, so a refined spec cannot go unnoticed.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

VENDORED = Path(__file__).resolve().parent / "data" / "reference-vectors.json"
SPEC_RELATIVE = Path("shared") / "spec" / "reference-vectors.json"


def spec_path() -> Path | None:
    """The spec's own file above this checkout, if there is one."""
    for ancestor in Path(__file__).resolve().parents:
        if (ancestor / SPEC_RELATIVE).is_file():
            return ancestor / SPEC_RELATIVE
    return None


@cache
def reference_vectors() -> dict[str, Any]:
    """The parsed reference values."""
    with VENDORED.open(encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data
